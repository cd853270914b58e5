// summary.md: the findings table, the per-finding sections, and Markdown-inert hostile text.
#include <catch2/catch.hpp>

#include "report/pages/HtmlReport.h"
#include "report/pages/MarkdownReport.h"
#include "support/Files.h"

namespace {

lp::report::FindingsDoc planted() {
  return lp::report::parse_findings_doc(lp::test::read_file(LP_HTML_FIXTURE), "planted.json");
}

}  // namespace

TEST_CASE("summary.md lists every finding with its location and the worst bank phase", "[markdown]") {
  const auto doc = planted();
  const std::string md = lp::report::render_markdown_report(doc);
  CHECK(md.find("| # | rule | severity | location | message |") != std::string::npos);
  CHECK(md.find("| 1 | LP002 | error | tests/data/planted/bugs.lp:3:") != std::string::npos);
  CHECK(md.find("\n## " + std::to_string(doc.findings.size()) + ". ") != std::string::npos);
  // ldmatrix.x4 over a row-major 64x64 f16 tile: lanes 0-7 all hit bank 0 at 8 distinct words.
  CHECK(md.find("worst phase 0 of 4: bank 0 delivers 8 distinct words to lanes 0, 1, 2, 3, 4, 5, 6, 7 (32 wavefronts in all, 4 ideal)") !=
        std::string::npos);
  // st.shared.b32 over a 32x32 f32 tile with 32 lanes down a column: one phase, 32 words.
  CHECK(md.find("worst phase 0 of 1: bank 0 delivers 32 distinct words") != std::string::npos);
  CHECK(md.find("uncovered: \\[96\\]") != std::string::npos);
}

TEST_CASE("summary.md escapes Markdown and HTML in messages", "[markdown]") {
  const auto doc = lp::report::parse_findings_doc(
      R"({"findings": [{"rule": "LP9", "severity": "warning", "kind": "violation", "message": "a|b <script>x</script> *em* [l](http://e)\n# head", "file": "f`x`.cu", "line": 2, "column": 5}]})", "h");
  const std::string md = lp::report::render_markdown_report(doc);
  CHECK(md.find("| 1 | LP9 | warning | f\\`x\\`.cu:2:5 | a\\|b \\<script\\>x\\</script\\> \\*em\\* \\[l\\](http://e) \\# head |") !=
        std::string::npos);
  CHECK(md.find("<script>") == std::string::npos);
}

TEST_CASE("the GPU replay recorded by replay --run is shown in both pages", "[markdown][html]") {
  const auto doc = lp::report::parse_findings_doc(
      R"({"findings": [
        {"rule": "LP002", "severity": "error", "kind": "violation", "message": "m", "replay": {"program": "f00.cu", "method": "ncu", "predicted": 8, "measured": 8,
         "agrees": true, "device": "NVIDIA H100 80GB HBM3", "arch": "sm_90a"}},
        {"rule": "LP002", "severity": "error", "kind": "violation", "message": "m", "replay": {"program": "f01.cu", "method": "ncu", "predicted": 8, "measured": 4,
         "agrees": false, "device": "GPU <x>", "arch": "sm_90a"}},
        {"rule": "LP002", "severity": "error", "kind": "violation", "message": "m", "replay": {"program": "f02.cu", "method": "unmeasured", "predicted": 4,
         "measured": null, "agrees": null, "device": "GPU", "arch": "sm_80"}},
        {"rule": "LP005", "severity": "error", "kind": "violation", "message": "m", "replay": {"replayed": false, "why": "no per-lane access to replay"}},
        {"rule": "LP002", "severity": "error", "kind": "violation", "message": "m"}]})",
      "replayed.json");
  REQUIRE(doc.findings.size() == 5);
  CHECK(lp::report::replay_text(*doc.findings[0].replay) ==
        "replayed on NVIDIA H100 80GB HBM3 (sm_90a) with ncu: predicted 8, measured 8; agrees");
  CHECK(lp::report::replay_text(*doc.findings[1].replay) ==
        "replayed on GPU <x> (sm_90a) with ncu: predicted 8, measured 4; DISAGREES with the prediction");
  CHECK(lp::report::replay_text(*doc.findings[2].replay) == "replayed on GPU (sm_80) but not measured: predicted 4");
  CHECK(lp::report::replay_text(*doc.findings[3].replay) == "not replayed: no per-lane access to replay");
  CHECK(!doc.findings[4].replay);
  const std::string md = lp::report::render_markdown_report(doc);
  CHECK(md.find("GPU replay: replayed on NVIDIA H100 80GB HBM3 (sm\\_90a) with ncu: predicted 8, measured 8; agrees") !=
        std::string::npos);
  const std::string html = lp::report::render_html_report(doc);
  CHECK(html.find("<b>GPU replay:</b> replayed on GPU &lt;x&gt; (sm_90a) with ncu: predicted 8, measured 4; DISAGREES") !=
        std::string::npos);
  const std::string finding = R"("rule": "LP002", "severity": "error", "kind": "violation", "message": "m")";
  CHECK_THROWS_WITH(lp::report::parse_findings_doc(R"({"findings": [{)" + finding + R"(, "replay": {"agrees": "yes"}}]})", "bad"),
                    Catch::Contains("\"agrees\" must be true, false or null"));
  CHECK_THROWS_WITH(lp::report::parse_findings_doc(R"({"findings": [{)" + finding + R"(, "replay": [1]}]})", "bad"),
                    Catch::Contains("bad: findings[0].replay: must be an object"));
}
