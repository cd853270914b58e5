#include <catch2/catch.hpp>

#include "Fixtures.h"
#include "report/SarifReport.h"

using namespace lp;
using namespace lp::report;
using namespace lp::report::test;
using nlohmann::json;

namespace {

SarifOptions options() {
  SarifOptions o;
  o.source_root = "/work/repo";
  o.information_uri = "https://layoutproof.example/";
  o.help_uri_base = "https://layoutproof.example/blob/v0.1.0";
  return o;
}

}  // namespace

TEST_CASE("sarif: log, run, driver and rule metadata", "[report][sarif]") {
  json s = json::parse(sarif_report(sample_run(), options()));
  CHECK(s["$schema"] == kSarifSchemaUri);
  CHECK(s["version"] == "2.1.0");
  REQUIRE(s["runs"].size() == 1);
  const json& run = s["runs"][0];
  const json& driver = run["tool"]["driver"];
  CHECK(driver["name"] == "LayoutProof");
  CHECK(driver["version"] == "0.1.0");
  CHECK(driver["semanticVersion"] == "0.1.0");
  CHECK(driver["informationUri"] == "https://layoutproof.example/");
  CHECK(run["invocations"] == json::array({{{"executionSuccessful", true}}}));
  CHECK(run["originalUriBaseIds"] == json{{"%SRCROOT%", {{"uri", "file:///work/repo/"}}}});

  const json& rules = driver["rules"];
  std::vector<std::string> ids;
  for (const json& r : rules) ids.push_back(r["id"]);
  // LP000 has no RuleInfo in the run: it gets a descriptor so its results can point at one.
  CHECK(ids == std::vector<std::string>{"LP000", "LP001", "LP002", "LP004", "LP005"});
  const json& lp002 = rules[2];
  CHECK(lp002["name"] == "bank-conflict");
  CHECK(lp002["shortDescription"]["text"] == "Shared-memory access is bank-conflict free");
  CHECK(lp002["fullDescription"]["text"] ==
        "Every warp-wide shared-memory access an annotation declares is served in the minimum number of wavefronts.");
  CHECK(lp002["helpUri"] == "https://layoutproof.example/blob/v0.1.0/docs/rules/LP002.md");
  CHECK(lp002["defaultConfiguration"]["level"] == "error");
  CHECK(lp002["properties"]["tags"] == json::array({"layoutproof", "banks", "smem"}));
  CHECK(rules[4]["defaultConfiguration"]["level"] == "warning");
  CHECK(rules[0]["shortDescription"]["text"] == "LP000");
  CHECK_FALSE(rules[0].contains("helpUri"));
}

TEST_CASE("sarif: results with locations, snippets, fingerprints, code flows and properties", "[report][sarif]") {
  json s = json::parse(sarif_report(sample_run(), options()));
  const json& rules = s["runs"][0]["tool"]["driver"]["rules"];
  const json& results = s["runs"][0]["results"];
  REQUIRE(results.size() == 4);
  for (const json& r : results) CHECK(rules[r["ruleIndex"].get<size_t>()]["id"] == r["ruleId"]);

  const json& box = results[0];
  CHECK(box["ruleId"] == "LP005");
  CHECK(box["level"] == "warning");
  CHECK(box["message"]["text"] ==
        "TMA box of sK is 256 bytes wide, wider than the 128-byte swizzle span\ninner box dimension: 128 x bf16 = 256 bytes");
  CHECK(box["relatedLocations"][0]["physicalLocation"]["region"]["startColumn"] == 32);
  CHECK(box["relatedLocations"][0]["message"]["text"] == "inner box dimension: 128 x bf16 = 256 bytes");
  CHECK_FALSE(box.contains("codeFlows"));

  const json& unknown = results[2];
  CHECK(unknown["ruleId"] == "LP001");
  CHECK(unknown["level"] == "error");
  CHECK(unknown["properties"]["kind"] == "unknown");
  CHECK(unknown["message"]["text"] == "unknown (neither proven nor refuted): injectivity of sA not decided within 10 s");

  const json& c = results[3];
  CHECK(c["ruleId"] == "LP002");
  CHECK(c["level"] == "error");
  const json& loc = c["locations"][0]["physicalLocation"];
  CHECK(loc["artifactLocation"] == json{{"uri", "kernels/gemm.cu"}, {"uriBaseId", "%SRCROOT%"}});
  CHECK(loc["region"] == json{{"startLine", 3}, {"startColumn", 17}, {"snippet", {{"text", "// layoutproof: access ldmatrix.x4 sA"}}}});
  CHECK(c["partialFingerprints"] == json{{kFingerprintKey, "LP002:kernels/gemm.cu:access ldmatrix.x4 sA"}});
  const json& steps = c["codeFlows"][0]["threadFlows"][0]["locations"];
  REQUIRE(steps.size() == 2);
  CHECK(steps[0]["location"]["physicalLocation"]["region"]["startLine"] == 2);
  CHECK(steps[0]["location"]["message"]["text"] == "sA rows are 128 bytes apart");
  CHECK(steps[1]["location"]["physicalLocation"]["region"]["startColumn"] == 24);
  CHECK(c["properties"]["kind"] == "violation");
  CHECK(c["properties"]["counterexample"]["kind"] == "bank-conflict");
  CHECK(c["properties"]["counterexample"]["lanes"] == json{0, 8});
  CHECK(c["properties"]["counterexample"]["addresses"] == json{0, 128});
}

TEST_CASE("sarif: URIs are relative with forward slashes, or file:// when absolute", "[report][sarif]") {
  CHECK(path_to_uri("./kernels/a b.cu") == "kernels/a%20b.cu");
  CHECK(path_to_uri("src\\k#1%.cu") == "src/k%231%25.cu");
  CHECK(path_to_uri("a:b.cu") == "a%3Ab.cu");  // not mistaken for a URI scheme
  CHECK(path_to_uri("\xC3\xA9.cu") == "%C3%A9.cu");

  auto abs = source("/abs/dir/k.cu", "x\n");
  auto win = source("C:\\src\\k.cu", "x\n");
  CheckRun run;
  run.findings = {finding("LP1", {abs, 0}, "m"), finding("LP1", {win, 0}, "m")};
  json s = sarif_report_value(run, options());
  const json& results = s["runs"][0]["results"];
  CHECK(results[0]["locations"][0]["physicalLocation"]["artifactLocation"] == json{{"uri", "file:///abs/dir/k.cu"}});
  CHECK(results[1]["locations"][0]["physicalLocation"]["artifactLocation"] == json{{"uri", "file:///C:/src/k.cu"}});
}

TEST_CASE("sarif: columns are UTF-16 code units, as SARIF counts them by default", "[report][sarif]") {
  // "é" is 2 bytes and 1 unit; U+1D538 is 4 bytes and 2 units.
  auto src = source("u.cu", "// \xC3\xA9 \xF0\x9D\x94\xB8 x\n");
  CheckRun run;
  run.findings = {finding("LP1", {src, src->text.find('x')}, "m")};
  json s = sarif_report_value(run, options());
  CHECK(s["runs"][0]["columnKind"] == "utf16CodeUnits");
  CHECK(s["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startColumn"] == 9);
}

TEST_CASE("sarif: relative help URIs need a base, the default root is the working directory", "[report][sarif]") {
  json s = sarif_report_value(sample_run());
  const json& run = s["runs"][0];
  CHECK_FALSE(run["tool"]["driver"]["rules"][2].contains("helpUri"));
  CHECK_FALSE(run["tool"]["driver"].contains("informationUri"));
  std::string root = run["originalUriBaseIds"]["%SRCROOT%"]["uri"];
  CHECK(root.rfind("file:///", 0) == 0);
  CHECK(root.back() == '/');
}
