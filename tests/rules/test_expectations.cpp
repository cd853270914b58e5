// Every expectation is an obligation of its own and fails the gate when its statement is false,
// whatever else the file proves or allows. One case per expectation kind; the truth of each
// statement is fixed independently in its comment (hardware rules, brute-force arithmetic).
#include <catch2/catch.hpp>

#include <algorithm>

#include "rules/Checker.h"
#include "rules/TempTree.h"

namespace {

using lp::rules::CheckRun;
using lp::rules::Obligation;

CheckRun check_text(const std::string& text) {
  lp::test::TempTree tree;
  lp::rules::CheckOptions opt;
  opt.jobs = 1;
  return lp::rules::check_paths({tree.write("case.lp", text)}, opt);
}

// The gate: any error finding fails it (check's default --fail-on is warning).
bool gate_fails(const CheckRun& run) { return !run.findings.empty(); }

std::string messages(const CheckRun& run) {
  std::string s;
  for (const auto& f : run.findings) s += f.rule_id + ": " + f.message + "\n";
  for (const auto& o : run.obligations) s += std::string(o.passed ? "  proven: " : "  FAILED: ") + o.description + "\n";
  return s;
}

const Obligation* obligation(const CheckRun& run, const std::string& description) {
  for (const auto& o : run.obligations)
    if (o.description == description) return &o;
  return nullptr;
}

// A conflict-free ldmatrix.x4 (Swizzle<3,3,3> on a 64x64 f16 tile, 8 rows x 4 matrices): each of
// its 4 phases reads 8 rows of 16 bytes from 8 distinct 16-byte bank groups, so it needs exactly
// 4 wavefronts, one per matrix (the hardware's ideal for .x4).
constexpr const char* kSwizzledLdsm =
    "smem sA : f16 = Sw<3,3,3> o _0 o (_64,_64):(_64,_1) align 1024\n"
    "access r: sA ldmatrix.x4 lanes (_8,_4):(_1@0,_8@1)\n";
// The same access without the swizzle: the 8 rows of a matrix are 128 bytes apart, all in banks
// 0-3, so each phase needs 8 wavefronts: 32 in all.
constexpr const char* kPlainLdsm =
    "smem sA : f16 = (_64,_64):(_64,_1) align 1024\n"
    "access r: sA ldmatrix.x4 lanes (_8,_4):(_1@0,_8@1)\n";

}  // namespace

TEST_CASE("a wavefront bound below the ideal of a conflict-free access fails the gate", "[rules][expect]") {
  CheckRun run = check_text(std::string(kSwizzledLdsm) + "expect r wavefronts <= 1\n");
  INFO(messages(run));
  REQUIRE(gate_fails(run));
  CHECK(run.findings.front().message == "ldmatrix.x4 on 'sA' needs 4 wavefronts, more than the 1 expected");
  const Obligation* o = obligation(run, "ldmatrix.x4 on 'sA' needs at most 1 wavefronts");
  REQUIRE(o);
  CHECK_FALSE(o->passed);
  // The same bound at the ideal holds.
  CheckRun ok = check_text(std::string(kSwizzledLdsm) + "expect r wavefronts <= 4\n");
  INFO(messages(ok));
  CHECK_FALSE(gate_fails(ok));
}

TEST_CASE("a wavefront bound below a conflicting access's cost fails the gate", "[rules][expect]") {
  CheckRun run = check_text(std::string(kPlainLdsm) + "expect r wavefronts <= 31\n");
  INFO(messages(run));
  REQUIRE(gate_fails(run));
  CHECK(run.findings.front().message == "ldmatrix.x4 on 'sA' needs 32 wavefronts, more than the 31 expected");
  CheckRun ok = check_text(std::string(kPlainLdsm) + "expect r wavefronts <= 32\n");
  CHECK_FALSE(gate_fails(ok));
}

TEST_CASE("conflict-free and a bound on one access are two obligations, each held to", "[rules][expect]") {
  // The bound (32) holds; conflict freedom does not: the gate fails on the second statement.
  CheckRun run = check_text(std::string(kPlainLdsm) + "expect r wavefronts <= 32\nexpect r conflict-free\n");
  INFO(messages(run));
  REQUIRE(gate_fails(run));
  const Obligation* bound = obligation(run, "ldmatrix.x4 on 'sA' needs at most 32 wavefronts");
  const Obligation* free = obligation(run, "ldmatrix.x4 on 'sA' is conflict-free");
  REQUIRE(bound);
  REQUIRE(free);
  CHECK(bound->passed);
  CHECK_FALSE(free->passed);
  // And the other way round: conflict-free holds, the bound below the ideal does not.
  CheckRun other = check_text(std::string(kSwizzledLdsm) + "expect r conflict-free\nexpect r wavefronts <= 2\n");
  INFO(messages(other));
  REQUIRE(gate_fails(other));
  CHECK(other.findings.size() == 1);
}

TEST_CASE("an allow on the access does not pass a false expectation about it", "[rules][expect]") {
  CheckRun run = check_text(
      "smem sA : f16 = (_64,_64):(_64,_1) align 1024\n"
      "access r: sA ldmatrix.x4 lanes (_8,_4):(_1@0,_8@1) ; allow bank-conflict \"a known cost\"\n"
      "expect r conflict-free\n");
  INFO(messages(run));
  REQUIRE(gate_fails(run));
  CHECK(lp::line_col_of(*run.findings.front().loc.source, run.findings.front().loc.offset).first == 2);
  // An allow on the expectation itself is the user's word, and is honoured.
  CheckRun allowed = check_text(
      "smem sA : f16 = (_64,_64):(_64,_1) align 1024\n"
      "access r: sA ldmatrix.x4 lanes (_8,_4):(_1@0,_8@1)\n"
      "expect r wavefronts <= 8 ; allow bank-conflict \"a known cost\"\n");
  INFO(messages(allowed));
  CHECK_FALSE(gate_fails(allowed));
}

TEST_CASE("expect injective on a buffer whose declaration allows the bug fails the gate", "[rules][expect]") {
  // (_4,_4):(_1,_2): elements (2,0) and (0,1) both sit at offset 2.
  CheckRun run = check_text(
      "smem sA : f32 = (_4,_4):(_1,_2) ; allow layout-injective \"read-only broadcast\"\n"
      "expect sA injective\n");
  INFO(messages(run));
  REQUIRE(gate_fails(run));
  REQUIRE(run.findings.size() == 1);
  CHECK(run.findings.front().message.find("not injective") != std::string::npos);
  CheckRun ok = check_text("smem sA : f32 = (_4,_4):(_1,_4)\nexpect sA injective\n");
  CHECK_FALSE(gate_fails(ok));
}

TEST_CASE("expect illegal on a legal composition fails the gate, whatever the operation allows", "[rules][expect]") {
  // (_8,_8):(_1,_8) o _4:_2 picks offsets 0,2,4,6 of a contiguous 64-element layout: legal.
  CheckRun run = check_text(
      "smem sA : f16 = (_8,_8):(_1,_8)\n"
      "compose C = sA o `_4:_2` ; allow algebra-legality \"kept for the record\"\n"
      "expect C illegal\n");
  INFO(messages(run));
  REQUIRE(gate_fails(run));
  CHECK(run.findings.front().message.find("is expected to be illegal") != std::string::npos);
}

TEST_CASE("expect covers with a hole fails the gate", "[rules][expect]") {
  // 4 elements with stride 2 reach TLane 0,2,4,6 only: TLane 1 has no copy.
  CheckRun run = check_text("tmem t : f32 = S[4:2@TLane]\nexpect t covers TLane=0..7\n");
  INFO(messages(run));
  REQUIRE(gate_fails(run));
  CHECK(run.findings.front().message.find("without a copy") != std::string::npos);
  CheckRun ok = check_text("tmem t : f32 = S[8:1@TLane]\nexpect t covers TLane=0..7\n");
  CHECK_FALSE(gate_fails(ok));
}
