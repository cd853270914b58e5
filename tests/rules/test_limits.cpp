// What `check` does with adversarial trees and inputs (docs/security.md): symlinks out of the tree,
// oversized and special files, unreadable files, and the run's time budget.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "rules/Checker.h"
#include "rules/Config.h"
#include "rules/TempTree.h"
#include "support/Process.h"

namespace fs = std::filesystem;

namespace {

const char* kBug = "smem sD : f32 = (_32,_33):(_32,_1)\n";
const char* kProofs =
    "smem sA : f16 = Sw<3,3,3> o _0 o (_64,_64):(_64,_1) align 1024\n"
    "expect sA injective\n"
    "access a1: sA ldmatrix.x4 lanes (_16,_2,_4,_4):(_1@0,_8@1,_16@0,_16@1)\n"
    "tmem sfa : f32 = S[(32,4):(1@TLane,1@TCol)] + R[4:32@TLane]\n"
    "covers sfa TLane=0..127, TCol=0..3\n";

std::string messages(const lp::report::CheckRun& run) {
  std::string all;
  for (const auto& f : run.findings) all += f.rule_id + " " + f.message + "\n";
  return all;
}

}  // namespace

TEST_CASE("limits: a symlink in the tree to a file outside it is reported, not read", "[checker][limits]") {
  lp::test::TempTree t;
  t.write("outside/secret.cu", std::string("// layoutproof: ") + kBug);
  t.write("tree/in.lp", kBug);
  fs::create_symlink(t.path("outside/secret.cu"), t.path("tree/leak.cu"));
  fs::create_symlink(t.path("tree/in.lp"), t.path("tree/alias.lp"));  // inside: followed
  fs::create_symlink("/etc/passwd", t.path("tree/passwd.py"));
  lp::rules::CheckOptions opt;
  auto run = lp::rules::check_paths({t.path("tree")}, opt);
  std::string all = messages(run);
  INFO(all);
  CHECK(run.files == std::vector<std::string>{t.path("tree/alias.lp"), t.path("tree/in.lp")});
  CHECK(all.find("leak.cu: symbolic link to a file outside") != std::string::npos);
  CHECK(all.find("passwd.py: symbolic link to a file outside") != std::string::npos);
  CHECK(all.find("secret") == std::string::npos);
  // Named explicitly, the file is the user's choice and is read.
  auto named = lp::rules::check_paths({t.path("tree/leak.cu")}, opt);
  CHECK(named.files.size() == 1);
}

TEST_CASE("limits: oversized files are refused before reading, also behind a symlink or named", "[checker][limits]") {
  lp::test::TempTree t;
  t.write("tree/ok.lp", kBug);
  const std::string big = t.write("tree/big.cu", "// layoutproof: smem a : f32 = (_2):(_1)\n");
  fs::resize_file(big, (uintmax_t{16} << 20) + 1);  // sparse: no 16 MiB written
  fs::create_symlink(big, t.path("tree/link.cu"));
  lp::rules::CheckOptions opt;
  auto run = lp::rules::check_paths({t.path("tree")}, opt);
  std::string all = messages(run);
  INFO(all);
  CHECK(run.files == std::vector<std::string>{t.path("tree/ok.lp")});
  CHECK(all.find("big.cu: larger than 16777216 bytes, not read") != std::string::npos);
  CHECK(all.find("link.cu: larger than 16777216 bytes, not read") != std::string::npos);
  auto named = lp::rules::check_paths({big}, opt);
  CHECK(named.files.empty());
  CHECK(messages(named).find("larger than") != std::string::npos);
}

TEST_CASE("limits: FIFOs and devices are never opened", "[checker][limits]") {
  lp::test::TempTree t;
  t.write("tree/ok.lp", kBug);
  REQUIRE(mkfifo(t.path("tree/pipe.cu").c_str(), 0600) == 0);
  fs::create_symlink("/dev/zero", t.path("tree/zero.py"));
  lp::rules::CheckOptions opt;
  // Reading either would block or never end; the test finishing is half the check.
  auto run = lp::rules::check_paths({t.path("tree")}, opt);
  CHECK(run.files == std::vector<std::string>{t.path("tree/ok.lp")});
  auto named = lp::rules::check_paths({t.path("tree/pipe.cu"), "/dev/zero"}, opt);
  std::string all = messages(named);
  INFO(all);
  CHECK(named.files.empty());
  CHECK(all.find("pipe.cu: not a regular file or directory") != std::string::npos);
  CHECK(all.find("/dev/zero: not a regular file or directory") != std::string::npos);
}

TEST_CASE("limits: an unreadable file is an LP000 error", "[checker][limits]") {
  lp::test::TempTree t;
  const std::string f = t.write("tree/locked.lp", kBug);
  fs::permissions(f, fs::perms::none);
  if (geteuid() == 0 || std::ifstream(f).good()) {
    WARN("running as root: permissions do not stop reading, nothing to test");
    return;
  }
  lp::rules::CheckOptions opt;
  for (const std::string& path : {t.path("tree"), f}) {
    auto run = lp::rules::check_paths({path}, opt);
    std::string all = messages(run);
    INFO(all);
    CHECK(all.find("locked.lp: cannot be read") != std::string::npos);
  }
}

TEST_CASE("limits: a spent time budget turns the remaining proofs into unknowns, and is not cached", "[checker][limits][budget]") {
  lp::test::TempTree t;
  t.write("src/a.lp", kProofs);
  lp::rules::CheckOptions full;
  full.jobs = 1;
  auto reference = lp::rules::check_paths({t.path("src")}, full);
  auto proven = [](const lp::report::CheckRun& r) {
    return std::count_if(r.obligations.begin(), r.obligations.end(), [](const auto& o) { return o.passed; });
  };
  const auto decided = proven(reference);
  CHECK(decided >= 3);
  CHECK(static_cast<size_t>(decided) == reference.obligations.size());
  for (const auto& f : reference.findings) CHECK(f.kind != lp::report::FindingKind::Unknown);

  lp::rules::CheckOptions spent = full;
  spent.config.time_budget_s = 1e-9;  // over before the first proof
  spent.cache_dir = t.path("cache");
  auto run = lp::rules::check_paths({t.path("src")}, spent);
  size_t unknowns = 0;
  for (const auto& f : run.findings) {
    if (f.kind != lp::report::FindingKind::Unknown) continue;
    ++unknowns;
    CHECK(f.severity == lp::Severity::Error);  // [gate] unknown = "error": the gate fails
  }
  CHECK(unknowns >= 3);
  CHECK(proven(run) == 0);
  // Nothing cut short by the budget is cached: a later run with time proves everything.
  CHECK((!fs::exists(t.path("cache")) || fs::is_empty(t.path("cache"))));
  full.cache_dir = t.path("cache");
  CHECK(proven(lp::rules::check_paths({t.path("src")}, full)) == decided);
}

TEST_CASE("limits: time-budget-s in the config and --time-budget on the command line", "[checker][limits][budget]") {
  CHECK(*lp::rules::parse_config("[gate]\ntime-budget-s = 600\n", "c.toml").time_budget_s == 600);
  CHECK_FALSE(lp::rules::parse_config("", "c.toml").time_budget_s);
  for (const char* bad : {"[gate]\ntime-budget-s = 0\n", "[gate]\ntime-budget-s = \"1\"\n", "[gate]\ntime-budget-s = 99999999\n"}) {
    INFO(bad);
    CHECK_THROWS_AS(lp::rules::parse_config(bad, "c.toml"), lp::rules::ConfigError);
  }
  lp::test::TempTree t;
  const std::string f = t.write("a.lp", kProofs);
  auto ok = lp::test::run_layoutproof({"check", f, "--no-cache", "--time-budget", "600"});
  INFO(ok.out << ok.err);
  CHECK(ok.exit_code == 0);
  auto bad = lp::test::run_layoutproof({"check", f, "--no-cache", "--time-budget", "-1"});
  CHECK(bad.exit_code == 2);
}

TEST_CASE("limits: [solver] memory-mb sets Z3's memory cap; out-of-range values are configuration errors",
          "[checker][limits]") {
  CHECK(lp::rules::parse_config("[solver]\nmemory-mb = 512\n", "c.toml").limits.memory_mb == 512);
  CHECK(lp::rules::parse_config("", "c.toml").limits.memory_mb == 2048);
  for (const char* bad : {"[solver]\nmemory-mb = 8\n", "[solver]\nmemory-mb = \"1G\"\n", "[solver]\nmemory-mb = 9999999\n"}) {
    INFO(bad);
    CHECK_THROWS_AS(lp::rules::parse_config(bad, "c.toml"), lp::rules::ConfigError);
  }
}

TEST_CASE("limits: a cache entry written by someone else cannot point outside the file", "[checker][limits][cache]") {
  lp::test::TempTree t;
  t.write("src/a.lp", kBug);
  lp::rules::CheckOptions opt;
  opt.cache_dir = t.path("cache");
  auto reference = lp::rules::check_paths({t.path("src")}, opt);
  REQUIRE(reference.findings.size() == 1);
  // Well-formed JSON, but a location past the end of the file and out-of-range enums: recomputed.
  const std::vector<std::string> poisoned = {
      R"({"findings": [{"rule": "LP001", "severity": 2, "kind": 0, "loc": 4000000000, "message": "x", "notes": [],
          "counterexample": null, "trace": [], "fingerprint": "f"}], "obligations": []})",
      R"({"findings": [{"rule": "LP001", "severity": 7, "kind": -1, "loc": 0, "message": "x", "notes": [],
          "counterexample": null, "trace": [], "fingerprint": "f"}], "obligations": []})",
      R"({"findings": [{"rule": "LP001", "severity": 2, "kind": 0, "loc": 0, "message": "x", "notes": [[99999999, "n"]],
          "counterexample": null, "trace": [], "fingerprint": "f"}], "obligations": []})"};
  for (const std::string& entry : poisoned) {
    INFO(entry);
    for (auto& e : fs::directory_iterator(t.path("cache"))) std::ofstream(e.path()) << entry;
    auto run = lp::rules::check_paths({t.path("src")}, opt);
    REQUIRE(run.findings.size() == 1);
    CHECK(run.findings[0].message == reference.findings[0].message);
    CHECK(run.findings[0].loc.offset == reference.findings[0].loc.offset);
  }
}
