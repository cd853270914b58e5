// `for` loops: each instance is checked exactly as the same statements written out with the
// loop variable's value (the oracle text is formatted here, with the value computed by the test).
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <functional>
#include <map>
#include <random>
#include <regex>

#include "rules/Checker.h"
#include "rules/TempTree.h"

namespace {

lp::rules::CheckRun check_text(const std::string& text) {
  lp::test::TempTree tree;
  const std::string path = tree.write("case.lp", text);
  lp::rules::CheckOptions opt;
  opt.jobs = 1;
  return lp::rules::check_paths({path}, opt);
}

// Findings as "rule: message" with instance labels taken out of names, per instance label.
std::map<std::string, std::multiset<std::string>> by_instance(const lp::rules::CheckRun& run) {
  static const std::regex label(R"(\[[A-Z]+=-?[0-9]+(,[A-Z]+=-?[0-9]+)*\])");
  static const std::regex note(R"(in the instance ([A-Z]+=-?[0-9]+(,[A-Z]+=-?[0-9]+)*) of this loop)");
  std::map<std::string, std::multiset<std::string>> out;
  for (const lp::rules::Finding& f : run.findings) {
    std::string instance;
    for (const lp::Note& n : f.notes) {
      std::smatch m;
      if (std::regex_search(n.message, m, note)) instance = m[1];
    }
    out[instance].insert(f.rule_id + ": " + std::regex_replace(f.message, label, ""));
  }
  return out;
}

}  // namespace

TEST_CASE("a for loop checks each instance as its statements written out with the value", "[rules][loops]") {
  std::mt19937_64 rng(29);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  // A pitch written as an expression of P, and the same pitch computed here.
  struct Pitch {
    const char* text;
    std::function<int64_t(int64_t)> value;
  };
  const Pitch pitches[] = {{"P", [](int64_t p) { return p; }},
                           {"P+8", [](int64_t p) { return p + 8; }},
                           {"2*P-64", [](int64_t p) { return 2 * p - 64; }},
                           {"P/2+32", [](int64_t p) { return p / 2 + 32; }}};
  const char* accesses[] = {"ld.shared.v4.b32 lanes (_8,_4,_2,_2):(_1@0,_8@1,_8@0,_32@1)",
                            "ldmatrix.x4 lanes (_16,_2,_2):(_1@0,_8@1,_16@1)",
                            "ld.shared.b32 lanes (_32,_2):(_2@1,_1@0)",
                            "cp.async.cg.16 lanes (_8,_4,_2):(_8@1,_1@0,_4@0)"};
  int instances_with_findings = 0, clean_instances = 0;
  for (int trial = 0; trial < 12; ++trial) {
    const Pitch& pitch = pitches[trial % 4];
    const char* acc = accesses[pick(0, 3)];
    std::vector<int64_t> values;
    const int64_t candidates[] = {64, 72, 80, 96, 128, 136, 144};
    for (int64_t v : candidates)
      if (pick(0, 1) || values.empty()) values.push_back(v);
    auto body = [&](const std::string& p) {
      return fmt::format("smem t : f16 = (_16,_64):({},_1)\naccess a: t {}\nexpect a conflict-free\nexpect t injective\n", p,
                         acc);
    };
    std::string loop = "arch sm_90\nfor P in ";
    for (size_t k = 0; k < values.size(); ++k) loop += (k ? ", " : "") + std::to_string(values[k]);
    loop += " {\n" + body(pitch.text) + "}\n";
    INFO(loop);
    const auto looped = by_instance(check_text(loop));
    for (int64_t v : values) {
      const std::string written = "arch sm_90\n" + body(std::to_string(pitch.value(v)));
      const auto expected = by_instance(check_text(written));
      const std::string label = "P=" + std::to_string(v);
      INFO(label << "\n" << written);
      const auto want = expected.count("") ? expected.at("") : std::multiset<std::string>{};
      const auto got = looped.count(label) ? looped.at(label) : std::multiset<std::string>{};
      CHECK(got == want);
      (want.empty() ? clean_instances : instances_with_findings)++;
    }
    CHECK(!looped.count(""));  // every finding names its instance
  }
  CHECK(instances_with_findings > 5);
  CHECK(clean_instances > 5);
}

TEST_CASE("a finding in a loop names its instance and is fingerprinted apart", "[rules][loops]") {
  // Column reads at pitch 32: every lane in bank 0, for C=1 (rows 0..31) and C=2 (rows 0..62).
  const auto all = check_text("smem t : f32 = (_64,_32):(_32,_1)\n"
                              "for C in 1, 2 {\n"
                              "access a: t ld.shared.b32 lanes (_32):(C@0)\n"
                              "}\n");
  REQUIRE(all.findings.size() == 2);
  CHECK(all.findings[0].fingerprint != all.findings[1].fingerprint);
  std::set<std::string> labels;
  for (const auto& f : all.findings)
    for (const auto& n : f.notes)
      if (n.message.rfind("in the instance ", 0) == 0) {
        labels.insert(n.message);
        CHECK(lp::line_col_of(*n.loc.source, n.loc.offset).first == 2);  // the `for` line
      }
  CHECK(labels == std::set<std::string>{"in the instance C=1 of this loop", "in the instance C=2 of this loop"});
  for (const auto& o : all.obligations)
    if (o.description.find("conflict-free") != std::string::npos) CHECK(o.description.rfind("[C=", 0) == 0);
}
