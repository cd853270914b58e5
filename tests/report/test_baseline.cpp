#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "Fixtures.h"
#include "XmlSupport.h"
#include "report/Baseline.h"
#include "report/pages/FindingsDoc.h"
#include "report/TextReport.h"

using namespace lp;
using namespace lp::report;
using namespace lp::report::test;
using nlohmann::json;

TEST_CASE("baseline: written from a run, sorted like the reports, read back equal", "[report][baseline]") {
  Baseline b = Baseline::from_run(sample_run());
  json j = json::parse(b.to_json());
  CHECK(j["version"] == 1);
  REQUIRE(j["findings"].size() == 4);
  CHECK(j["findings"][0] == json{{"rule", "LP005"}, {"file", "kernels/attn.py"},
                                 {"fingerprint", "LP005:kernels/attn.py:tma load sK box (64,128) swizzle 128B"},
                                 {"message", "TMA box of sK is 256 bytes wide, wider than the 128-byte swizzle span"}});
  CHECK(j["findings"][3]["rule"] == "LP002");

  std::string path = temp_path(".json");
  b.write(path);
  Baseline back = Baseline::read(path);
  std::filesystem::remove(path);
  CHECK(back.entries == b.entries);
}

TEST_CASE("baseline: accepted findings leave the report and are counted", "[report][baseline]") {
  CheckRun run = sample_run();
  Baseline b;
  b.entries = {{"LP002", "kernels/gemm.cu", "LP002:kernels/gemm.cu:access ldmatrix.x4 sA", "old wording"},
               {"LP005", "./kernels//attn.py", "LP005:kernels/attn.py:tma load sK box (64,128) swizzle 128B", ""},
               {"LP005", "kernels/attn.py", "some other annotation", ""},
               {"LP001", "kernels/other.cu", "LP001:kernels/gemm.cu:layout sA = smem bf16 (64,64):(64,1)", ""}};
  CHECK(apply_baseline(run, b) == 2);
  CHECK(run.baselined == 2);
  REQUIRE(run.findings.size() == 2);
  CHECK(run.findings[0].rule_id == "LP001");  // same fingerprint, other file: not accepted
  CHECK(run.findings[1].rule_id == "LP000");
  REQUIRE(run.accepted.size() == 2);
  CHECK(summary_line(run) == "1 finding (1 error), 1 unknown, 2 baselined, in 3 files; 2 of 5 obligations proven");
  // Re-writing the baseline keeps what it accepted.
  CHECK(Baseline::from_run(run).entries.size() == 4);
}

TEST_CASE("baseline: a finding moved by an edit stays accepted, a second copy does not", "[report][baseline]") {
  CheckRun run = sample_run();
  Baseline b = Baseline::from_run(run);
  auto moved = source("kernels\\gemm.cu", "// new line above\n\n// layoutproof: access ldmatrix.x4 sA\n");
  Finding f = run.findings[0];  // the LP002 violation
  REQUIRE(f.rule_id == "LP002");
  f.loc = at(moved, "access");
  CheckRun next;
  next.findings = {f, f};
  CHECK(apply_baseline(next, b) == 1);
  CHECK(next.findings.size() == 1);
}

TEST_CASE("baseline: findings without a fingerprint match on the message", "[report][baseline]") {
  auto src = source("a.cu", "x\n");
  CheckRun run;
  run.findings = {finding("LP1", {src, 0}, "m1"), finding("LP1", {src, 0}, "m2")};
  Baseline b;
  b.entries = {{"LP1", "a.cu", "", "m2"}};
  CHECK(apply_baseline(run, b) == 1);
  REQUIRE(run.findings.size() == 1);
  CHECK(run.findings[0].message == "m1");
}

TEST_CASE("baseline: path normalisation", "[report][baseline]") {
  CHECK(baseline_path("./a/./b/../c.cu") == "a/c.cu");
  CHECK(baseline_path("a\\b.cu") == "a/b.cu");
  CHECK(baseline_path("/abs//x.cu") == "/abs/x.cu");
  CHECK(baseline_path("") == "");
}

namespace {

// The BaselineError for `text`, whose message must name the file and the problem.
std::string parse_error(const std::string& text) {
  try {
    Baseline::parse(text, "ci/baseline.json");
  } catch (const BaselineError& e) {
    CHECK(e.file() == "ci/baseline.json");
    CHECK(std::string(e.what()) == "baseline ci/baseline.json: " + e.problem());
    return e.problem();
  }
  FAIL("no BaselineError for: " << text);
  return "";
}

}  // namespace

TEST_CASE("baseline: malformed files are clear errors", "[report][baseline]") {
  CHECK(parse_error("") == "not valid JSON (at byte 1)");
  CHECK(parse_error("{\"version\": 1, \"findings\": [") == "not valid JSON (at byte 29)");
  CHECK(parse_error("[]") == "the top level is array, not an object");
  CHECK(parse_error("{\"findings\": []}") == "no \"version\"");
  CHECK(parse_error("{\"version\": 2, \"findings\": []}") == "unsupported version 2 (this LayoutProof reads version 1)");
  CHECK(parse_error("{\"version\": \"1\", \"findings\": []}") ==
        "unsupported version \"1\" (this LayoutProof reads version 1)");
  CHECK(parse_error("{\"version\": 1}") == "no \"findings\"");
  CHECK(parse_error("{\"version\": 1, \"findings\": {}}") == "\"findings\" is object, not an array");
  CHECK(parse_error("{\"version\": 1, \"findings\": [3]}") == "findings[0] is number, not an object");
  const std::string ok = R"({"rule": "LP1", "file": "a.cu", "fingerprint": "f", "message": "m"})";
  CHECK(parse_error(R"({"version": 1, "findings": [)" + ok + R"(, {"rule": "LP1", "file": "a.cu", "message": "m"}]})") ==
        "findings[1] has no \"fingerprint\"");
  CHECK(parse_error(R"({"version": 1, "findings": [{"rule": 7, "file": "a.cu", "fingerprint": "f", "message": "m"}]})") ==
        "findings[0].rule is number, not a string");
  CHECK(parse_error("\xFF\xFE{") == "not valid JSON (at byte 1)");
  CHECK(parse_error(std::string(100000, '[')) == "nested deeper than 16 levels, not read");
  CHECK(Baseline::parse(R"({"version": 1, "findings": [)" + ok + "]}", "b.json").entries.size() == 1);
}

TEST_CASE("baseline: unreadable paths are clear errors", "[report][baseline]") {
  std::string missing = temp_path("-missing.json");
  CHECK_THROWS_MATCHES(Baseline::read(missing), BaselineError,
                       Catch::Matchers::Message("baseline " + missing + ": cannot be read: No such file or directory"));
  std::string dir = std::filesystem::temp_directory_path().string();
  CHECK_THROWS_MATCHES(Baseline::read(dir), BaselineError,
                       Catch::Matchers::Message("baseline " + dir + ": is a directory, not a regular file"));
  // A device or a FIFO is never read: /dev/zero would stream forever, a FIFO block.
  CHECK_THROWS_MATCHES(Baseline::read("/dev/zero"), BaselineError,
                       Catch::Matchers::Message("baseline /dev/zero: is a device, not a regular file"));
  CHECK_THROWS_MATCHES(Baseline{}.write(missing + "/no/such/dir.json"), BaselineError,
                       Catch::Matchers::Message("baseline " + missing + "/no/such/dir.json: cannot be opened for writing"));
}

TEST_CASE("baseline: a number too large for a double is a clear error (fuzz regression)", "[report][baseline][fuzz-regression]") {
  // fuzz_baseline: nlohmann::json threw out_of_range (406), not parse_error, and the uncaught
  // exception ended `check --baseline` with std::terminate. Also in fuzz/seeds/baseline/.
  CHECK(parse_error(R"({"version": 1e999, "findings": []})").rfind("not valid JSON (", 0) == 0);
  CHECK(parse_error(R"({"version": 1, "findings": [{"rule": 222222222222222200000000e222222}]})").find("number overflow") !=
        std::string::npos);
  // Read from a file, as `check --baseline` does.
  const std::string path = temp_path("-overflow.json");
  std::ofstream(path) << R"({"version": 1, "findings": [], "x": -1e400})";
  CHECK_THROWS_AS(Baseline::read(path), BaselineError);
  std::filesystem::remove(path);
  // `layoutproof report` reads findings JSON with the same library: the same error, not an abort.
  CHECK_THROWS_AS(lp::report::parse_findings_doc(R"({"findings": [], "x": 1e999})", "f.json"), lp::report::ReportInputError);
}
