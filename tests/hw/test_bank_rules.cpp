// Rule-level checks of the bank model against hand-computed wavefront counts (hw/README.md
// rules worked by hand in the comments, not by the code under test).
#include <catch2/catch.hpp>
#include <functional>

#include "hw/BankModel.h"
#include "hw/HwError.h"

using lp::hw::AccessCost;
using lp::hw::HwError;

namespace {

std::vector<int64_t> lanes(const std::function<int64_t(int64_t)>& address_of) {
  std::vector<int64_t> a;
  for (int64_t t = 0; t < 32; ++t) a.push_back(address_of(t));
  return a;
}

AccessCost cost(const char* instr, const std::vector<int64_t>& a, const char* arch = "sm_90") {
  return lp::hw::smem_access_cost(lp::hw::arch_by_name(arch), lp::hw::smem_instr(instr), a);
}

}  // namespace

TEST_CASE("broadcast: lanes reading one word share it", "[hw][banks]") {
  auto c = cost("ld.shared.b32", lanes([](int64_t) { return 4096; }));
  CHECK(c.wavefronts == 1);
  CHECK(c.ideal == 1);
  CHECK(c.conflict_free);
  REQUIRE(c.phases.size() == 1);
  CHECK(c.phases[0].bank == 0);
  CHECK(c.phases[0].words == std::vector<int64_t>{1024});
}

TEST_CASE("32-bit column of a 32-word-pitch array: 32 words in bank 5", "[hw][banks]") {
  auto c = cost("st.shared.b32", lanes([](int64_t t) { return 128 * t + 20; }));
  CHECK(c.wavefronts == 32);
  CHECK(c.ideal == 1);
  CHECK_FALSE(c.conflict_free);
  CHECK(c.phases[0].bank == 5);
  CHECK(c.phases[0].words.size() == 32);
  CHECK(c.phases[0].words.front() == 5);
  CHECK(c.phases[0].words.back() == 31 * 32 + 5);
}

TEST_CASE("sub-word accesses to one word count once", "[hw][banks]") {
  // Even lanes hit bytes of word 0, odd lanes bytes of word 32: both in bank 0 -> 2 words.
  auto c = cost("ld.shared.u8", lanes([](int64_t t) { return (t % 2) * 128 + (t / 2) % 4; }));
  CHECK(c.wavefronts == 2);
  CHECK(c.phases[0].words == std::vector<int64_t>{0, 32});
  // 16-bit halves: lanes 2k, 2k+1 share word k (k < 16), all banks distinct -> 1.
  CHECK(cost("st.shared.u16", lanes([](int64_t t) { return 2 * t; })).wavefronts == 1);
  // u16 at byte stride 256: 32 different words, all in bank 0.
  CHECK(cost("ld.shared.u16", lanes([](int64_t t) { return 256 * t; })).wavefronts == 32);
}

TEST_CASE("64-bit loads merge when lane t and t^1 read the same address; stores never merge", "[hw][banks][merge]") {
  // 16 distinct consecutive 8-byte chunks, lane pairs sharing: words 0..31, one per bank.
  auto pairs = lanes([](int64_t t) { return 8 * (t / 2); });
  auto load = cost("ld.shared.v2.b32", pairs);
  CHECK(load.merged);
  CHECK(load.phases.size() == 1);
  CHECK(load.phases[0].lanes.size() == 32);
  CHECK(load.wavefronts == 1);
  CHECK(load.ideal == 1);
  // The same addresses stored: half-warps 0-15 (words 0..15) and 16-31 (words 16..31), 1 each.
  auto store = cost("st.shared.v2.b32", pairs);
  CHECK_FALSE(store.merged);
  CHECK(store.phases.size() == 2);
  CHECK(store.wavefronts == 2);
  CHECK(store.ideal == 2);
  CHECK(store.conflict_free);
}

TEST_CASE("128-bit loads merge on t^2 partners too; a single odd lane prevents merging", "[hw][banks][merge]") {
  // Lane t and t^2 read chunk (t%2) + 2*(t/4): 16 distinct chunks of 16 bytes.
  auto quad = lanes([](int64_t t) { return 16 * ((t % 2) + 2 * (t / 4)); });
  auto merged = cost("ld.shared.v4.b32", quad);
  CHECK(merged.merged);
  CHECK(merged.phases.size() == 2);
  CHECK(merged.phases[0].lanes == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
  // Lanes 0-15 read chunks 0..7 (bytes 0..127), lanes 16-31 chunks 8..15: one wavefront each.
  CHECK(merged.wavefronts == 2);
  CHECK(merged.ideal == 2);
  // Stored, the four quarter-warps each read 4 distinct chunks without conflict: 4.
  auto store = cost("st.shared.v4.b32", quad);
  CHECK(store.wavefronts == 4);
  CHECK(store.ideal == 4);
  // Break one pair: no merge, four phases of 8 lanes; lane 31 moves to bank 0's next line.
  auto broken = quad;
  broken[31] = 16 * 64;
  auto unmerged = cost("ld.shared.v4.b32", broken);
  CHECK_FALSE(unmerged.merged);
  CHECK(unmerged.phases.size() == 4);
  // Phase 3 (lanes 24-31): chunks 12,13,12,13,14,15,14 and chunk 64 (words 256..259, banks 0-3),
  // which share banks 0-3 with nothing else in that phase: 1 wavefront per phase.
  CHECK(unmerged.wavefronts == 4);
}

TEST_CASE("merging is whole-warp, and not assumed off sm_90", "[hw][banks][merge]") {
  auto pairs = lanes([](int64_t t) { return 16 * (t / 2); });
  CHECK(cost("ld.shared.v4.b32", pairs).wavefronts == 2);
  // sm_80: the textbook model (no merging) is an upper bound: 4 phases of 1.
  auto sm80 = cost("ld.shared.v4.b32", pairs, "sm_80");
  CHECK_FALSE(sm80.merged);
  CHECK(sm80.wavefronts == 4);
  CHECK(sm80.ideal == 4);
  // t and t^4 sharing is not a merge pattern: 4 phases.
  CHECK(cost("ld.shared.v4.b32", lanes([](int64_t t) { return 16 * ((t % 4) + 4 * (t / 8)); })).wavefronts == 4);
}

TEST_CASE("merged loads still pay for conflicts within a phase", "[hw][banks][merge]") {
  // Lane pairs read 8-byte chunks at stride 128: merged into one phase of 16 distinct chunks,
  // words 32k and 32k+1 -> banks 0 and 1 hold 16 words each.
  auto c = cost("ld.shared.v2.b32", lanes([](int64_t t) { return 128 * (t / 2); }));
  CHECK(c.merged);
  CHECK(c.ideal == 1);
  CHECK(c.wavefronts == 16);
  CHECK(c.phases[0].bank == 0);
}

TEST_CASE("ldmatrix/stmatrix: one phase per matrix, rows from lanes 8k..8k+7", "[hw][banks][matrix]") {
  // Rows at stride 128 collide in banks 0-3: 8 words per bank per matrix.
  auto stride128 = lanes([](int64_t t) { return 128 * (t % 8); });
  CHECK(cost("ldmatrix.x4", stride128).wavefronts == 32);
  CHECK(cost("ldmatrix.x4", stride128).ideal == 4);
  CHECK(cost("stmatrix.x2.trans", stride128).wavefronts == 16);
  // Rows at stride 144 (padding 16 bytes) land in 8 disjoint bank groups: 1 per matrix.
  auto c = cost("ldmatrix.x4", lanes([](int64_t t) { return 144 * t; }));
  CHECK(c.wavefronts == 4);
  CHECK(c.ideal == 4);
  CHECK(c.phases[2].lanes == std::vector<int>{16, 17, 18, 19, 20, 21, 22, 23});
  // All 32 lanes give the same row: ldmatrix never merges, 4 phases of 1.
  CHECK(cost("ldmatrix.x4", lanes([](int64_t) { return 0; })).wavefronts == 4);
}

TEST_CASE(".x1 reads addresses from lanes 0-7 only, .x2 from lanes 0-15 only", "[hw][banks][matrix]") {
  // Lanes past the used ones hold misaligned garbage: the hardware never reads them.
  auto a = lanes([](int64_t t) { return t < 8 ? 144 * t : 3; });
  auto x1 = cost("ldmatrix.x1", a);
  CHECK(x1.wavefronts == 1);
  REQUIRE(x1.phases.size() == 1);
  CHECK(x1.phases[0].lanes == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  // .x2: matrix 1 comes from lanes 8-15, here all in bank 0-3 at stride 128: 8 wavefronts.
  auto b = lanes([](int64_t t) { return t < 8 ? 144 * t : t < 16 ? 2048 + 128 * (t - 8) : 5; });
  auto x2 = cost("ldmatrix.x2", b);
  CHECK(x2.phases.size() == 2);
  CHECK(x2.phases[0].wavefronts == 1);
  CHECK(x2.phases[1].wavefronts == 8);
  CHECK(x2.wavefronts == 9);
  CHECK_THROWS_AS(cost("ldmatrix.x4", b), HwError);  // .x4 reads lane 16's misaligned 5
}

TEST_CASE("invalid accesses are rejected with the lane and the rule", "[hw][banks][errors]") {
  auto ok = lanes([](int64_t t) { return 16 * t; });
  auto misaligned = ok;
  misaligned[3] = 56;  // 8-byte but not 16-byte aligned
  CHECK_THROWS_WITH(cost("ld.shared.v4.b32", misaligned),
                    Catch::Contains("lane 3") && Catch::Contains("not aligned to 16 bytes"));
  CHECK_NOTHROW(cost("ld.shared.v2.b32", misaligned));
  auto negative = ok;
  negative[0] = -16;
  CHECK_THROWS_WITH(cost("ld.shared.v4.b32", negative), Catch::Contains("lane 0") && Catch::Contains("negative"));
  // sm_90 blocks have at most 227 KiB = 232448 bytes.
  auto edge = ok;
  edge[7] = 232448 - 16;
  CHECK_NOTHROW(cost("ld.shared.v4.b32", edge));
  edge[7] = 232448;
  CHECK_THROWS_WITH(cost("ld.shared.v4.b32", edge), Catch::Contains("lane 7") && Catch::Contains("232448"));
  // sm_80 blocks have at most 163 KiB = 166912 bytes.
  auto big = ok;
  big[0] = 166912;
  CHECK_THROWS_AS(cost("ld.shared.v4.b32", big, "sm_80"), HwError);
  auto short_list = ok;
  short_list.pop_back();
  CHECK_THROWS_WITH(cost("ld.shared.b32", short_list), Catch::Contains("expected 32 lane addresses") && Catch::Contains("got 31"));
  CHECK_THROWS_WITH(cost("stmatrix.x4", ok, "sm_80"), Catch::Contains("sm_90"));
  CHECK_THROWS_AS(lp::hw::smem_instr("ld.shared.v8.b32"), HwError);
  CHECK_THROWS_AS(lp::hw::arch_by_name("sm_70"), HwError);
}

TEST_CASE("cp.async shared writes: quarter-warp phases, no broadcast, one extra wavefront per phase",
          "[hw][banks]") {
  // Measured on an H200 (scripts/gpu/cp_async_cases.tsv), worked by hand:
  // 16-byte consecutive: 4 phases x (1 + 1) = 8.
  CHECK(cost("cp.async.16", lanes([](int64_t t) { return 16 * t; })).wavefronts == 8);
  // 4-byte consecutive also splits into quarter-warps: 4 x (1 + 1) = 8.
  auto consec4 = cost("cp.async.4", lanes([](int64_t t) { return 4 * t; }), "sm_80");
  CHECK(consec4.wavefronts == 8);
  CHECK(consec4.ideal == 8);
  CHECK(consec4.conflict_free);
  // All lanes on one word: no broadcast, 8 writes per phase: 4 x (8 + 1) = 36.
  CHECK(cost("cp.async.4", lanes([](int64_t) { return 0; })).wavefronts == 36);
  // Lane pairs on one chunk: 2 writes per bank per phase: 4 x (2 + 1) = 12.
  CHECK(cost("cp.async.16", lanes([](int64_t t) { return 16 * (t / 2); })).wavefronts == 12);
  auto odd = lanes([](int64_t t) { return 16 * t; });
  odd[9] = 8;
  CHECK_THROWS_WITH(cost("cp.async.16", odd), Catch::Contains("lane 9"));
  CHECK_THROWS_AS(cost("cp.async.16", odd, "sm_80"), HwError);
}
