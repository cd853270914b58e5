// summary.md: the findings table, the per-finding sections, and Markdown-inert hostile text.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "report/MarkdownReport.h"

namespace {

lp::report::FindingsDoc planted() {
  std::ifstream in(LP_HTML_FIXTURE, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return lp::report::parse_findings_doc(s.str(), "planted.json");
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
      R"({"findings": [{"rule": "LP9", "message": "a|b <script>x</script> *em* [l](http://e)\n# head", "file": "f`x`.cu"}]})", "h");
  const std::string md = lp::report::render_markdown_report(doc);
  CHECK(md.find("| 1 | LP9 | - | f\\`x\\`.cu | a\\|b \\<script\\>x\\</script\\> \\*em\\* \\[l\\](http://e) \\# head |") !=
        std::string::npos);
  CHECK(md.find("<script>") == std::string::npos);
}
