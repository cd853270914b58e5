#include <catch2/catch.hpp>

#include "Fixtures.h"
#include "report/JsonReport.h"

using namespace lp;
using namespace lp::report;
using namespace lp::report::test;
using nlohmann::json;

TEST_CASE("json report: summary, findings and obligations", "[report][json]") {
  std::string text = json_report(sample_run());
  REQUIRE(text.back() == '\n');
  json j = json::parse(text);
  CHECK(j["version"] == 2);
  CHECK(j["tool"] == json{{"name", "LayoutProof"}, {"version", "0.1.0"}});
  CHECK(j["summary"] == json{{"findings", 3}, {"errors", 2},      {"warnings", 1},    {"notes", 0},  {"unknowns", 1},
                             {"baselined", 0}, {"files", 3},      {"obligations", 5}, {"proven", 2}});

  const json& f = j["findings"];
  REQUIRE(f.size() == 4);
  std::vector<std::string> rules;
  for (const json& x : f) rules.push_back(x["rule"]);
  CHECK(rules == std::vector<std::string>{"LP005", "LP000", "LP001", "LP002"});

  CHECK(f[0]["severity"] == "warning");
  CHECK(f[0]["kind"] == "violation");
  CHECK(f[0]["notes"] == json::array({{{"file", "kernels/attn.py"}, {"line", 1}, {"column", 32},
                                       {"message", "inner box dimension: 128 x bf16 = 256 bytes"}}}));
  CHECK(f[1]["kind"] == "invalid");
  CHECK(f[1]["counterexample"].is_null());
  CHECK(f[2]["kind"] == "unknown");
  CHECK(f[2]["message"] == "injectivity of sA not decided within 10 s");

  const json& c = f[3];
  CHECK(c["file"] == "kernels/gemm.cu");
  CHECK(c["line"] == 3);
  CHECK(c["column"] == 17);
  CHECK(c["severity"] == "error");
  CHECK(c["message"] == "ldmatrix.x4 reads of sA are 8-way bank conflicted");
  CHECK(c["notes"][0] == json{{"file", nullptr}, {"line", nullptr}, {"column", nullptr},
                              {"message", "lanes 0 and 8 read bank 0 at byte addresses 0x0 and 0x80"}});
  CHECK(c["counterexample"]["kind"] == "bank-conflict");
  CHECK(c["counterexample"]["lanes"] == json{0, 8});
  CHECK(c["counterexample"]["addresses"] == json{0, 128});
  CHECK(c["counterexample"]["bank"] == 0);
  REQUIRE(c["trace"].size() == 2);
  CHECK(c["trace"][0] == json{{"file", "kernels/gemm.cu"}, {"line", 2}, {"column", 17}, {"message", "sA rows are 128 bytes apart"}});
  CHECK(c["trace"][1]["column"] == 24);
  CHECK(c["fingerprint"] == "LP002:kernels/gemm.cu:access ldmatrix.x4 sA");

  const json& o = j["obligations"];
  REQUIRE(o.size() == 5);
  CHECK(o[0] == json{{"rule", "LP002"}, {"file", "kernels/attn.py"}, {"line", 1}, {"column", 16},
                     {"description", "sK: TMA writes are conflict-free"}, {"passed", true}, {"time_ms", 2.0},
                    {"proof", nullptr}});
  std::vector<std::string> order;
  for (const json& x : o) order.push_back(x["rule"].get<std::string>() + "@" + std::to_string(x["line"].get<int>()));
  CHECK(order == std::vector<std::string>{"LP002@1", "LP005@1", "LP001@2", "LP004@2", "LP002@3"});
}

TEST_CASE("json report: keys in a fixed order, output independent of input order", "[report][json]") {
  CheckRun run = sample_run();
  std::string a = json_report(run);
  CHECK(a.find("\"version\"") < a.find("\"tool\""));
  CHECK(a.find("\"tool\"") < a.find("\"summary\""));
  CHECK(a.find("\"summary\"") < a.find("\"findings\""));
  CHECK(a.find("\"findings\"") < a.find("\"obligations\""));
  std::reverse(run.findings.begin(), run.findings.end());
  std::reverse(run.obligations.begin(), run.obligations.end());
  CHECK(json_report(run) == a);
}
