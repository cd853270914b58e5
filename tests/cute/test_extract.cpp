// `layoutproof extract` as users run it: a probe that compiles, runs and writes annotations is
// checked like a file, with findings at the probe's call sites; a probe that does not compile, does
// not finish, fails, prints too much or writes anything but annotations is a located error, exit 2,
// and nothing is checked.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/Files.h"
#include "support/Process.h"

namespace fs = std::filesystem;
using lp::test::run_layoutproof;

namespace {

// A probe file in a fresh directory (the tests' working directory is the build's).
struct Probe {
  fs::path dir;
  std::string path;
  Probe(const std::string& name, const std::string& text) {
    dir = fs::temp_directory_path() / fmt::format("lp_extract_{}_{}", name, ::getpid());
    fs::create_directories(dir);
    path = (dir / (name + ".cpp")).string();
    std::ofstream(path) << text;
  }
  ~Probe() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Writes the annotation text `lines` to $LAYOUTPROOF_EMIT, without CuTe (fast to compile).
std::string writer(const std::string& lines) {
  return "#include <cstdio>\n#include <cstdlib>\nint main() {\n"
         "  FILE* f = std::fopen(std::getenv(\"LAYOUTPROOF_EMIT\"), \"w\");\n"
         "  std::fputs(R\"(" + lines + ")\", f);\n  return std::fclose(f);\n}\n";
}

}  // namespace

TEST_CASE("extract: a probe that does not compile shows the compiler's errors and is a located error", "[extract]") {
  Probe p("broken", "int main( {\n");
  auto r = run_layoutproof({"extract", p.path});
  CHECK(r.exit_code == 2);
  CHECK(has(r.err, "broken.cpp:1:"));  // the compiler's own diagnostic
  CHECK(has(r.err, p.path + ":1:1: error: the probe did not compile (g++ exited with status 1); nothing was checked"));
  CHECK(r.out.empty());
}

TEST_CASE("extract: without CuTe's include path the message names -I", "[extract]") {
  Probe p("nocute", "#include <cute/tensor.hpp>\nint main() {}\n");
  auto r = run_layoutproof({"extract", p.path, "--cxx", "g++"});
  CHECK(r.exit_code == 2);
  CHECK(has(r.err, "cute/tensor.hpp"));
  CHECK(has(r.err, "error: CuTe's headers were not found: give their directory with -I"));
}

TEST_CASE("extract: --emit names an .lp file, which check reads as annotations", "[extract]") {
  Probe p("emit", "int main() {}\n");
  auto r = run_layoutproof({"extract", p.path, "--emit", (p.dir / "out.cu").string()});
  CHECK(r.exit_code == 2);
  CHECK(has(r.err, "the annotations a probe writes are a standalone file; name it *.lp"));
}

TEST_CASE("extract: a compiler that cannot be started is named", "[extract]") {
  Probe p("nocxx", "int main() {}\n");
  auto r = run_layoutproof({"extract", p.path, "--cxx", "/nonexistent/c++"});
  CHECK(r.exit_code == 2);
  CHECK(has(r.err, "the compiler '/nonexistent/c++' cannot be started; name one with --cxx"));
}

TEST_CASE("extract: a probe that hangs is stopped at the time limit, located at its last statement", "[extract]") {
  Probe p("hang", "");
  // The statement names the probe file and line as the emitter would (__FILE__, __LINE__).
  std::ofstream(p.path) << "#include <cstdio>\n#include <cstdlib>\nint main() {\n"
                           "  FILE* f = std::fopen(std::getenv(\"LAYOUTPROOF_EMIT\"), \"w\");\n"
                           "  std::fputs(\"arch sm_90 ; at \\\"" + p.path + "\\\":4\\n\", f);\n"
                           "  std::fflush(f);\n  for (volatile int i = 0;; ++i) {}\n}\n";
  auto r = run_layoutproof({"extract", p.path, "--run-timeout", "1"});
  CHECK(r.exit_code == 2);
  CHECK(has(r.err, p.path + ":4:1: error: the probe did not finish within 1 s (--run-timeout) (its last statement came "
                            "from this line); nothing was checked"));
  CHECK(r.out.empty());
}

TEST_CASE("extract: a probe that fails or prints too much is a located error", "[extract]") {
  {
    Probe p("fails", "#include <cstdio>\nint main() { std::fprintf(stderr, \"probe.cpp:9: error: no\\n\"); return 3; }\n");
    auto r = run_layoutproof({"extract", p.path});
    CHECK(r.exit_code == 2);
    CHECK(has(r.err, "probe.cpp:9: error: no"));  // the probe's own message
    CHECK(has(r.err, p.path + ":1:1: error: the probe exited with status 3; nothing was checked"));
  }
  {
    Probe p("loud", "#include <cstdio>\nint main() { for (int i = 0; i < (1 << 22); ++i) std::putchar('x'); }\n");
    auto r = run_layoutproof({"extract", p.path});
    CHECK(r.exit_code == 2);
    CHECK(has(r.err, "error: the probe printed more than 1048576 bytes; nothing was checked"));
  }
}

TEST_CASE("extract: a probe that writes garbage or nothing is a located error, and nothing is checked", "[extract]") {
  {
    Probe p("garbage", writer("smem s : f16 = (_8,_8):(_8,_1)\nhello, world\n"));
    auto r = run_layoutproof({"extract", p.path});
    CHECK(r.exit_code == 2);
    CHECK(has(r.err, "garbage.lp:2:1: error: unknown statement 'hello'"));
    CHECK(has(r.err, p.path + ":1:1: error: the probe wrote 1 statement that are not annotations (above); nothing was "
                              "checked"));
    CHECK(r.out.empty());
  }
  {
    Probe p("silent", "int main() {}\n");
    auto r = run_layoutproof({"extract", p.path});
    CHECK(r.exit_code == 2);
    CHECK(has(r.err, "error: the probe wrote no annotations"));
  }
}

TEST_CASE("extract: findings on generated statements are reported at the probe's line, with its text", "[extract]") {
  // A column-major (128,64) half tile read by ldmatrix down its rows: 8 rows 128 bytes apart in one
  // bank group, 32 wavefronts. The statement says it came from line 5 of the probe.
  Probe p("conflict", "");
  const std::string lines = fmt::format(
      "arch sm_80 ; at \"{0}\":4\n"
      "smem s : f16 = (_128,_64):(_64,_1) ; at \"{0}\":4\n"
      "access s2r: s ldmatrix.x4 lanes (_16,_2,_4):(_1,_1024,_16) ; at \"{0}\":5\n",
      p.path);
  std::ofstream(p.path) << writer(lines);
  const std::string emitted = (p.dir / "kept.lp").string();
  auto r = run_layoutproof({"extract", p.path, "--emit", emitted});
  INFO(r.err);
  CHECK(r.exit_code == 1);
  // Line 5 of the probe is `  std::fputs(R"(arch ...`: the caret's line is the probe's own.
  CHECK(has(r.out, p.path + ":5:3: error: ldmatrix.x4 on 's' has bank conflicts"));
  CHECK(has(r.out, "  std::fputs(R\"(arch sm_80"));
  CHECK(has(r.out, emitted + ":3:1: note: in the statement generated there"));
  // --emit keeps what the probe wrote; `check` reads it like any file and reports the same.
  auto c = run_layoutproof({"check", emitted, "--no-cache"});
  CHECK(c.exit_code == 1);
  CHECK(has(c.out, p.path + ":5:"));
}

TEST_CASE("extract: a real CuTe probe compiles on the host, runs and is proven", "[extract][cute]") {
  if (std::string(LP_CUTLASS_INCLUDE).empty()) return;  // no CuTe headers: tests/cute/CMakeLists.txt skips
  Probe p("gmma", R"(#include <layoutproof/cute.hpp>
using namespace cute;
int main() {
  layoutproof::Emitter out;
  layoutproof::emit_arch(out, "sm_90");
  auto sA = layoutproof::emit_layout<half_t>(out, "sA", tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{}, Shape<_64, _64>{}),
                                             layoutproof::LayoutOptions().align(1024).cute("SmemLayoutA"));
}
)");
  auto r = run_layoutproof({"extract", p.path, "-I", LP_CUTLASS_INCLUDE, "--emit", (p.dir / "gmma.lp").string()});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(has(r.out, "0 findings"));
  const std::string emitted = lp::test::read_file((p.dir / "gmma.lp").string());
  CHECK(has(emitted, "cute \"SmemLayoutA\" = Sw<3,4,3> o smem_ptr[16b](unset) o ((_8,_8),(_64,_1)):((_64,_512),(_1,_0)) ; "
                     "at \"" + p.path + "\":6\n"));
}
