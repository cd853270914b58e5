// Findings on compiled kernels as report/Fold.h shows them: which findings fold (same rule,
// severity, kind, location and message but for the instruction's PTX line) and which do not, the
// headline and the note that lists every instruction, and short kernel names.
#include <catch2/catch.hpp>

#include <regex>

#include "Fixtures.h"
#include "report/Fold.h"
#include "analyzer/support/KernelName.h"
#include "report/TextReport.h"

using namespace lp::report;
using lp::short_kernel_name;

TEST_CASE("fold: findings alike but for their instruction become one that lists them") {
  CheckRun run = test::compiled_run();
  const bool gate = run.passes_gate(lp::Severity::Warning);
  fold_findings(run, true);
  REQUIRE(run.findings.size() == 4);
  // 41, 43 (row_sum<32>) and 207 (row_sum<64>): one error, in the run's order.
  const Finding& folded = run.findings[0];
  CHECK(folded.message == "st.shared.f32 in 2 kernels (3 PTX instructions) has bank conflicts: 32 wavefronts where 1 is ideal");
  REQUIRE(folded.compiled.size() == 3);
  CHECK(folded.compiled[2].ptx_line == 207);
  REQUIRE(folded.notes.size() == 3);
  CHECK(folded.notes[0].message ==
        "the same finding on 3 PTX instructions of <PTX of src/a.cu for sm_90>: row_sum<32>: PTX lines 41, 43; row_sum<64>: "
        "PTX line 207; the notes below are those of PTX line 41 in row_sum<32> (--no-fold shows each)");
  CHECK(folded.notes[1].message == "lanes 0 and 1 access bank 9");  // the first instance's own notes follow
  CHECK(folded.fingerprint == "LP002:void row_sum<32>(float*):41");
  // Other wavefronts, another severity: their own findings, each naming its kernel.
  CHECK(run.findings[1].message == "st.shared.f32 (PTX line 45) in row_sum<32> has bank conflicts: 16 wavefronts where 1 is ideal");
  CHECK(run.findings[2].message == "st.shared.f32 (PTX line 209) in row_sum<64> has bank conflicts: 32 wavefronts where 1 is ideal");
  CHECK(run.findings[2].severity == lp::Severity::Warning);
  // An annotation's finding is never folded or renamed.
  CHECK(run.findings[3].compiled.empty());
  CHECK(run.findings[3].message == "st.shared.f32 (PTX line 41) has bank conflicts: 32 wavefronts where 1 is ideal");
  CHECK(run.passes_gate(lp::Severity::Warning) == gate);
  const std::string text = text_report(run);
  CHECK(text.find("findings by kernel:\n  row_sum<32>: 2 errors\n  row_sum<64>: 1 error, 1 warning\n") != std::string::npos);
}

TEST_CASE("fold: --no-fold keeps every instruction's finding, its headline naming the kernel") {
  CheckRun run = test::compiled_run();
  fold_findings(run, false);
  REQUIRE(run.findings.size() == 6);
  CHECK(run.findings[1].message == "st.shared.f32 (PTX line 43) in row_sum<32> has bank conflicts: 32 wavefronts where 1 is ideal");
  CHECK(run.findings[3].message == "st.shared.f32 (PTX line 207) in row_sum<64> has bank conflicts: 32 wavefronts where 1 is ideal");
  for (const Finding& f : run.findings) CHECK(f.compiled.size() <= 1);
}

TEST_CASE("fold: one kernel's unrolled copies name the kernel and the count") {
  CheckRun run = test::compiled_run();
  run.findings.resize(2);  // 41 and 43 of row_sum<32>
  fold_findings(run, true);
  REQUIRE(run.findings.size() == 1);
  CHECK(run.findings[0].message == "st.shared.f32 in row_sum<32> (2 PTX instructions) has bank conflicts: 32 wavefronts where 1 is ideal");
  CHECK(text_report(run).find("findings by kernel") == std::string::npos);  // one kernel: the headline names it
}

TEST_CASE("short_kernel_name: no return type or parameters, long template arguments elided") {
  CHECK(short_kernel_name("void row_sum<32>(float*, float const*)") == "row_sum<32>");
  CHECK(short_kernel_name("transposeNaive") == "transposeNaive");
  CHECK(short_kernel_name("void ns::k<int, 4>(float*, int)") == "ns::k<int, 4>");
  CHECK(short_kernel_name("void (anonymous namespace)::scan(int*)") == "(anonymous namespace)::scan");
  // A kernel's static shared array by its own name.
  CHECK(lp::short_symbol_name("gemm_device<cute::tuple<int, int, int> >(float const*, float*)::smemA") == "smemA");
  CHECK(lp::short_symbol_name("tile") == "tile");
  CHECK(short_kernel_name("void cute::gemm<cute::tuple<cute::C<128>, cute::C<128>, cute::C<64>>, float>(float*)") ==
        "cute::gemm<..., float>");
  CHECK(short_kernel_name("void k<std::array<int, 4>>(int)") == "k<std::array<int, 4>>");
}

TEST_CASE("kernel_pattern: searched without backtracking, back-references and huge patterns refused") {
  // (a|a)*b on 60 a's has 2^60 ways to fail for a backtracking matcher; this one answers at once.
  CHECK_FALSE(std::regex_search(std::string(60, 'a'), lp::kernel_pattern("(a|a)*b")));
  CHECK(std::regex_search(std::string("void gemm_device<cute::C<129> >(float*)"), lp::kernel_pattern("gemm_device<.*C<129>")));
  CHECK_THROWS_AS(lp::kernel_pattern("(k)\\1"), std::regex_error);
  CHECK_THROWS_AS(lp::kernel_pattern(std::string(lp::kMaxKernelPatternChars + 1, 'k')), std::regex_error);
  CHECK_NOTHROW(lp::kernel_pattern(std::string(lp::kMaxKernelPatternChars, 'k')));
}
