// The checker over real directory trees: which files it reads, how it treats broken trees, and
// that caching and parallelism change nothing but time.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "rules/Checker.h"
#include "rules/TempTree.h"
#include "support/Files.h"

namespace fs = std::filesystem;

namespace {

const char* kBug = "smem sD : f32 = (_32,_33):(_32,_1)\n";

std::vector<std::string> summary(const lp::rules::CheckRun& run) {
  std::vector<std::string> s;
  for (const auto& f : run.findings) {
    auto [line, col] = f.loc.source ? lp::line_col_of(*f.loc.source, f.loc.offset) : std::pair<size_t, size_t>{0, 0};
    s.push_back(lp::rules::file_of(f.loc) + ":" + std::to_string(line) + ":" + std::to_string(col) + " " + f.rule_id +
                " " + f.message + " " + lp::rules::to_json(f.counterexample).dump() + " " + f.fingerprint);
  }
  std::sort(s.begin(), s.end());
  return s;
}

// The obligations with what their proofs rest on: a cached run must give them back unchanged.
std::vector<std::string> obligations(const lp::rules::CheckRun& run) {
  std::vector<std::string> s;
  for (const auto& o : run.obligations)
    s.push_back(lp::rules::file_of(o.loc) + ":" + std::to_string(o.loc.offset) + " " + o.rule_id + " " + o.description +
                (o.passed ? " passed " : " failed ") + lp::rules::to_json(o.proof).dump());
  std::sort(s.begin(), s.end());
  return s;
}

}  // namespace

TEST_CASE("annotations in C++, CUDA and Python comments are found, other files are not read", "[checker]") {
  lp::test::TempTree t;
  t.write("a/kernel.cu", std::string("// layoutproof: ") + kBug + "int main() { return 0; }\n");
  t.write("a/b/model.py", std::string("x = 1  # layoutproof: ") + kBug);
  t.write("a/notes.txt", std::string("layoutproof: ") + kBug);
  t.write("a/clean.cpp", "// layoutproof: smem ok : f32 = (_32,_33):(_33,_1)\n");
  lp::rules::CheckOptions opt;
  auto run = lp::rules::check_paths({t.path("a")}, opt);
  CHECK(run.files.size() == 3);
  CHECK(run.findings.size() == 2);
  for (const auto& f : run.findings) CHECK(f.rule_id == "LP001");
}

TEST_CASE("missing paths, dangling links and symlink loops are findings, never hangs", "[checker]") {
  lp::test::TempTree t;
  t.write("tree/x.lp", kBug);
  fs::create_directory_symlink(t.path("tree"), t.path("tree/loop"));
  fs::create_symlink(t.path("tree/nowhere.lp"), t.path("tree/dangling.lp"));
  lp::rules::CheckOptions opt;
  auto run = lp::rules::check_paths({t.path("tree"), t.path("missing")}, opt);
  CHECK(run.files == std::vector<std::string>{t.path("tree/x.lp")});
  std::string all;
  for (const auto& f : run.findings) all += f.rule_id + " " + f.message + "\n";
  INFO(all);
  CHECK(all.find("missing: no such file or directory") != std::string::npos);
  CHECK(all.find("dangling symbolic link") != std::string::npos);
  CHECK(all.find("LP001") != std::string::npos);
}

TEST_CASE("a warm cache and parallel checking give the same findings as a cold serial run", "[checker]") {
  lp::test::TempTree t;
  for (int i = 0; i < 12; ++i)
    t.write("src/f" + std::to_string(i) + ".lp",
            i % 3 == 0 ? std::string(kBug)
                       : "smem sA : f16 = (_64,_64):(_64,_1) align 1024\n"
                         "access sA ldmatrix.x4 lanes (_16,_2,_4,_4):(_1@0,_8@1,_16@0,_16@1)\n");
  lp::rules::CheckOptions serial;
  serial.jobs = 1;
  const lp::rules::CheckRun reference_run = lp::rules::check_paths({t.path("src")}, serial);
  auto reference = summary(reference_run);
  CHECK(reference.size() == 12);
  lp::rules::CheckOptions cached;
  cached.jobs = 4;
  cached.cache_dir = t.path("cache");
  cached.cache_min_check_ms = 0;  // cache every result, however cheap
  auto cold = summary(lp::rules::check_paths({t.path("src")}, cached));
  size_t entries = 0;
  for (auto& e : fs::directory_iterator(t.path("cache"))) entries += e.path().extension() == ".json";
  CHECK(entries == 12);
  const lp::rules::CheckRun warm_run = lp::rules::check_paths({t.path("src")}, cached);
  auto warm = summary(warm_run);
  CHECK(cold == reference);
  CHECK(warm == reference);
  CHECK(obligations(warm_run) == obligations(reference_run));
  CHECK(obligations(warm_run).front().find("\"engine\"") != std::string::npos);
  // An edited file misses the cache; a damaged entry is recomputed.
  t.write("src/f1.lp", kBug);
  for (auto& e : fs::directory_iterator(t.path("cache"))) std::ofstream(e.path()) << "{not json";
  auto after = summary(lp::rules::check_paths({t.path("src")}, cached));
  CHECK(after.size() == 12);
  CHECK(std::count_if(after.begin(), after.end(), [](const std::string& s) { return s.find("LP001") != std::string::npos; }) == 5);
}

TEST_CASE("a cache entry copied over another file's entry is ignored: the file is checked again", "[checker]") {
  lp::test::TempTree t;
  const std::string clean = "smem sA : f16 = (_64,_64):(_64,_1) align 1024\n"
                            "access sA ldmatrix.x4 lanes (_16,_2,_4,_4):(_1@0,_8@1,_16@0,_16@1)\n";
  t.write("src/good.lp", clean);
  t.write("src/bad.lp", kBug);
  lp::rules::CheckOptions cached;
  cached.jobs = 1;
  cached.cache_dir = t.path("cache");
  cached.cache_min_check_ms = 0;
  const auto first = summary(lp::rules::check_paths({t.path("src")}, cached));
  REQUIRE(std::count_if(first.begin(), first.end(), [](const std::string& s) { return s.find("LP001") != std::string::npos; }) == 1);
  // Every entry overwritten by the clean file's: the failing file must still fail.
  std::vector<fs::path> entries;
  for (auto& e : fs::directory_iterator(t.path("cache")))
    if (e.path().extension() == ".json") entries.push_back(e.path());
  REQUIRE(entries.size() == 2);
  const std::string good_entry = [&] {
    lp::rules::CheckOptions only = cached;
    fs::remove_all(t.path("cache"));
    lp::rules::check_paths({t.path("src/good.lp")}, only);
    for (auto& e : fs::directory_iterator(t.path("cache")))
      if (e.path().extension() == ".json") return lp::test::read_file(e.path().string());
    return std::string();
  }();
  REQUIRE(!good_entry.empty());
  for (const fs::path& e : entries) std::ofstream(e) << good_entry;
  const auto again = summary(lp::rules::check_paths({t.path("src")}, cached));
  CHECK(again == first);
}

TEST_CASE("a compiled kernel's cache entry is bound to the launch comments of the source it names", "[checker][ptx]") {
  // The PTX does not change when its source appears beside it or only a comment of it changes
  // (nvcc -lineinfo keeps the line numbers): the entry must miss when the source states a launch.
  lp::test::TempTree t;
  const std::string ptx = ".version 8.0\n.target sm_90\n.address_size 64\n.file 1 \"k.cu\"\n.visible .entry k()\n{\n"
                          "  .reg .b32 %r<4>;\n  .shared .align 4 .b8 s[1024];\n  .loc 1 3 3\n  mov.u32 %r1, %tid.x;\n"
                          "  shl.b32 %r2, %r1, 2;\n  mov.u32 %r3, s;\n  add.s32 %r3, %r3, %r2;\n  st.shared.u32 [%r3], %r1;\n"
                          "  ret;\n}\n";
  const auto source = [](int block) {
    return "// layoutproof: launch block(" + std::to_string(block) + ")\nextern \"C\" __global__ void k() {\n"
           "  __shared__ unsigned s[256];\n  s[threadIdx.x] = threadIdx.x;\n}\n";
  };
  t.write("src/k.ptx", ptx);
  lp::rules::CheckOptions cached;
  cached.jobs = 1;
  cached.cache_dir = t.path("cache");
  cached.cache_min_check_ms = 0;
  const auto errors = [&] {
    const lp::rules::CheckRun run = lp::rules::check_paths({t.path("src/k.ptx")}, cached);
    return std::count_if(run.findings.begin(), run.findings.end(), [](const auto& f) { return f.rule_id == "LP002"; });
  };
  CHECK(errors() == 1);  // no source: any legal launch, a launch-dependent warning
  t.write("src/k.cu", source(256));
  CHECK(errors() == 0);
  CHECK(errors() == 0);  // from the cache
  t.write("src/k.cu", source(512));
  CHECK(errors() == 1);  // s[threadIdx.x] leaves `s` in a block of 512
}

TEST_CASE("binary and empty files are handled", "[checker]") {
  lp::test::TempTree t;
  t.write("d/empty.cu", "");
  t.write("d/blob.lp", std::string("\x7f" "ELF\0\0\0\x01\x02", 9) + std::string(100, '\0'));
  lp::rules::CheckOptions opt;
  auto run = lp::rules::check_paths({t.path("d")}, opt);
  CHECK(run.files.size() == 2);
  std::string all;
  for (const auto& f : run.findings) all += f.message + "\n";
  INFO(all);
  CHECK(all.find("binary") != std::string::npos);
}
