#include <catch2/catch.hpp>

#include "Fixtures.h"
#include "XmlSupport.h"
#include "report/Baseline.h"
#include "report/Common.h"
#include "report/JsonReport.h"
#include "report/JunitReport.h"
#include "report/SarifReport.h"
#include "report/TextReport.h"

using namespace lp;
using namespace lp::report;
using namespace lp::report::test;
using nlohmann::json;

namespace {

bool valid_utf8(const std::string& s) {
  bool ok = true;
  for_each_code_point(s, [&](char32_t, bool valid) { ok = ok && valid; });
  return ok;
}

const std::string kReplacement = "\xEF\xBF\xBD";

}  // namespace

TEST_CASE("hostile: the text report is line-structured and terminal-safe", "[report][hostile]") {
  std::string text = text_report(hostile_run());
  for (unsigned char c : text) {
    INFO("byte " << int(c));
    CHECK((c == '\n' || c == '\t' || (c >= 0x20 && c != 0x7F)));
  }
  CHECK(valid_utf8(text));
  // The message stays on its diagnostic's line, its markup characters as they are.
  CHECK(text.find("note: quote \" apos ' lt < gt > amp & cdata-end ]]> newline CR  tab  ctrl ??[31m nul ? del ? bad ??? "
                  "??? nonchar \xEF\xBF\xBF euro \xE2\x82\xAC astral \xF0\x9D\x94\xB8 [LP<&>\"']\n") != std::string::npos);
  CHECK(text.find("dir with space/b\\a#d%20\xC3\xA9??[31m<&>\".cu:1:") != std::string::npos);
  const std::string summary = "3 findings (2 errors, 1 note), 1 unknown, in 3 files; 1 of 2 obligations proven\n";
  REQUIRE(text.size() > summary.size());
  CHECK(text.substr(text.size() - summary.size()) == summary);
}

TEST_CASE("hostile: JSON stays valid, text survives, invalid UTF-8 becomes U+FFFD", "[report][hostile]") {
  json j = json::parse(json_report(hostile_run()));
  REQUIRE(j["findings"].size() == 4);
  const json* f = nullptr;
  for (const json& x : j["findings"])
    if (x["kind"] == "violation" && x["rule"] == "LP<&>\"'") f = &x;
  REQUIRE(f != nullptr);
  std::string m = (*f)["message"];
  CHECK(m.find(std::string("newline\nCR\r tab\t ctrl \x01\x1B[31m nul ") + '\0' + " del \x7F bad ") != std::string::npos);
  CHECK(m.find("bad " + kReplacement) != std::string::npos);
  CHECK(m.find("astral \xF0\x9D\x94\xB8") != std::string::npos);
  CHECK((*f)["counterexample"]["operation_swizzle"] == "k\"<");
  CHECK((*f)["counterexample"]["buffer"] == kReplacement + "\x01<&>\"");
  CHECK((*f)["fingerprint"] == "fp \"<&>\"\n\x01");
  CHECK(j["tool"]["version"] == "0.1.0-dev+<&>");
}

TEST_CASE("hostile: SARIF stays valid JSON with encoded URIs", "[report][hostile]") {
  SarifOptions o;
  o.source_root = "/src/with space/";
  json s = json::parse(sarif_report(hostile_run(), o));
  const json& run = s["runs"][0];
  CHECK(run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == "file:///src/with%20space/");
  std::vector<std::string> uris;
  size_t without_location = 0;
  for (const json& r : run["results"]) {
    CHECK(run["tool"]["driver"]["rules"][r["ruleIndex"].get<size_t>()]["id"] == r["ruleId"]);
    CHECK_FALSE(r["message"]["text"].get<std::string>().empty());
    if (r["locations"].empty()) {
      ++without_location;
      continue;
    }
    uris.push_back(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]);
  }
  CHECK(without_location == 1);
  CHECK(std::find(uris.begin(), uris.end(), "dir%20with%20space/b/a%23d%2520%C3%A9%01%1B%5B31m%3C%26%3E%22.cu") != uris.end());
  CHECK(std::find(uris.begin(), uris.end(), "file:///abs/path/k%E2%82%AC.cu") != uris.end());
  const json& rules = run["tool"]["driver"]["rules"];
  REQUIRE(rules.size() == 3);  // "", "LP9", then the hostile id: byte order
  const json& rule = rules[2];
  CHECK(rule["id"] == "LP<&>\"'");
  CHECK(rule["helpUri"] == "https://example.invalid/r?a=1&b=<2>");
  CHECK(rule["defaultConfiguration"]["level"] == "note");
  CHECK(rule["properties"]["problem.severity"] == "recommendation");
}

TEST_CASE("hostile: JUnit is well-formed XML and keeps the text it can", "[report][hostile]") {
  std::string xml = junit_report(hostile_run());
  CHECK(valid_utf8(xml));
  json root = parse_xml(xml);
  CHECK(root["attrib"]["tests"] == "5");  // 2 obligations, the unknown, the absolute path, the one without file
  std::string failure_message;
  for (const json& suite : children_named(root, "testsuite"))
    for (const json& c : children_named(suite, "testcase"))
      for (const json& fl : children_named(c, "failure"))
        if (fl["attrib"]["type"] == "LP<&>\"'") failure_message = fl["attrib"]["message"];
  CHECK(failure_message.find("quote \" apos ' lt < gt > amp & cdata-end ]]> newline\nCR\r tab\t ctrl " + kReplacement +
                             kReplacement + "[31m nul " + kReplacement + " del \x7F bad " + kReplacement) != std::string::npos);
  CHECK(failure_message.find("nonchar " + kReplacement + " euro \xE2\x82\xAC astral \xF0\x9D\x94\xB8") != std::string::npos);
}

TEST_CASE("hostile: a baseline of hostile findings round-trips", "[report][hostile]") {
  CheckRun run = hostile_run();
  Baseline b = Baseline::from_run(run);
  Baseline back = Baseline::parse(b.to_json(), "hostile.json");
  REQUIRE(back.entries.size() == b.entries.size());
  // Fingerprints (and, for findings without one, messages) are valid UTF-8 here, so all match.
  CHECK(apply_baseline(run, back) == 4);
}
