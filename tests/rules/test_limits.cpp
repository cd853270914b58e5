// What `check` does with adversarial trees and inputs (docs/security.md): symlinks out of the tree,
// oversized and special files, unreadable files, and the run's time budget.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "analyzer/support/Governor.h"
#include "rules/Checker.h"
#include "rules/Config.h"
#include "rules/ResultCache.h"
#include "rules/TempTree.h"
#include "support/Process.h"
#include "support/Unprivileged.h"

namespace fs = std::filesystem;

namespace {

const char* kBug = "smem sD : f32 = (_32,_33):(_32,_1)\n";
const char* kProofs =
    "smem sA : f16 = Sw<3,3,3> o _0 o (_64,_64):(_64,_1) align 1024\n"
    "expect sA injective\n"
    "access a1: sA ldmatrix.x4 lanes (_16,_2,_4,_4):(_1@0,_8@1,_16@0,_16@1)\n"
    "tmem sfa : f32 = S[(32,4):(1@TLane,1@TCol)] + R[4:32@TLane]\n"
    "covers sfa TLane=0..127, TCol=0..3\n";

std::string messages(const lp::rules::CheckRun& run) {
  std::string all;
  for (const auto& f : run.findings) all += f.rule_id + " " + f.message + "\n";
  return all;
}

}  // namespace

TEST_CASE("limits: a symlink in the tree to a file outside it is reported, not read", "[checker][limits]") {
  lp::test::TempTree t;
  t.write("outside/secret.cu", std::string("// layoutproof: ") + kBug);
  t.write("tree/in.lp", kBug);
  fs::create_symlink(t.path("outside/secret.cu"), t.path("tree/leak.cu"));
  fs::create_symlink(t.path("tree/in.lp"), t.path("tree/alias.lp"));  // inside: followed
  fs::create_symlink("/etc/passwd", t.path("tree/passwd.py"));
  lp::rules::CheckOptions opt;
  auto run = lp::rules::check_paths({t.path("tree")}, opt);
  std::string all = messages(run);
  INFO(all);
  CHECK(run.files == std::vector<std::string>{t.path("tree/alias.lp"), t.path("tree/in.lp")});
  CHECK(all.find("leak.cu: symbolic link to a file outside") != std::string::npos);
  CHECK(all.find("passwd.py: symbolic link to a file outside") != std::string::npos);
  CHECK(all.find("secret") == std::string::npos);
  // Named explicitly, the file is the user's choice and is read.
  auto named = lp::rules::check_paths({t.path("tree/leak.cu")}, opt);
  CHECK(named.files.size() == 1);
}

TEST_CASE("limits: oversized files are refused before reading, also behind a symlink or named", "[checker][limits]") {
  lp::test::TempTree t;
  t.write("tree/ok.lp", kBug);
  const std::string big = t.write("tree/big.cu", "// layoutproof: smem a : f32 = (_2):(_1)\n");
  fs::resize_file(big, (uintmax_t{16} << 20) + 1);  // sparse: no 16 MiB written
  fs::create_symlink(big, t.path("tree/link.cu"));
  lp::rules::CheckOptions opt;
  auto run = lp::rules::check_paths({t.path("tree")}, opt);
  std::string all = messages(run);
  INFO(all);
  CHECK(run.files == std::vector<std::string>{t.path("tree/ok.lp")});
  CHECK(all.find("big.cu: larger than 16777216 bytes, not read") != std::string::npos);
  CHECK(all.find("link.cu: larger than 16777216 bytes, not read") != std::string::npos);
  auto named = lp::rules::check_paths({big}, opt);
  CHECK(named.files.empty());
  CHECK(messages(named).find("larger than") != std::string::npos);
}

TEST_CASE("limits: FIFOs and devices are never opened", "[checker][limits]") {
  lp::test::TempTree t;
  t.write("tree/ok.lp", kBug);
  REQUIRE(mkfifo(t.path("tree/pipe.cu").c_str(), 0600) == 0);
  fs::create_symlink("/dev/zero", t.path("tree/zero.py"));
  lp::rules::CheckOptions opt;
  // Reading either would block or never end; the test finishing is half the check.
  auto run = lp::rules::check_paths({t.path("tree")}, opt);
  CHECK(run.files == std::vector<std::string>{t.path("tree/ok.lp")});
  auto named = lp::rules::check_paths({t.path("tree/pipe.cu"), "/dev/zero"}, opt);
  std::string all = messages(named);
  INFO(all);
  CHECK(named.files.empty());
  CHECK(all.find("pipe.cu: not a regular file or directory") != std::string::npos);
  CHECK(all.find("/dev/zero: not a regular file or directory") != std::string::npos);
}

TEST_CASE("limits: an unreadable file or directory fails the gate, never passes silently", "[checker][limits]") {
  lp::test::TempTree t;
  const std::string f = t.write("tree/locked.lp", kBug);
  t.write("tree/sub/bug.lp", kBug);  // a real LP001 bug in a directory nobody may list
  t.write("tree/ok.lp", "smem ok : f32 = (_32,_33):(_33,_1)\n");
  fs::permissions(f, fs::perms::none);
  fs::permissions(t.path("tree/sub"), fs::perms::none);
  auto seen = lp::test::run_unprivileged([&] {
    lp::rules::CheckOptions opt;
    opt.jobs = 1;
    std::string all;
    for (const std::string& path : {t.path("tree"), f}) all += messages(lp::rules::check_paths({path}, opt)) + "--\n";
    return all;
  });
  fs::permissions(t.path("tree/sub"), fs::perms::owner_all);  // so the scratch tree can be removed
  REQUIRE(seen);
  INFO(*seen);
  CHECK(seen->find("LP000 " + f + ": cannot be read") != std::string::npos);
  CHECK(seen->find("LP000 " + t.path("tree/sub") + ": cannot be read: Permission denied") != std::string::npos);
}

TEST_CASE("limits: links the walk would check are resolved or reported, others are not files to check", "[checker][limits]") {
  lp::test::TempTree t;
  t.write("tree/ok.lp", "smem ok : f32 = (_32,_33):(_33,_1)\n");
  fs::create_symlink(t.path("tree/nowhere.txt"), t.path("tree/notes.txt"));  // never checked, whatever it points at
  fs::create_symlink(t.path("tree/nowhere.lp"), t.path("tree/dangling.lp"));
  fs::create_symlink(t.path("tree/b.cu"), t.path("tree/a.cu"));
  fs::create_symlink(t.path("tree/a.cu"), t.path("tree/b.cu"));
  lp::rules::CheckOptions opt;
  auto run = lp::rules::check_paths({t.path("tree"), t.path("tree/a.cu")}, opt);
  std::string all = messages(run);
  INFO(all);
  CHECK(run.files == std::vector<std::string>{t.path("tree/ok.lp")});
  CHECK(all.find("notes.txt") == std::string::npos);
  CHECK(all.find(t.path("tree/dangling.lp") + ": dangling symbolic link") != std::string::npos);
  CHECK(all.find(t.path("tree/a.cu") + ": symbolic link loop, not read") != std::string::npos);
  CHECK(all.find(t.path("tree/b.cu") + ": symbolic link loop, not read") != std::string::npos);
  CHECK(run.findings.size() == 4);  // the two loops, the dangling link, and a.cu named on its own
}

TEST_CASE("limits: a spent time budget turns the remaining proofs into unknowns, and is not cached", "[checker][limits][budget]") {
  lp::test::TempTree t;
  t.write("src/a.lp", kProofs);
  lp::rules::CheckOptions full;
  full.jobs = 1;
  auto reference = lp::rules::check_paths({t.path("src")}, full);
  auto proven = [](const lp::rules::CheckRun& r) {
    return std::count_if(r.obligations.begin(), r.obligations.end(), [](const auto& o) { return o.passed; });
  };
  const auto decided = proven(reference);
  CHECK(decided >= 3);
  CHECK(static_cast<size_t>(decided) == reference.obligations.size());
  for (const auto& f : reference.findings) CHECK(f.kind != lp::rules::FindingKind::Unknown);

  lp::rules::CheckOptions spent = full;
  spent.config.time_budget_s = 1e-9;  // over before the first proof
  spent.cache_dir = t.path("cache");
  spent.cache_min_check_ms = 0;  // only the unknowns keep the results out of the cache
  auto run = lp::rules::check_paths({t.path("src")}, spent);
  size_t unknowns = 0;
  for (const auto& f : run.findings) {
    if (f.kind != lp::rules::FindingKind::Unknown) continue;
    ++unknowns;
    CHECK(f.severity == lp::Severity::Error);  // [gate] unknown = "error": the gate fails
  }
  CHECK(unknowns >= 3);
  CHECK(proven(run) == 0);
  // Nothing cut short by the budget is cached: a later run with time proves everything.
  CHECK((!fs::exists(t.path("cache")) || fs::is_empty(t.path("cache"))));
  full.cache_dir = t.path("cache");
  CHECK(proven(lp::rules::check_paths({t.path("src")}, full)) == decided);
}

TEST_CASE("limits: time-budget-s in the config and --time-budget on the command line", "[checker][limits][budget]") {
  CHECK(*lp::rules::parse_config("[gate]\ntime-budget-s = 600\n", "c.toml").time_budget_s == 600);
  CHECK_FALSE(lp::rules::parse_config("", "c.toml").time_budget_s);
  for (const char* bad : {"[gate]\ntime-budget-s = 0\n", "[gate]\ntime-budget-s = \"1\"\n", "[gate]\ntime-budget-s = 99999999\n"}) {
    INFO(bad);
    CHECK_THROWS_AS(lp::rules::parse_config(bad, "c.toml"), lp::rules::ConfigError);
  }
  lp::test::TempTree t;
  const std::string f = t.write("a.lp", kProofs);
  auto ok = lp::test::run_layoutproof({"check", f, "--no-cache", "--time-budget", "600"});
  INFO(ok.out << ok.err);
  CHECK(ok.exit_code == 0);
  auto bad = lp::test::run_layoutproof({"check", f, "--no-cache", "--time-budget", "-1"});
  CHECK(bad.exit_code == 2);
}

TEST_CASE("config: [gate] data-dependent sets the severity of data-dependent unknowns, else it follows unknown", "[checker]") {
  using lp::Severity;
  const auto parse = [](const std::string& text) { return lp::rules::parse_config(text, "c.toml"); };
  CHECK(parse("").data_dependent_severity == Severity::Error);
  CHECK(parse("[gate]\ndata-dependent = \"note\"\n").data_dependent_severity == Severity::Note);
  CHECK(parse("[gate]\ndata-dependent = \"note\"\n").unknown_severity == Severity::Error);
  CHECK(parse("[gate]\nunknown = \"warning\"\n").data_dependent_severity == Severity::Warning);
  CHECK_FALSE(parse("[gate]\nunknown = \"off\"\n").data_dependent_severity.has_value());
  // Whichever order the keys come in, the explicit setting wins.
  CHECK(parse("[gate]\ndata-dependent = \"note\"\nunknown = \"warning\"\n").data_dependent_severity == Severity::Note);
  CHECK(parse("[gate]\nunknown = \"off\"\ndata-dependent = \"error\"\n").data_dependent_severity == Severity::Error);
  CHECK_THROWS_WITH(parse("[gate]\ndata-dependent = \"fatal\"\n"), Catch::StartsWith("c.toml:2:18: gate.data-dependent"));
}

TEST_CASE("limits: check --timeout-ms, which every unknown's note names, sets Z3's limit per query", "[checker][limits]") {
  lp::test::TempTree t;
  const std::string f = t.write("a.lp", kProofs);
  auto ok = lp::test::run_layoutproof({"check", f, "--no-cache", "--timeout-ms", "60000"});
  INFO(ok.out << ok.err);
  CHECK(ok.exit_code == 0);
  for (const char* bad : {"0", "-5", "99999999", "soon"}) {
    auto refused = lp::test::run_layoutproof({"check", f, "--no-cache", "--timeout-ms", bad});
    INFO(bad << ": " << refused.err);
    CHECK(refused.exit_code == 2);
    CHECK(refused.err.find("--timeout-ms") != std::string::npos);
  }
}

TEST_CASE("limits: [solver] memory-mb sets Z3's memory cap, out-of-range values are configuration errors",
          "[checker][limits]") {
  CHECK(lp::rules::parse_config("[solver]\nmemory-mb = 512\n", "c.toml").limits.memory_mb == 512);
  CHECK(lp::rules::parse_config("", "c.toml").limits.memory_mb == 2048);
  for (const char* bad : {"[solver]\nmemory-mb = 8\n", "[solver]\nmemory-mb = \"1G\"\n", "[solver]\nmemory-mb = 9999999\n"}) {
    INFO(bad);
    CHECK_THROWS_AS(lp::rules::parse_config(bad, "c.toml"), lp::rules::ConfigError);
  }
}

TEST_CASE("limits: a bad [ptx.launch] entry is located at its clause, as every configuration error", "[checker][limits]") {
  try {
    lp::rules::parse_config("[ptx.launch]\n\"fill\" = \"blok(64)\"\n", "c.toml");
    FAIL("no ConfigError");
  } catch (const lp::rules::ConfigError& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.rfind("c.toml:2:11: expected a launch clause", 0) == 0);  // the driver adds "error:"
    CHECK(what.find("error:") == std::string::npos);
    CHECK(what.find("\nblok(64)\n^") != std::string::npos);
  }
}

TEST_CASE("limits: a cache entry written by someone else cannot point outside the file", "[checker][limits][cache]") {
  lp::test::TempTree t;
  t.write("src/a.lp", kBug);
  lp::rules::CheckOptions opt;
  opt.cache_dir = t.path("cache");
  opt.cache_min_check_ms = 0;
  auto reference = lp::rules::check_paths({t.path("src")}, opt);
  REQUIRE(reference.findings.size() == 1);
  // Well-formed JSON, but a location past the end of the file and out-of-range enums: recomputed.
  const std::vector<std::string> poisoned = {
      R"({"findings": [{"rule": "LP001", "severity": 2, "kind": 0, "loc": 4000000000, "message": "x", "notes": [],
          "counterexample": null, "trace": [], "fingerprint": "f"}], "obligations": []})",
      R"({"findings": [{"rule": "LP001", "severity": 7, "kind": -1, "loc": 0, "message": "x", "notes": [],
          "counterexample": null, "trace": [], "fingerprint": "f"}], "obligations": []})",
      R"({"findings": [{"rule": "LP001", "severity": 2, "kind": 0, "loc": 0, "message": "x", "notes": [[99999999, "n"]],
          "counterexample": null, "trace": [], "fingerprint": "f"}], "obligations": []})"};
  for (const std::string& entry : poisoned) {
    INFO(entry);
    for (auto& e : fs::directory_iterator(t.path("cache"))) std::ofstream(e.path()) << entry;
    auto run = lp::rules::check_paths({t.path("src")}, opt);
    REQUIRE(run.findings.size() == 1);
    CHECK(run.findings[0].message == reference.findings[0].message);
    CHECK(run.findings[0].loc.offset == reference.findings[0].loc.offset);
  }
}

TEST_CASE("limits: the cache stays under its size bound, the least recently used entries go first", "[checker][limits][cache]") {
  lp::test::TempTree t;
  lp::rules::ResultCache cache({t.path("cache"), 0, 200 * 1024});
  // Ten entries of about 50 KB each (one long message); entry k last used at time k.
  const auto now = fs::file_time_type::clock::now();
  for (int k = 0; k < 10; ++k) {
    lp::rules::FileResult r;
    lp::rules::Finding f;
    f.rule_id = "LP001";
    f.message = std::string(50 * 1024, static_cast<char>('a' + k));
    r.findings.push_back(f);
    REQUIRE(cache.store("entry" + std::to_string(k), r, 10.0, std::make_shared<lp::SourceText>()));
    fs::last_write_time(t.path("cache/entry" + std::to_string(k) + ".json"), now - std::chrono::hours(10 - k));
  }
  cache.evict();
  uint64_t total = 0;
  std::vector<std::string> left;
  for (auto& e : fs::directory_iterator(t.path("cache"))) {
    total += e.file_size();
    left.push_back(e.path().filename().string());
  }
  std::sort(left.begin(), left.end());
  CHECK(total <= 200 * 1024);
  // 80% of the bound holds three entries: the three used last.
  CHECK(left == std::vector<std::string>{"entry7.json", "entry8.json", "entry9.json"});
}

TEST_CASE("limits: only results that cost more than reading them back are cached", "[checker][limits][cache]") {
  lp::test::TempTree t;
  t.write("src/empty.cu", "int main() { return 0; }\n");
  t.write("src/cheap.lp", "smem ok : f32 = (_32,_33):(_33,_1)\n");
  lp::rules::CheckOptions opt;
  opt.cache_dir = t.path("cache");
  opt.cache_min_check_ms = 1e9;  // nothing is that expensive
  auto run = lp::rules::check_paths({t.path("src")}, opt);
  CHECK(run.obligations.size() == 1);
  CHECK_FALSE(fs::exists(t.path("cache")));  // never created: nothing was worth storing
  opt.cache_min_check_ms = 0;
  lp::rules::check_paths({t.path("src")}, opt);
  size_t entries = 0;
  for (auto& e : fs::directory_iterator(t.path("cache"))) entries += e.path().extension() == ".json";
  CHECK(entries == 1);  // the annotated file; a file without annotations never touches the cache
}

TEST_CASE("limits: a configuration is a small regular file with flat settings, or a located error", "[checker][limits][config]") {
  lp::test::TempTree t;
  // 30,000 dotted keys (toml++ recursed on them until the stack overflowed) and arrays nested
  // 30,000 deep: refused, with the place, before toml++ sees them.
  std::string dotted = "[solver]\n";
  for (int i = 0; i < 30000; ++i) dotted += i ? ".a" : "a";
  dotted += " = 1\n";
  try {
    lp::rules::parse_config(dotted, "c.toml");
    FAIL("accepted");
  } catch (const lp::rules::ConfigError& e) {
    CHECK(std::string(e.what()).rfind("c.toml:2:18: a dotted key is nested more than 8 deep", 0) == 0);
  }
  CHECK_THROWS_WITH(lp::rules::parse_config("[solver]\nx = " + std::string(30000, '[') + "\n", "c.toml"),
                    Catch::StartsWith("c.toml:2:13: tables and arrays nested more than 8 deep"));
  // Dots and brackets inside strings and comments nest nothing.
  CHECK(lp::rules::parse_config("[solver]\nengine = \"z3\" # a.b.c.d.e.f.g.h.i.j [[[[[[[[[[\n", "c.toml").engine ==
        lp::Engine::Z3);
  CHECK_THROWS_WITH(lp::rules::parse_config("[rules]\n\"a.b.c.d.e.f.g.h.i.j\" = \"off\"\n", "c.toml"),
                    Catch::Contains("names no rule"));  // read by toml++, which then finds no such rule
  // Not regular files, or too large: refused unread (a FIFO would block, /dev/zero never end, a
  // 3 GB file fill memory).
  const std::string fifo = t.path("fifo.toml");
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_WITH(lp::rules::load_config(fifo), fifo + ": is a FIFO or socket, not a regular file");
  CHECK_THROWS_WITH(lp::rules::load_config("/dev/zero"), "/dev/zero: is a device, not a regular file");
  const std::string huge = t.path("huge.toml");
  std::ofstream(huge).close();
  fs::resize_file(huge, uint64_t{3} << 30);  // sparse: nothing is written
  CHECK_THROWS_WITH(lp::rules::load_config(huge), Catch::Contains("larger than 65536 bytes"));
}

TEST_CASE("limits: the run's memory budget makes a proof unknown before memory passes it", "[checker][limits][budget]") {
  // Injectivity of a 2^23-point layout with a replica axis enumerates a table of hundreds of MiB;
  // a budget just above what the process holds now stops it, and the gate fails on the unknown.
  lp::test::TempTree t;
  t.write("big.lp", "regs r = S[(2048,4096):(4097@m,1@m)] + R[2:1@laneid]\n");
  lp::rules::CheckOptions opt;
  opt.jobs = 1;
  opt.config.engine = lp::Engine::Enum;
  opt.config.limits.memory_mb = static_cast<unsigned>((lp::resident_bytes() >> 20) + 48);
  auto run = lp::rules::check_paths({t.path("big.lp")}, opt);
  std::string all = messages(run);
  INFO(all);
  REQUIRE(run.findings.size() == 1);
  CHECK(run.findings[0].kind == lp::rules::FindingKind::Unknown);
  CHECK(all.find("memory budget ([solver] memory-mb)") != std::string::npos);
}

TEST_CASE("limits: files that each ask for 2^63 parameter values are unknown, and the run ends normally", "[checker][limits]") {
  lp::test::TempTree t;
  for (const char* f : {"a.lp", "b.lp"})
    t.write(f, "param M = 1..9223372036854775807\nsmem sA : f16 = (M):(_1)\nexpect sA injective\n");
  lp::rules::CheckOptions opt;
  opt.jobs = 2;
  auto run = lp::rules::check_paths({t.path()}, opt);
  std::string all = messages(run);
  INFO(all);
  CHECK(run.files.size() == 2);
  CHECK(run.obligations.size() == 2);
  for (const auto& f : run.findings) CHECK(f.kind == lp::rules::FindingKind::Unknown);
}

TEST_CASE("limits: eval's output grows with the layout's points, not with its basis indices", "[cli][limits]") {
  // 4096 points whose images sit at basis paths 16 deep with indices near 1023: written as nested
  // arrays that was 124 MB; each image is now a handful of entries.
  const std::string deep =
      "(_64,_64):(_1@1023@1023@1023@1023@1023@1023@1023@1023,_1@1000@1000@1000@1000@1000@1000@1000@1000)";
  auto r = lp::test::run_layoutproof({"eval", deep, "--json"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.size() < 4096 * 200);
  auto small = lp::test::run_layoutproof({"eval", "(_2,_2):(_1@0,_1@1)", "--json"});
  CHECK(small.out.find("\"images\":[[0,0],[1,0],[0,1],[1,1]]") != std::string::npos);  // the nested form stays
}
