// Rule-level checks of the bank model against hand-computed wavefront counts (docs/hardware.md
// rules worked by hand in the comments, not by the code under test).
#include <catch2/catch.hpp>
#include <functional>

#include "hw/AsyncCopy.h"
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

TEST_CASE("64-bit loads merge when lane t and t^1 read the same address, stores never merge", "[hw][banks][merge]") {
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

TEST_CASE("128-bit loads merge on t^2 partners too, a single odd lane prevents merging", "[hw][banks][merge]") {
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

TEST_CASE("cp.async shared writes: a store's phases without broadcast", "[hw][banks]") {
  // Measured on an H100 (tests/data/sm90_cp_async_wavefronts.tsv), worked by hand:
  // 16-byte consecutive: 4 phases of 8 lanes, 128 bytes each: 4.
  auto consec16 = cost("cp.async.ca.16", lanes([](int64_t t) { return 16 * t; }));
  CHECK(consec16.wavefronts == 4);
  CHECK(consec16.ideal == 4);
  CHECK(consec16.conflict_free);
  // 4-byte copies are one phase of 32 lanes, as st.shared.b32: consecutive words 1.
  auto consec4 = cost("cp.async.ca.4", lanes([](int64_t t) { return 4 * t; }), "sm_80");
  CHECK(consec4.wavefronts == 1);
  CHECK(consec4.ideal == 1);
  // ... so rows of 8 lanes 128 bytes apart put lanes t, t+8, t+16, t+24 on one bank: 4.
  CHECK(cost("cp.async.ca.4", lanes([](int64_t t) { return 128 * (t / 8) + 4 * (t % 8); })).wavefronts == 4);
  // All lanes on one word: no broadcast, 32 writes to bank 0.
  CHECK(cost("cp.async.ca.4", lanes([](int64_t) { return 0; })).wavefronts == 32);
  // 8-byte copies run as two phases of 16 lanes; lane pairs on one chunk write each word twice: 2 x 2.
  CHECK(cost("cp.async.ca.8", lanes([](int64_t t) { return 8 * (t / 2); })).wavefronts == 4);
  // 16-byte lane pairs on one chunk: 4 phases x 2.
  CHECK(cost("cp.async.ca.16", lanes([](int64_t t) { return 16 * (t / 2); })).wavefronts == 8);
  // .cg has the same shared-side phases (the counters cannot confirm them: docs/hardware.md).
  CHECK(cost("cp.async.cg.16", lanes([](int64_t t) { return 128 * t; })).wavefronts == 32);
  auto odd = lanes([](int64_t t) { return 16 * t; });
  odd[9] = 8;
  CHECK_THROWS_WITH(cost("cp.async.ca.16", odd), Catch::Contains("lane 9"));
  CHECK_THROWS_AS(cost("cp.async.cg.16", odd, "sm_80"), HwError);
}

TEST_CASE("cp.async.ca with its global side: parts by groups of 4 source lines, L1 reads in the banks too",
          "[hw][banks]") {
  const lp::hw::Arch& sm90 = lp::hw::arch_by_name("sm_90");
  const lp::hw::SmemInstr& ca16 = lp::hw::smem_instr("cp.async.ca.16");
  auto consec = lanes([](int64_t t) { return 16 * t; });
  // Each lane reads its own line at byte 0: a phase's 8 lines form 2 groups of 4, each reading
  // word 0 of 4 lines from bank 0 (4 distinct words): 2 x 4 per phase, 32 in all; 8 parts are ideal.
  auto scattered = lp::hw::smem_access_cost(sm90, ca16, consec, lanes([](int64_t t) { return 128 * t; }));
  CHECK(scattered.wavefronts == 32);
  CHECK(scattered.ideal == 8);
  REQUIRE(scattered.phases.size() == 8);
  CHECK(scattered.phases[0].lanes == std::vector<int>{0, 1, 2, 3});
  CHECK(scattered.phases[0].lines == std::vector<int64_t>{0, 1, 2, 3});
  CHECK(scattered.phases[0].read_load == 4);
  // Sources 64 bytes into a line: lines 0..4, the 5th line in a second group; only phase 3
  // (lanes 24-27 from line 3, 28-31 from line 4) spans both: 4 + 1 parts, each 1 wavefront.
  auto shifted = lp::hw::smem_access_cost(sm90, ca16, consec, lanes([](int64_t t) { return 64 + 16 * t; }));
  CHECK(shifted.wavefronts == 5);
  CHECK(shifted.ideal == 5);
  CHECK(shifted.conflict_free);
  // Dense sources: one line per phase, the same as without a global side.
  auto dense = lp::hw::smem_access_cost(sm90, ca16, consec, consec);
  CHECK(dense.wavefronts == cost("cp.async.ca.16", consec).wavefronts);
  // 4-byte copies from 64 bytes into a line: two lines, one group, disjoint banks: 1.
  auto four = lp::hw::smem_access_cost(sm90, lp::hw::smem_instr("cp.async.ca.4"), lanes([](int64_t t) { return 4 * t; }),
                                       lanes([](int64_t t) { return 64 + 4 * t; }));
  CHECK(four.wavefronts == 1);
  CHECK_THROWS_WITH(lp::hw::smem_access_cost(sm90, lp::hw::smem_instr("cp.async.cg.16"), consec, consec),
                    Catch::Contains("cp.async.ca only"));
  auto misaligned = consec;
  misaligned[3] = 8;
  CHECK_THROWS_WITH(lp::hw::smem_access_cost(sm90, ca16, consec, misaligned), Catch::Contains("lane 3 global address 8"));
  CHECK_THROWS_WITH(lp::hw::smem_access_cost(sm90, ca16, consec, {0, 16}), Catch::Contains("expected 32 global addresses"));
}

TEST_CASE("the retired cp.async names say which forms replace them", "[hw][banks]") {
  CHECK_THROWS_WITH(lp::hw::smem_instr("cp.async.16"), Catch::Contains("cp.async.ca.16 or cp.async.cg.16"));
  CHECK_THROWS_WITH(lp::hw::smem_instr("cp.async.4"), Catch::Contains("write cp.async.ca.4"));
  CHECK_THROWS_AS(lp::hw::smem_instr("cp.async.cg.8"), HwError);  // .cg is 16 bytes only
  CHECK(lp::hw::smem_instr("cp.async.cg.16").sass == "LDGSTS.E.BYPASS.128");
  CHECK(lp::hw::smem_instr("cp.async.ca.8").sass == "LDGSTS.E.64");
}

TEST_CASE("cp.async.cg moves one L2 sector per (global sector, shared sector) pair", "[hw][banks]") {
  const lp::hw::Arch& sm90 = lp::hw::arch_by_name("sm_90");
  const lp::hw::SmemInstr& cg = lp::hw::smem_instr("cp.async.cg.16");
  // Worked by hand; lanes 2k and 2k+1 read global sector k (the default global side).
  // Consecutive: global sector k lands in shared sector k: 16 sectors, ideal 16.
  auto consec = lp::hw::bypass_sectors(sm90, cg, lanes([](int64_t t) { return 16 * t; }));
  CHECK(consec.sectors == 16);
  CHECK(consec.ideal == 16);
  CHECK_FALSE(consec.split_lane);
  // 128B swizzle: chunk c of row r at c ^ r keeps chunks 2j, 2j+1 in one shared sector: 16.
  CHECK(lp::hw::bypass_sectors(sm90, cg, lanes([](int64_t t) { return 128 * (t / 8) + 16 * ((t % 8) ^ (t / 8)); })).sectors == 16);
  // Rows at pitch 144: rows 1 and 3 start 16 bytes into a sector, so each of their 4 global sectors
  // lands in 2 shared sectors: 4 + 8 + 4 + 8 = 24. Lanes 8, 9 (bytes 144..175) are the first split.
  auto padded = lp::hw::bypass_sectors(sm90, cg, lanes([](int64_t t) { return 144 * (t / 8) + 16 * (t % 8); }));
  CHECK(padded.sectors == 24);
  CHECK(padded.ideal == 16);
  REQUIRE(padded.split_lane);
  CHECK(*padded.split_lane == 8);
  CHECK(padded.split_shared_sectors == std::vector<int64_t>{4, 5});
  CHECK(padded.split_lanes == std::vector<int>{8, 9});
  // A 16-byte offset splits every global sector: 32.
  CHECK(lp::hw::bypass_sectors(sm90, cg, lanes([](int64_t t) { return 16 + 16 * t; })).sectors == 32);
  // Every lane writing one address is one write: one sector.
  auto same = lp::hw::bypass_sectors(sm90, cg, lanes([](int64_t) { return 0; }));
  CHECK(same.sectors == 1);
  CHECK(same.ideal == 1);
  // With a global side: each lane its own line, so its own global sector: 32, whatever the shared side.
  CHECK(lp::hw::bypass_sectors(sm90, cg, lanes([](int64_t t) { return 16 * t; }), lanes([](int64_t t) { return 128 * t; })).sectors ==
        32);
  CHECK_THROWS_WITH(lp::hw::bypass_sectors(sm90, lp::hw::smem_instr("cp.async.ca.16"), lanes([](int64_t t) { return 16 * t; })),
                    Catch::Contains("cp.async.cg only"));
}
