// `layoutproof check` as CI runs it: exit codes, every format, baselines and configuration.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "rules/TempTree.h"
#include "support/Files.h"
#include "support/Process.h"

using lp::test::run_layoutproof;
using json = nlohmann::json;

namespace {

const char* kBugs =
    "smem sA : f16 = (_64,_64):(_64,_1) align 1024\n"
    "access a1: sA ldmatrix.x4 lanes (_16,_2,_4,_4):(_1@0,_8@1,_16@0,_16@1)\n"
    "compose bad = `(_6,_6):(_1,_7)` o `_4:_4`\n";

}  // namespace

TEST_CASE("check: exit 0 on a clean tree, 1 on findings, 2 on usage errors", "[check-cli]") {
  lp::test::TempTree t;
  std::string clean = t.write("clean/a.lp", "smem sA : f16 = Sw<3,3,3> o _0 o (_64,_64):(_64,_1) align 1024\n");
  std::string bugs = t.write("bugs/b.lp", kBugs);
  auto ok = run_layoutproof({"check", t.path("clean"), "--no-cache"});
  CHECK(ok.exit_code == 0);
  CHECK(ok.out.find("0 findings") != std::string::npos);
  auto bad = run_layoutproof({"check", t.path("bugs"), "--no-cache"});
  CHECK(bad.exit_code == 1);
  CHECK(bad.out.find(bugs + ":2:1: error: ldmatrix.x4 on 'sA' has bank conflicts: 32 wavefronts where 4 are ideal [LP002]") !=
        std::string::npos);
  CHECK(bad.out.find(bugs + ":3:1: error: 'bad' = A o B is illegal") != std::string::npos);
  CHECK(run_layoutproof({"check"}).exit_code == 2);
  CHECK(run_layoutproof({"check", t.path("clean"), "--format", "xml"}).exit_code == 2);
}

TEST_CASE("check: JSON, SARIF and JUnit carry the same findings", "[check-cli]") {
  lp::test::TempTree t;
  t.write("bugs/b.lp", kBugs);
  auto j = run_layoutproof({"check", t.path("bugs"), "--no-cache", "--format", "json"});
  REQUIRE(j.exit_code == 1);
  json report = json::parse(j.out);
  REQUIRE(report["findings"].size() == 2);
  auto s = run_layoutproof({"check", t.path("bugs"), "--no-cache", "--format", "sarif", "--output", t.path("out.sarif")});
  REQUIRE(s.exit_code == 1);
  json sarif = json::parse(lp::test::read_file(t.path("out.sarif")));
  CHECK(sarif["version"] == "2.1.0");
  const json& results = sarif["runs"][0]["results"];
  REQUIRE(results.size() == 2);
  std::set<std::string> rule_ids;
  for (const auto& r : sarif["runs"][0]["tool"]["driver"]["rules"]) rule_ids.insert(r["id"].get<std::string>());
  CHECK(rule_ids.count("LP002") == 1);
  CHECK(rule_ids.size() >= 9);
  bool flows = false;
  for (const auto& r : results) flows |= r.contains("codeFlows");
  CHECK(flows);
  auto x = run_layoutproof({"check", t.path("bugs"), "--no-cache", "--format", "junit"});
  CHECK(x.out.find("<testsuites") != std::string::npos);
  CHECK(x.out.find("<failure") != std::string::npos);
}

TEST_CASE("check: a baseline accepts known findings and a new one still fails", "[check-cli]") {
  lp::test::TempTree t;
  t.write("bugs/b.lp", kBugs);
  auto w = run_layoutproof({"check", t.path("bugs"), "--no-cache", "--write-baseline", t.path("base.json")});
  CHECK(w.exit_code == 1);
  auto accepted = run_layoutproof({"check", t.path("bugs"), "--no-cache", "--baseline", t.path("base.json")});
  CHECK(accepted.exit_code == 0);
  CHECK(accepted.out.find("2 baselined") != std::string::npos);
  // Moving the statements down keeps them baselined; a new bug is reported.
  t.write("bugs/b.lp", std::string("# moved\n\n") + kBugs + "smem sD : f32 = (_32,_33):(_32,_1)\n");
  auto moved = run_layoutproof({"check", t.path("bugs"), "--no-cache", "--baseline", t.path("base.json")});
  CHECK(moved.exit_code == 1);
  CHECK(moved.out.find("[LP001]") != std::string::npos);
  CHECK(moved.out.find("[LP002]") == std::string::npos);
  std::ofstream(t.path("broken.json")) << "{\"version\": 7}";
  auto broken = run_layoutproof({"check", t.path("bugs"), "--no-cache", "--baseline", t.path("broken.json")});
  CHECK(broken.exit_code == 2);
}

TEST_CASE("check: .layoutproof.toml sets severities, a bad config is a located error", "[check-cli]") {
  lp::test::TempTree t;
  t.write("bugs/b.lp", kBugs);
  t.write("lp.toml", "[rules]\nbank-conflict = \"off\"\nLP003 = \"note\"\n");
  auto r = run_layoutproof({"check", t.path("bugs"), "--no-cache", "--config", t.path("lp.toml")});
  CHECK(r.exit_code == 0);  // the composition is only a note now, and notes do not fail the gate
  CHECK(r.out.find("[LP002]") == std::string::npos);
  CHECK(r.out.find("note: 'bad' = A o B is illegal") != std::string::npos);
  t.write("typo.toml", "[rules]\nbank-conflicts = \"off\"\n");
  auto typo = run_layoutproof({"check", t.path("bugs"), "--no-cache", "--config", t.path("typo.toml")});
  CHECK(typo.exit_code == 2);
  CHECK(typo.err.find("rules.bank-conflicts names no rule") != std::string::npos);
  // Warnings fail the gate unless --fail-on error.
  t.write("warn.toml", "[rules]\nbank-conflict = \"warning\"\nalgebra-legality = \"warning\"\n");
  CHECK(run_layoutproof({"check", t.path("bugs"), "--no-cache", "--config", t.path("warn.toml")}).exit_code == 1);
  CHECK(run_layoutproof({"check", t.path("bugs"), "--no-cache", "--config", t.path("warn.toml"), "--fail-on", "error"})
            .exit_code == 0);
  t.write("bad.toml", "[rules]\nbank-conflict = \"sometimes\"\n");
  auto b = run_layoutproof({"check", t.path("bugs"), "--no-cache", "--config", t.path("bad.toml")});
  CHECK(b.exit_code == 2);
  CHECK(b.err.find("bad.toml:2:17: rules.bank-conflict: 'sometimes' is not a severity") != std::string::npos);
}

TEST_CASE("check: the bundled corpus passes the gate with its documented bugs accepted", "[check-cli]") {
  // The README's main command, from the repository root (baselines hold paths relative to it).
  std::filesystem::current_path(LP_SOURCE_DIR);
  auto r = run_layoutproof(
      {"check", "corpus", "--no-cache", "--no-progress", "--baseline", "corpus/known-findings.baseline.json"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find(" baselined") != std::string::npos);
}
