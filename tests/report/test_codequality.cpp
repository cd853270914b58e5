// GitLab code quality reports against the fields GitLab documents for its code quality widget
// (docs.gitlab.com/ci/testing/code_quality, "Code Quality report format"): a JSON array of
// objects with description, check_name, fingerprint (unique per report), severity (one of info,
// minor, major, critical, blocker), location.path (relative, no "./") and location.lines.begin.
#include <catch2/catch.hpp>
#include <set>

#include "Fixtures.h"
#include "report/CodeQualityReport.h"
#include "report/Report.h"

using namespace lp;
using namespace lp::report;
using namespace lp::report::test;
using nlohmann::json;

namespace {

// Every documented field present with its documented type; nothing else is required.
void check_documented_fields(const json& issue) {
  REQUIRE(issue.is_object());
  CHECK(issue.at("description").is_string());
  CHECK(issue.at("check_name").is_string());
  CHECK(issue.at("fingerprint").is_string());
  const std::set<std::string> severities = {"info", "minor", "major", "critical", "blocker"};
  CHECK(severities.count(issue.at("severity").get<std::string>()) == 1);
  const json& loc = issue.at("location");
  const std::string path = loc.at("path");
  CHECK_FALSE(path.empty());
  CHECK(path.rfind("./", 0) != 0);
  CHECK(loc.at("lines").at("begin").is_number_integer());
  CHECK(loc.at("lines").at("begin").get<int64_t>() >= 1);
}

}  // namespace

TEST_CASE("codequality: one documented issue per finding", "[report][codequality]") {
  const json issues = json::parse(render_report(Format::CodeQuality, sample_run()));
  REQUIRE(issues.is_array());
  REQUIRE(issues.size() == 4);
  std::set<std::string> fingerprints;
  for (const json& issue : issues) {
    check_documented_fields(issue);
    fingerprints.insert(issue["fingerprint"].get<std::string>());
  }
  CHECK(fingerprints.size() == issues.size());

  // Ordered by file, then line: attn.py's box (line 1) and sQ (line 2), then gemm.cu's sA
  // (line 2) and access (line 3).
  CHECK(issues[0]["check_name"] == "LP005");
  CHECK(issues[0]["severity"] == "major");  // a warning
  CHECK(issues[0]["location"] == json{{"path", "kernels/attn.py"}, {"lines", {{"begin", 1}}}});
  CHECK(issues[0]["fingerprint"] == "LP005:kernels/attn.py:tma load sK box (64,128) swizzle 128B");
  CHECK(issues[0]["description"] == "TMA box of sK is 256 bytes wide, wider than the 128-byte swizzle span");
  CHECK(issues[1]["check_name"] == "LP000");
  CHECK(issues[1]["severity"] == "critical");
  CHECK(issues[1]["location"]["lines"]["begin"] == 2);
  CHECK(issues[2]["check_name"] == "LP001");
  CHECK(issues[2]["description"] == "unknown (neither proven nor refuted): injectivity of sA not decided within 10 s");
  CHECK(issues[3]["check_name"] == "LP002");
  CHECK(issues[3]["location"] == json{{"path", "kernels/gemm.cu"}, {"lines", {{"begin", 3}}}});
}

TEST_CASE("codequality: severities, repeated fingerprints, paths", "[report][codequality]") {
  CHECK(std::string(codequality_severity(Severity::Error)) == "critical");
  CHECK(std::string(codequality_severity(Severity::Warning)) == "major");
  CHECK(std::string(codequality_severity(Severity::Note)) == "info");

  auto src = source("./src/k.cu", "// layoutproof: smem sA : f16 = (_8,_8):(_1,_1)\n// two\n");
  CheckRun run;
  Finding a = finding("LP001", at(src, "smem"), "sA is not injective");
  a.fingerprint = "LP001:same";
  Finding b = finding("LP001", at(src, "two"), "sA is not injective", Severity::Note);
  b.fingerprint = "LP001:same";
  Finding c = finding("LP000", SourceLoc{}, "cannot read directory 'x'");
  run.findings = {a, b, c};
  const json issues = json::parse(codequality_report(run));
  REQUIRE(issues.size() == 3);
  for (const json& issue : issues) check_documented_fields(issue);
  // Without a file: GitLab requires a path, so the repository's root.
  CHECK(issues[0]["location"] == json{{"path", "."}, {"lines", {{"begin", 1}}}});
  CHECK(issues[1]["location"] == json{{"path", "src/k.cu"}, {"lines", {{"begin", 1}}}});
  CHECK(issues[1]["fingerprint"] == "LP001:same");
  CHECK(issues[2]["fingerprint"] == "LP001:same#2");
  CHECK(issues[2]["severity"] == "info");
}

TEST_CASE("codequality: hostile text stays valid JSON with the documented fields", "[report][codequality]") {
  const json issues = json::parse(codequality_report(hostile_run()));
  REQUIRE(issues.is_array());
  CHECK(issues.size() == hostile_run().findings.size());
  for (const json& issue : issues) check_documented_fields(issue);
}

TEST_CASE("sarif: the driver names the git revision, Z3 and hardware model when the run has them", "[report][sarif]") {
  CheckRun run = sample_run();
  CHECK_FALSE(json::parse(render_report(Format::Sarif, run))["runs"][0]["tool"]["driver"].contains("properties"));
  run.versions = ToolVersions{"0.1.0", "abc123def456-dirty", "4.8.12.0", "sm90-2026.11 (data sha256:0123)"};
  const json driver = json::parse(render_report(Format::Sarif, run))["runs"][0]["tool"]["driver"];
  CHECK(driver["version"] == "0.1.0");
  CHECK(driver["properties"] == json{{"gitRevision", "abc123def456-dirty"},
                                     {"z3Version", "4.8.12.0"},
                                     {"hardwareModel", "sm90-2026.11 (data sha256:0123)"}});
}
