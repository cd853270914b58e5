// The HTML page of `layoutproof report` on the planted corpus's findings (planted.json, the
// output of `check tests/data/planted --format json`): every highlighted cell is checked against
// values recomputed here from the raw counterexample, without the hardware model.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include "report/pages/HtmlReport.h"
#include "support/Files.h"
#include "support/Process.h"

using lp::report::FindingsDoc;
using nlohmann::json;

namespace {

FindingsDoc planted() { return lp::report::parse_findings_doc(lp::test::read_file(LP_HTML_FIXTURE), "planted.json"); }

// The section of finding number n (1-based).
std::string section(const std::string& html, size_t n) {
  const std::string open = "<section class=\"finding\" id=\"f" + std::to_string(n) + "\"";
  size_t a = html.find(open);
  REQUIRE(a != std::string::npos);
  return html.substr(a, html.find("</section>", a) - a);
}

struct Rect {
  std::string cls;
  int64_t row, col;
};

// Cells of the grid whose row/column attributes are `row_attr`/`col_attr`.
std::vector<Rect> cells(const std::string& html, const std::string& row_attr, const std::string& col_attr, size_t svg_index = 0) {
  size_t at = 0;
  for (size_t k = 0; k <= svg_index; ++k) {
    at = html.find("<svg", at + (k ? 1 : 0));
    REQUIRE(at != std::string::npos);
  }
  const std::string svg = html.substr(at, html.find("</svg>", at) - at);
  std::regex re("<rect class=\"c ([a-z]+)\"[^>]* " + row_attr + "=\"(\\d+)\" " + col_attr + "=\"(\\d+)\"");
  std::vector<Rect> out;
  for (std::sregex_iterator it(svg.begin(), svg.end(), re), end; it != end; ++it)
    out.push_back({(*it)[1], std::stoll((*it)[2]), std::stoll((*it)[3])});
  return out;
}

std::set<std::pair<int64_t, int64_t>> with_class(const std::vector<Rect>& rs, std::initializer_list<const char*> classes) {
  std::set<std::pair<int64_t, int64_t>> out;
  for (const auto& r : rs)
    for (const char* c : classes)
      if (r.cls == c) out.insert({r.row, r.col});
  return out;
}

// The colliding (lane, bank) cells of the worst phase, from first principles: phases of `group`
// consecutive lanes, each lane touching `bytes` from its address; a phase costs the most distinct
// 4-byte words of one bank (lowest bank on ties); the first costliest phase is drawn.
std::set<std::pair<int64_t, int64_t>> expected_collisions(const std::vector<int64_t>& addr, int group, int bytes) {
  int64_t best = -1;
  std::set<std::pair<int64_t, int64_t>> out;
  for (int start = 0; start < 32; start += group) {
    std::map<int64_t, std::set<int64_t>> words;
    for (int l = start; l < start + group; ++l)
      for (int64_t w = addr[l] / 4; w <= (addr[l] + bytes - 1) / 4; ++w) words[w % 32].insert(w);
    int64_t bank = 0, most = 0;
    for (auto& [b, ws] : words)
      if (static_cast<int64_t>(ws.size()) > most) most = static_cast<int64_t>(ws.size()), bank = b;
    if (most <= best) continue;
    best = most;
    out.clear();
    for (int l = start; l < start + group; ++l)
      for (int64_t w = addr[l] / 4; w <= (addr[l] + bytes - 1) / 4; ++w)
        if (w % 32 == bank) out.insert({l, bank});
  }
  return out;
}

}  // namespace

TEST_CASE("LP002: the lane x bank grid is 32x32 and highlights exactly the colliding lanes", "[html]") {
  const FindingsDoc doc = planted();
  const std::string html = lp::report::render_html_report(doc);
  // instruction -> (lanes per phase, bytes per lane) for the planted instructions (docs/hardware.md).
  const std::map<std::string, std::pair<int, int>> phases = {
      {"ldmatrix.x4", {8, 16}}, {"st.shared.b32", {32, 4}}, {"ld.shared.v4.b32", {8, 16}}};
  size_t seen = 0;
  for (size_t i = 0; i < doc.findings.size(); ++i) {
    const lp::rules::Finding& f = doc.findings[i].finding;
    if (f.rule_id != "LP002") continue;
    ++seen;
    const auto grid = cells(section(html, i + 1), "data-lane", "data-bank");
    REQUIRE(grid.size() == 32 * 32);
    std::set<int64_t> lanes, banks;
    for (const auto& r : grid) lanes.insert(r.row), banks.insert(r.col);
    CHECK(lanes.size() == 32);
    CHECK(banks.size() == 32);
    const auto& ce = std::get<lp::rules::BankConflictCex>(f.counterexample);
    const auto [group, bytes] = phases.at(ce.instruction);
    const auto expected = expected_collisions(ce.lane_addresses, group, bytes);
    CHECK(expected.size() >= 2);
    CHECK(with_class(grid, {"hot", "pair"}) == expected);
    // The finding's own pair is drawn darker, and is among the collisions.
    const auto pair = with_class(grid, {"pair"});
    REQUIRE(pair.size() == 2);
    for (const auto& p : pair) CHECK(expected.count(p) == 1);
  }
  CHECK(seen == 3);
}

TEST_CASE("LP002: the tile marks the elements the colliding lanes read", "[html]") {
  const FindingsDoc doc = planted();
  const std::string html = lp::report::render_html_report(doc);
  // Finding 1: ldmatrix.x4 on the row-major 64x64 f16 tile; phase 0 is lanes 0-7, lane l reading
  // the 16-byte row at byte 128*l: row l, columns 0-7, all in banks 0-3.
  REQUIRE(doc.findings[0].finding.rule_id == "LP002");
  REQUIRE(std::get<lp::rules::BankConflictCex>(doc.findings[0].finding.counterexample).smem_layout == "(_64,_64):(_64,_1)");
  const auto tile = cells(section(html, 1), "data-r", "data-c", 1);
  REQUIRE(tile.size() == 64 * 64);
  std::set<std::pair<int64_t, int64_t>> expected;
  for (int64_t r = 0; r < 8; ++r)
    for (int64_t c = 0; c < 8; ++c) expected.insert({r, c});
  CHECK(with_class(tile, {"hot", "pair"}) == expected);
  CHECK(with_class(tile, {"pair"}).size() == 16);  // lanes 0 and 1: 8 elements each
}

TEST_CASE("LP001, LP004, LP003: the colliding pair, the uncovered lanes, the witness", "[html]") {
  const FindingsDoc doc = planted();
  const std::string html = lp::report::render_html_report(doc);
  for (size_t i = 0; i < doc.findings.size(); ++i) {
    const lp::rules::Finding& f = doc.findings[i].finding;
    const std::string s = section(html, i + 1);
    if (f.rule_id == "LP001") {
      // (_32,_33):(_32,_1): elements 1 = (1,0) and 1024 = (0,32) both land on 32.
      const auto tile = cells(s, "data-r", "data-c");
      CHECK(tile.size() == 32 * 33);
      CHECK(with_class(tile, {"hot"}) == std::set<std::pair<int64_t, int64_t>>{{1, 0}, {0, 32}});
      CHECK(s.find("both land on") != std::string::npos);
    } else if (f.rule_id == "LP004") {
      // S[(32,4):(1@TLane,1@TCol)] + R[3:32@TLane] reaches TLane 0-95 only: 96-127 are missing,
      // drawn 32 per row, so rows 3.
      const auto grid = cells(s, "data-r", "data-c");
      REQUIRE(grid.size() == 4 * 32);
      std::set<std::pair<int64_t, int64_t>> missing, covered;
      for (int64_t c = 0; c < 32; ++c) missing.insert({3, c});
      for (int64_t r = 0; r < 3; ++r)
        for (int64_t c = 0; c < 32; ++c) covered.insert({r, c});
      CHECK(with_class(grid, {"miss"}) == missing);
      CHECK(with_class(grid, {"cover"}) == covered);
    } else if (f.rule_id == "LP003") {
      CHECK(s.find("aria-label=\"witness\"") != std::string::npos);
      CHECK(s.find(">9</text>") != std::string::npos);  // expected
      CHECK(s.find(">7</text>") != std::string::npos);  // actual
    }
  }
}

TEST_CASE("hostile strings are inert in the page", "[html]") {
  json j = {{"findings",
             {{{"rule", "LP002\"><script>alert(1)</script>"},
               {"severity", "error"},
               {"kind", "violation"},
               {"file", "\"><img src=x onerror=alert(1)>.cu"},
               {"line", 3},
               {"column", 1},
               {"message", "<script>alert('x')</script> & </section>"},
               {"notes", {{{"message", "<iframe src=//evil>"}, {"file", nullptr}}}},
               {"counterexample", [] {
                  lp::rules::BankConflictCex c;
                  c.instruction = "st.shared.b32";
                  c.arch = "sm_90";
                  c.lane_addresses = std::vector<int64_t>(32, 0);
                  c.smem_layout = "<b>bold</b>";
                  c.dtype = "f32";
                  json cj = lp::rules::to_json(c);
                  cj["<svg onload=alert(1)>"] = "x";  // a key the reader does not know is ignored
                  return cj;
                }()}}}}};
  const std::string html = lp::report::render_html_report(lp::report::parse_findings_doc(j.dump(), "hostile"));
  for (const char* bad : {"<script", "<img", "<iframe", "<b>bold", "<svg onload"}) CHECK(html.find(bad) == std::string::npos);
  CHECK(html.find("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &lt;/section&gt;") != std::string::npos);
  CHECK(html.find("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;.cu:3") != std::string::npos);
  // One section only: the message's "</section>" did not close it.
  CHECK(html.find("</section>") == html.rfind("</section>"));
  // A broadcast to one word is conflict-free; the grid is still drawn, the bad tile explained.
  CHECK(cells(section(html, 1), "data-lane", "data-bank").size() == 32 * 32);
  CHECK(html.find("Tile not drawn: the layout could not be read") != std::string::npos);
}

TEST_CASE("the reader takes what the JSON report writes, and names what is missing or malformed", "[html]") {
  using lp::report::parse_findings_doc;
  using lp::report::ReportInputError;
  // A counterexample has its type's fields (the tool wrote it); one the hardware model cannot draw
  // still gets its section. A finding without a location or counterexample is complete.
  lp::rules::BankConflictCex odd;
  odd.instruction = "nope";
  odd.arch = "sm_90";
  odd.lane_addresses = std::vector<int64_t>(32, 0);
  const json bare_finding = {{"rule", "LP002"}, {"severity", "warning"}, {"kind", "unknown"}, {"message", "m"}};
  json odd_finding = bare_finding;
  odd_finding["kind"] = "violation";
  odd_finding["counterexample"] = lp::rules::to_json(odd);
  const FindingsDoc bare = parse_findings_doc(json{{"findings", {bare_finding, odd_finding}}}.dump(), "x");
  REQUIRE(bare.findings.size() == 2);
  CHECK(bare.findings[0].finding.severity == lp::Severity::Warning);
  CHECK(bare.findings[0].finding.kind == lp::rules::FindingKind::Unknown);
  CHECK_FALSE(bare.findings[0].finding.loc.source);
  const std::string html = lp::report::render_html_report(bare);
  CHECK(html.find("id=\"f2\"") != std::string::npos);
  CHECK(html.find("No picture: ") != std::string::npos);
  CHECK(html.find("nope") != std::string::npos);
  auto refusal = [&](const json& finding) {
    try {
      parse_findings_doc(json{{"findings", {finding}}}.dump(), "x");
    } catch (const ReportInputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(refusal(json::object()) == "x: findings[0]: rule is missing");
  json no_line = bare_finding;
  no_line["file"] = "k.lp";
  CHECK(refusal(no_line) == "x: findings[0]: line must be an integer of at least 1 where a file is given");
  json bad_severity = bare_finding;
  bad_severity["severity"] = "fatal";
  CHECK(refusal(bad_severity) == "x: findings[0]: severity must be error, warning or note, not 'fatal'");
  json bad_note = bare_finding;
  bad_note["notes"] = json::array({json{{"file", nullptr}}});
  CHECK(refusal(bad_note) == "x: findings[0]: notes[0].message is missing");
  json no_fields = bare_finding;
  no_fields["kind"] = "violation";
  no_fields["counterexample"] = {{"kind", "bank-conflict"}, {"instruction", "x"}};
  CHECK(refusal(no_fields) == "x: findings[0]: counterexample.issue is missing");
  CHECK_THROWS_AS(parse_findings_doc("{\"findings\": [", "x"), ReportInputError);
  CHECK_THROWS_AS(parse_findings_doc("[]", "x"), ReportInputError);
  CHECK_THROWS_AS(parse_findings_doc(R"({"findings": {}})", "x"), ReportInputError);
  CHECK_THROWS_AS(parse_findings_doc(R"({"findings": [{"line": "3"}]})", "x"), ReportInputError);
  CHECK_THROWS_AS(parse_findings_doc(R"({"findings": [{"notes": [1]}]})", "x"), ReportInputError);
}

TEST_CASE("layoutproof report and check --report write both files", "[html][cli]") {
  const auto dir = std::filesystem::temp_directory_path() / "lp_html_cli";
  std::filesystem::remove_all(dir);
  auto r = lp::test::run_layoutproof({"report", LP_HTML_FIXTURE, "--out", (dir / "a").string()});
  CHECK(r.exit_code == 0);
  CHECK(lp::test::read_file((dir / "a" / "index.html").string()) == lp::report::render_html_report(planted()));
  CHECK(lp::test::read_file((dir / "a" / "summary.md").string()).find("| 1 | LP002 | error |") != std::string::npos);

  std::ofstream(dir / "bad.json") << "{\"findings\": [";
  r = lp::test::run_layoutproof({"report", (dir / "bad.json").string(), "--out", (dir / "b").string()});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("not valid JSON") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "b"));

  std::ofstream(dir / "k.lp") << "smem sD : f32 = (_32,_33):(_32,_1)\n";
  r = lp::test::run_layoutproof({"check", (dir / "k.lp").string(), "--no-cache", "--report", (dir / "c").string()});
  CHECK(r.exit_code == 1);
  CHECK(lp::test::read_file((dir / "c" / "index.html").string()).find("data-rule=\"LP001\"") != std::string::npos);
  CHECK(std::filesystem::exists(dir / "c" / "summary.md"));
  std::filesystem::remove_all(dir);
}
