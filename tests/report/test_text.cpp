#include <catch2/catch.hpp>

#include <algorithm>

#include "Fixtures.h"
#include "report/TextReport.h"

using namespace lp;
using namespace lp::report;
using namespace lp::report::test;

TEST_CASE("text report: clang-style findings in file/line order, then the summary", "[report][text]") {
  const std::string expected =
      "kernels/attn.py:1:28: warning: TMA box of sK is 256 bytes wide, wider than the 128-byte swizzle span [LP005]\n"
      "# layoutproof: tma load sK box (64,128) swizzle 128B\n"
      "                           ^\n"
      "kernels/attn.py:1:32: note: inner box dimension: 128 x bf16 = 256 bytes\n"
      "# layoutproof: tma load sK box (64,128) swizzle 128B\n"
      "                               ^\n"
      "kernels/attn.py:2:33: error: 'sQ' is not a declared buffer [LP000]\n"
      "# layoutproof: expect injective sQ\n"
      "                                ^\n"
      "kernels/gemm.cu:2:17: error: unknown: injectivity of sA not decided within 10 s [LP001]\n"
      "// layoutproof: layout sA = smem bf16 (64,64):(64,1)\n"
      "                ^\n"
      "note: the solver could not decide this obligation: it is neither proven nor refuted; no limit stopped it, so a "
      "longer one will not decide it: the reason above names what is not modelled or decided\n"
      "kernels/gemm.cu:3:17: error: ldmatrix.x4 reads of sA are 8-way bank conflicted [LP002]\n"
      "// layoutproof: access ldmatrix.x4 sA\n"
      "                ^\n"
      "note: lanes 0 and 8 read bank 0 at byte addresses 0x0 and 0x80\n"
      "kernels/gemm.cu:2:17: note: sA rows are 128 bytes apart\n"
      "// layoutproof: layout sA = smem bf16 (64,64):(64,1)\n"
      "                ^\n"
      "kernels/gemm.cu:3:24: note: ldmatrix.x4 lanes 0-7 read one row each\n"
      "// layoutproof: access ldmatrix.x4 sA\n"
      "                       ^\n"
      "3 findings (2 errors, 1 warning), 1 unknown, in 3 files; 2 of 5 obligations proven\n";
  CHECK(text_report(sample_run()) == expected);
}

TEST_CASE("text report: the order of findings in the run does not matter", "[report][text]") {
  CheckRun run = sample_run();
  std::string before = text_report(run);
  std::reverse(run.findings.begin(), run.findings.end());
  std::swap(run.findings[0], run.findings[2]);
  CHECK(text_report(run) == before);
}

TEST_CASE("text report: summary wording", "[report][text]") {
  CheckRun run;
  run.files = {"a.cu"};
  CHECK(summary_line(run) == "0 findings, in 1 file; 0 obligations proven");
  auto src = source("a.cu", "x\n");
  run.obligations = {{"LP001", {src, 0}, "x is injective", true, 1, std::nullopt}};
  CHECK(summary_line(run) == "0 findings, in 1 file; 1 obligation proven");
  Finding w = finding("LP005", {src, 0}, "m", Severity::Warning);
  Finding n = w;
  n.severity = Severity::Note;
  Finding u = w;
  u.kind = FindingKind::Unknown;
  run.findings = {w, n, u, u};
  run.baselined = 1;
  run.obligations.push_back({"LP005", {src, 0}, "box fits", false, 1, std::nullopt});
  CHECK(summary_line(run) == "2 findings (1 warning, 1 note), 2 unknowns, 1 baselined, in 1 file; 1 of 2 obligations proven");
  // A file named only by a finding still counts as checked.
  run.findings[0].loc = {source("b.cu", "y"), 0};
  CHECK(summary_line(run).find("in 2 files") != std::string::npos);
}

TEST_CASE("text report: a finding without a location prints no source line", "[report][text]") {
  Finding f = finding("LP009", {}, "config names an unknown rule");
  CHECK(render_finding(f) == "error: config names an unknown rule [LP009]\n");
}

TEST_CASE("text report: what to do about an unknown depends on its cause", "[report][text]") {
  CheckRun run = sample_run();
  auto unknown = std::find_if(run.findings.begin(), run.findings.end(), [](const Finding& f) { return f.kind == rules::FindingKind::Unknown; });
  REQUIRE(unknown != run.findings.end());
  // Not stopped by a limit: a longer limit is not suggested.
  std::string text = text_report(run);
  CHECK(text.find("no limit stopped it, so a longer one will not decide it") != std::string::npos);
  CHECK(text.find("--timeout-ms") == std::string::npos);
  CHECK(rules::to_json(*unknown)["cause"] == "model");
  CHECK(rules::to_json(*unknown)["reason"] == unknown->message);  // a finding built without its reason alone: the message
  unknown->reason = "a register carried around the loop is not modelled";
  CHECK(rules::to_json(*unknown)["reason"] == "a register carried around the loop is not modelled");
  // Stopped by a limit: raise it.
  unknown->limited = true;
  text = text_report(run);
  CHECK(text.find("a time or memory limit stopped this proof: it is neither proven nor refuted; to decide it, raise the limit "
                  "(--timeout-ms, [solver] timeout-ms, --time-budget, --memory-mb)") != std::string::npos);
  CHECK(rules::to_json(*unknown)["cause"] == "limit");
  // Data-dependent: its own note (the rule's), no generic one.
  unknown->limited = false;
  unknown->data_dependent = true;
  text = text_report(run);
  CHECK(text.find("the solver could not decide") == std::string::npos);
  CHECK(text.find("a time or memory limit") == std::string::npos);
  CHECK(rules::to_json(*unknown)["cause"] == "data-dependent");
}
