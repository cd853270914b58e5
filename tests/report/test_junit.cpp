#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "Fixtures.h"
#include "XmlSupport.h"
#include "report/Baseline.h"
#include "report/JunitReport.h"
#include "support/Process.h"

using namespace lp;
using namespace lp::report;
using namespace lp::report::test;
using nlohmann::json;

namespace lp::report::test {

std::string temp_path(const std::string& suffix) {
  static int counter = 0;
  return (std::filesystem::temp_directory_path() /
          ("lp_report_" + std::to_string(getpid()) + "_" + std::to_string(counter++) + suffix))
      .string();
}

json parse_xml(const std::string& xml) {
  std::string path = temp_path(".xml");
  std::ofstream(path, std::ios::binary) << xml;
  lp::test::ProcessResult r = lp::test::run_process(LP_PYTHON3, {LP_XML_TO_JSON, path});
  std::filesystem::remove(path);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

std::vector<json> children_named(const json& node, const std::string& tag) {
  std::vector<json> out;
  for (const json& c : node["children"])
    if (c["tag"] == tag) out.push_back(c);
  return out;
}

}  // namespace lp::report::test

TEST_CASE("junit: one suite per file, one case per obligation, failures and errors", "[report][junit]") {
  std::string xml = junit_report(sample_run());
  CHECK(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", 0) == 0);
  json root = parse_xml(xml);
  CHECK(root["tag"] == "testsuites");
  CHECK(root["attrib"] == json{{"name", "LayoutProof"}, {"tests", "6"}, {"failures", "3"}, {"errors", "1"},
                               {"skipped", "0"}, {"time", "10.016"}});
  std::vector<json> suites = children_named(root, "testsuite");
  REQUIRE(suites.size() == 3);
  CHECK(suites[0]["attrib"] == json{{"name", "kernels/attn.py"}, {"tests", "3"}, {"failures", "2"}, {"errors", "0"},
                                    {"skipped", "0"}, {"time", "0.003"}});
  CHECK(suites[1]["attrib"]["name"] == "kernels/empty.cu");
  CHECK(suites[1]["attrib"]["tests"] == "0");
  CHECK(suites[2]["attrib"] == json{{"name", "kernels/gemm.cu"}, {"tests", "3"}, {"failures", "1"}, {"errors", "1"},
                                    {"skipped", "0"}, {"time", "10.013"}});

  std::vector<json> attn = children_named(suites[0], "testcase");
  REQUIRE(attn.size() == 3);
  CHECK(attn[0]["attrib"] == json{{"name", "1:16: sK: TMA writes are conflict-free [LP002]"}, {"classname", "kernels/attn.py"},
                                  {"file", "kernels/attn.py"}, {"line", "1"}, {"time", "0.002"}});
  CHECK(attn[0]["children"].empty());
  CHECK(attn[1]["attrib"]["name"] == "1:28: sK: TMA box fits the swizzle span [LP005]");
  std::vector<json> failure = children_named(attn[1], "failure");
  REQUIRE(failure.size() == 1);
  CHECK(failure[0]["attrib"]["type"] == "LP005");
  CHECK(failure[0]["attrib"]["message"] == "TMA box of sK is 256 bytes wide, wider than the 128-byte swizzle span");
  CHECK(failure[0]["text"] ==
        "kernels/attn.py:1:28: warning: TMA box of sK is 256 bytes wide, wider than the 128-byte swizzle span [LP005]\n"
        "# layoutproof: tma load sK box (64,128) swizzle 128B\n"
        "                           ^\n"
        "kernels/attn.py:1:32: note: inner box dimension: 128 x bf16 = 256 bytes\n"
        "# layoutproof: tma load sK box (64,128) swizzle 128B\n"
        "                               ^\n");
  // The invalid annotation has no obligation: it is a failing case of its own.
  CHECK(attn[2]["attrib"]["name"] == "2:33: 'sQ' is not a declared buffer [LP000]");
  CHECK(children_named(attn[2], "failure").size() == 1);

  std::vector<json> gemm = children_named(suites[2], "testcase");
  REQUIRE(gemm.size() == 3);
  CHECK(gemm[0]["attrib"]["name"] == "2:17: sA is injective [LP001]");
  std::vector<json> error = children_named(gemm[0], "error");
  REQUIRE(error.size() == 1);
  CHECK(error[0]["attrib"]["type"] == "unknown");
  CHECK(error[0]["attrib"]["message"] == "unknown: injectivity of sA not decided within 10 s");
  CHECK(gemm[0]["attrib"]["time"] == "10.000");
  CHECK(gemm[1]["children"].empty());  // LP004 passed
  CHECK(children_named(gemm[2], "failure").size() == 1);
}

TEST_CASE("junit: an obligation whose finding the baseline accepted is skipped, not failed", "[report][junit]") {
  CheckRun run = sample_run();
  Baseline b;
  b.entries = {{"LP002", "kernels/gemm.cu", "LP002:kernels/gemm.cu:access ldmatrix.x4 sA", ""}};
  REQUIRE(apply_baseline(run, b) == 1);
  json root = parse_xml(junit_report(run));
  CHECK(root["attrib"]["failures"] == "2");
  CHECK(root["attrib"]["skipped"] == "1");
  json gemm = children_named(root, "testsuite")[2];
  json skipped = children_named(children_named(gemm, "testcase")[2], "skipped")[0];
  CHECK(skipped["attrib"]["message"] == "accepted by the baseline: ldmatrix.x4 reads of sA are 8-way bank conflicted");
}

TEST_CASE("junit: a failed obligation without any finding still fails", "[report][junit]") {
  CheckRun run = sample_run();
  run.findings.clear();
  json root = parse_xml(junit_report(run));
  CHECK(root["attrib"]["tests"] == "5");
  CHECK(root["attrib"]["failures"] == "3");
  CHECK(root["attrib"]["errors"] == "0");
}

TEST_CASE("junit: xml_escape", "[report][junit]") {
  CHECK(xml_escape("a<b>&\"'", false) == "a&lt;b&gt;&amp;&quot;&apos;");
  CHECK(xml_escape("l1\nl2\tx\ry", false) == "l1\nl2\tx&#13;y");
  CHECK(xml_escape("l1\nl2\tx\ry", true) == "l1&#10;l2&#9;x&#13;y");
  // Forbidden in XML 1.0: C0 controls, U+FFFE, U+FFFF; and invalid UTF-8 is no character at all.
  CHECK(xml_escape(std::string("a\x01" "b\0c", 5), false) == "a\xEF\xBF\xBD" "b\xEF\xBF\xBD" "c");
  CHECK(xml_escape("\xEF\xBF\xBE\xEF\xBF\xBF", false) == "\xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(xml_escape("\xFF\xC0\x80\xED\xA0\x80", false) ==
        "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(xml_escape("\xC3\xA9\xE2\x82\xAC\xF0\x9D\x94\xB8\x7F", false) == "\xC3\xA9\xE2\x82\xAC\xF0\x9D\x94\xB8\x7F");
}
