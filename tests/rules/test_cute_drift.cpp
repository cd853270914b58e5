// LP012 cute-drift (a layout annotated with `cute "EXPR"` is the function a probe computed for
// EXPR, over the files of one run) and the `at` clause (findings on generated statements are
// reported at the generating line). The differences are worked out by hand from the layouts.
#include <catch2/catch.hpp>

#include "rules/Checker.h"
#include "rules/TempTree.h"

namespace {

using lp::rules::CheckRun;
using lp::rules::Finding;

CheckRun check(const std::vector<std::string>& paths, std::optional<std::string> cache = std::nullopt) {
  lp::rules::CheckOptions opt;
  opt.jobs = 1;
  opt.cache_dir = std::move(cache);
  return lp::rules::check_paths(paths, opt);
}

std::vector<const Finding*> of_rule(const CheckRun& run, const std::string& id) {
  std::vector<const Finding*> out;
  for (const Finding& f : run.findings)
    if (f.rule_id == id) out.push_back(&f);
  return out;
}

std::pair<size_t, size_t> at(const lp::SourceLoc& l) { return lp::line_col_of(*l.source, l.offset); }

std::string messages(const CheckRun& run) {
  std::string s;
  for (const Finding& f : run.findings) s += f.rule_id + ": " + f.message + "\n";
  return s;
}

const char* kDefs =
    "cute \"SmemLayoutQ\" = Sw<3,3,3> o _0 o ((_8,_16),(_64,_1)):((_64,_512),(_1,_0))\n"
    "cute \"RowMajor\" = (_128,_64):(_64,_1)\n"
    "cute \"GMMA::Layout_K_SW128_Atom<half_t>\" = Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)\n";

}  // namespace

TEST_CASE("LP012: an annotation that is CuTe's function passes, in any nesting or notation", "[rules][cute]") {
  lp::test::TempTree tree;
  tree.write("probe.lp", kDefs);
  tree.write("kernel.lp",
             "smem sQ : f16 = Sw<3,3,3> o _0 o (_128,_64):(_64,_1) align 128 cute \"SmemLayoutQ\"\n"
             "smem sR : f16 = S[(128, 64):(64, 1)] cute \"RowMajor\"\n"
             "smem sA : f16 = Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1) align 1024 cute \"GMMA::Layout_K_SW128_Atom<half_t>\"\n"
             "smem sB : f16 = Sw<3,3,3> o _0 o (_8,_64):(_64,_1) align 1024 cute \"GMMA::Layout_K_SW128_Atom<half_t>\"\n");
  CheckRun run = check({tree.path()});
  INFO(messages(run));
  CHECK(run.findings.empty());
  size_t drift = 0;
  for (const auto& o : run.obligations)
    if (o.rule_id == "LP012") {
      CHECK(o.passed);
      ++drift;
    }
  CHECK(drift == 4);
}

TEST_CASE("LP012: the first coordinate where an annotation and CuTe differ", "[rules][cute]") {
  lp::test::TempTree tree;
  tree.write("probe.lp", kDefs);
  const std::string kernel = tree.write("kernel.lp",
                                        "smem a : f16 = (_128,_64):(_1,_128) cute \"RowMajor\"\n"
                                        "smem b : f16 = (_128,_32):(_32,_1) cute \"RowMajor\"\n"
                                        "smem c : f16 = Sw<3,3,3> o _0 o (_8,_64):(_64,_1) cute \"GMMA::Layout_K_SW128_Atom<half_t>\"\n"
                                        "smem d : f16 = (_8):(_1) cute \"Nowhere\"\n");
  CheckRun run = check({tree.path()});
  auto f = of_rule(run, "LP012");
  INFO(messages(run));
  REQUIRE(f.size() == 4);
  // (m,k) -> m + 128k against m*64 + k: they part at (1,0), offset 1 against 64.
  CHECK(f[0]->message == "'a' is not the CuTe expression \"RowMajor\": at coordinate (1,0) (index 1) the element offset "
                         "is 1, not 64");
  CHECK(at(f[0]->loc) == std::pair<size_t, size_t>{1, 16});
  CHECK(std::get<lp::rules::CuteDriftCex>(f[0]->counterexample).difference.value().coordinate == std::vector<int64_t>{1, 0});
  // CuTe's definition, in probe.lp, named in words (a file's cached findings point into it alone).
  CHECK(f[0]->notes[0].message.ends_with("probe.lp:2:6)"));
  CHECK(f[1]->message == "'b' is not the CuTe expression \"RowMajor\": the shape is (128,32), not (128,64)");
  // Sw<3,3,3> on element offsets equals Sw<3,4,3> on the bytes of 16-bit elements only at a base
  // aligned to the byte swizzle's 1024-byte period.
  CHECK(f[2]->message == "'c' is not the CuTe expression \"GMMA::Layout_K_SW128_Atom<half_t>\": the offsets agree only for "
                         "a base aligned to 1024 bytes: CuTe's swizzle acts on absolute byte addresses and the "
                         "annotation's on element offsets; declare 'align 1024' (or write the swizzle as CuTe does)");
  CHECK(f[3]->message == "no probe output among the files checked defines the CuTe expression \"Nowhere\"");
  CHECK(f[3]->kind == lp::rules::FindingKind::Invalid);
  CHECK(at(f[3]->loc) == std::pair<size_t, size_t>{4, 31});
}

TEST_CASE("LP012: two probes may not give one expression two layouts", "[rules][cute]") {
  lp::test::TempTree tree;
  tree.write("a.lp", "cute \"X\" = (_4,_2):(_2,_1)\n");
  tree.write("b.lp", "cute \"X\" = (_4,_2):(_1,_4)\ncute \"Y\" = (_8):(_1)\n");
  CheckRun run = check({tree.path()});
  auto f = of_rule(run, "LP012");
  REQUIRE(f.size() == 1);
  CHECK(f[0]->message == "two probes give the CuTe expression \"X\" different layouts: at coordinate (1,0) (index 1) the "
                         "element offset is 1, not 2");
  CHECK(lp::rules::file_of(f[0]->loc).find("b.lp") != std::string::npos);
}

TEST_CASE("LP012: a file naming CuTe expressions is cached under the run's definitions, so a changed probe output is seen", "[rules][cute]") {
  lp::test::TempTree tree;
  const std::string cache = tree.path("cache");
  tree.write("src/kernel.lp", "smem s : f16 = (_4,_2):(_2,_1) cute \"X\"\n");
  tree.write("src/probe.lp", "cute \"X\" = (_4,_2):(_2,_1)\n");
  CHECK(check({tree.path("src")}, cache).findings.empty());
  CHECK(check({tree.path("src")}, cache).findings.empty());  // from the cache
  tree.write("src/probe.lp", "cute \"X\" = (_4,_2):(_1,_4)\n");
  const CheckRun first = check({tree.path("src")}, cache);
  auto changed = of_rule(first, "LP012");
  REQUIRE(changed.size() == 1);
  CHECK(lp::rules::file_of(changed[0]->loc).ends_with("kernel.lp"));
  // ... and its finding, cached in turn, comes back whole.
  const CheckRun second = check({tree.path("src")}, cache);
  auto again = of_rule(second, "LP012");
  REQUIRE(again.size() == 1);
  CHECK(again[0]->message == changed[0]->message);
  CHECK(again[0]->notes[0].message == changed[0]->notes[0].message);
}

TEST_CASE("findings on generated statements are reported at their `at` line", "[rules][cute]") {
  lp::test::TempTree tree;
  const std::string probe = tree.write("probe.cpp", "int main() {\n  // the probe\n    emit_access(...);\n}\n");
  tree.write("gen.lp", "smem s : f16 = (_64,_64):(_64,_1) ; at \"" + probe + "\":1\n"
                       "access a: s ldmatrix.x4 lanes (_16,_2,_4):(_1,_512,_16) ; at \"" + probe + "\":3\n");
  CheckRun run = check({tree.path()});
  auto f = of_rule(run, "LP002");
  REQUIRE(f.size() == 1);
  // The probe is one of the files checked: its line is shown, the caret on its first character.
  CHECK(lp::rules::file_of(f[0]->loc) == probe);
  CHECK(at(f[0]->loc) == std::pair<size_t, size_t>{3, 5});
  CHECK(f[0]->notes[0].message == "in the statement generated there");
  CHECK(at(f[0]->notes[0].loc) == std::pair<size_t, size_t>{2, 1});
  // Its obligation stays on the generated statement, where it was decided.
  bool stays = false;
  for (const auto& o : run.obligations)
    if (o.rule_id == "LP002") stays = lp::rules::file_of(o.loc).ends_with("gen.lp");
  CHECK(stays);
  // Checked alone, the generated file names the probe's line without showing it.
  CheckRun alone = check({tree.path("gen.lp")});
  auto g = of_rule(alone, "LP002");
  REQUIRE(g.size() == 1);
  CHECK(lp::rules::file_of(g[0]->loc) == probe);
  CHECK(at(g[0]->loc) == std::pair<size_t, size_t>{3, 1});
  CHECK(g[0]->loc.source->text.empty());
}
