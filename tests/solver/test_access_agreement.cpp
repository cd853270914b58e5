// solver/AccessAgreement.h (rule LP015): compiled warps against annotated issues, on hand-made cases
// and against a brute-force oracle that tries every shift in a range.
#include <catch2/catch.hpp>

#include <random>
#include <set>

#include "solver/AccessAgreement.h"

using namespace lp;

namespace {

WarpAddresses warp(int64_t base, int64_t stride, hw::LaneMask active = hw::kAllLanes) {
  WarpAddresses w;
  for (int l = 0; l < hw::kWarpLanes; ++l) w.addresses.push_back(base + stride * l);
  w.active = active;
  return w;
}

// The oracle: some shift s in [-range, range] makes every compiled warp, lane by lane over the
// active lanes below `lanes`, equal to some issue moved by s (with the same active lanes), and,
// with `every_issue`, every issue one of the moved warps.
bool brute_force_agrees(const std::vector<WarpAddresses>& compiled, const std::vector<WarpAddresses>& issues, int lanes,
                        bool every_issue, int64_t range) {
  const hw::LaneMask below = lanes >= 32 ? hw::kAllLanes : (hw::LaneMask{1} << lanes) - 1;
  auto same = [&](const WarpAddresses& w, const WarpAddresses& i, int64_t s) {
    if ((w.active & below) != (i.active & below)) return false;
    for (int l = 0; l < lanes; ++l)
      if (((w.active >> l) & 1) && w.addresses[static_cast<size_t>(l)] != i.addresses[static_cast<size_t>(l)] + s) return false;
    return true;
  };
  for (int64_t s = -range; s <= range; ++s) {
    bool all = true;
    for (const WarpAddresses& w : compiled) {
      bool found = false;
      for (const WarpAddresses& i : issues) found = found || same(w, i, s);
      all = all && found;
    }
    if (all && every_issue)
      for (const WarpAddresses& i : issues) {
        bool found = false;
        for (const WarpAddresses& w : compiled) found = found || same(w, i, s);
        all = all && found;
      }
    if (all) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("compiled warps that are the issues at one shift agree, at the shift where the buffer lies",
          "[solver][agreement]") {
  const std::vector<WarpAddresses> issues{warp(0, 4), warp(128, 4), warp(256, 4)};
  auto r = compare_warps({warp(1024 + 256, 4), warp(1024, 4)}, issues, 32, false);
  REQUIRE(std::holds_alternative<Agreement>(r));
  CHECK(std::get<Agreement>(r).shift == 1024);
  CHECK(std::get<Agreement>(r).issue_of_warp == std::vector<size_t>{2, 0});
  // Every issue performed is asked for: issue 1 is not.
  auto missing = compare_warps({warp(1024 + 256, 4), warp(1024, 4)}, issues, 32, true);
  REQUIRE(std::holds_alternative<Disagreement>(missing));
  CHECK(std::get<Disagreement>(missing).kind == Disagreement::Kind::MissingIssue);
  CHECK(std::get<Disagreement>(missing).issue == 1);
}

TEST_CASE("a warp whose lanes are not an issue's names the nearest issue and the first lane that differs",
          "[solver][agreement]") {
  WarpAddresses odd = warp(0, 4);
  odd.addresses[5] = 100;
  auto r = compare_warps({odd}, {warp(0, 8), warp(0, 4)}, 32, false);
  REQUIRE(std::holds_alternative<Disagreement>(r));
  const Disagreement& d = std::get<Disagreement>(r);
  CHECK(d.kind == Disagreement::Kind::LanePattern);
  CHECK(d.issue == 1);
  CHECK(d.lane == 5);
  CHECK(d.compiled_offset == 100);
  CHECK(d.annotated_offset == 20);
}

TEST_CASE("other active lanes, and warps placed at two shifts, disagree", "[solver][agreement]") {
  auto lanes = compare_warps({warp(0, 4, 0xffff)}, {warp(0, 4)}, 32, false);
  REQUIRE(std::holds_alternative<Disagreement>(lanes));
  CHECK(std::get<Disagreement>(lanes).kind == Disagreement::Kind::ActiveLanes);
  CHECK(std::get<Disagreement>(lanes).compiled_active == 0xffff);
  auto shift = compare_warps({warp(0, 4), warp(512, 4)}, {warp(0, 4), warp(128, 4)}, 32, false);
  REQUIRE(std::holds_alternative<Disagreement>(shift));
  const Disagreement& d = std::get<Disagreement>(shift);
  CHECK(d.kind == Disagreement::Kind::Shift);
  CHECK(d.warp == 1);
  CHECK(d.shifts_before == std::vector<int64_t>{-128, 0});
  CHECK(d.shifts_of_warp == std::vector<int64_t>{384, 512});
}

TEST_CASE("only the lanes whose addresses the instruction reads are compared (ldmatrix.x2: 16)", "[solver][agreement]") {
  WarpAddresses w = warp(0, 16);
  for (size_t l = 16; l < 32; ++l) w.addresses[l] = 9999;
  CHECK(std::holds_alternative<Agreement>(compare_warps({w}, {warp(0, 16)}, 16, true)));
  CHECK(std::holds_alternative<Disagreement>(compare_warps({w}, {warp(0, 16)}, 32, true)));
}

TEST_CASE("compare_warps agrees with a brute-force search over shifts on random small cases", "[solver][agreement]") {
  std::mt19937_64 rng(20261128);
  auto pick = [&](int64_t n) { return static_cast<int64_t>(rng() % static_cast<uint64_t>(n)); };
  int agreed = 0, disagreed = 0;
  for (int round = 0; round < 400; ++round) {
    const int lanes = pick(2) ? 32 : 8;
    const hw::LaneMask active = pick(4) ? hw::kAllLanes : static_cast<hw::LaneMask>(rng() | 1);
    std::vector<WarpAddresses> issues;
    for (int i = 0; i < 1 + pick(4); ++i) {
      WarpAddresses w;
      for (int l = 0; l < 32; ++l) w.addresses.push_back(4 * pick(6));
      w.active = active;
      issues.push_back(w);
    }
    // Compiled warps: issues moved by one shift, sometimes one of them disturbed.
    const int64_t s = 4 * pick(5) - 8;
    std::vector<WarpAddresses> compiled;
    for (int k = 0; k < 1 + pick(4); ++k) {
      WarpAddresses w = issues[static_cast<size_t>(pick(static_cast<int64_t>(issues.size())))];
      for (int64_t& a : w.addresses) a += s;
      if (pick(4) == 0) w.addresses[static_cast<size_t>(pick(lanes))] += 4 * (1 + pick(3));
      if (pick(8) == 0) w.active ^= 1;
      compiled.push_back(w);
    }
    const bool every = pick(2);
    const bool oracle = brute_force_agrees(compiled, issues, lanes, every, 64);
    const auto r = compare_warps(compiled, issues, lanes, every);
    INFO("round " << round);
    CHECK(std::holds_alternative<Agreement>(r) == oracle);
    (oracle ? agreed : disagreed) += 1;
  }
  // Both outcomes are exercised.
  CHECK(agreed > 50);
  CHECK(disagreed > 50);
}
