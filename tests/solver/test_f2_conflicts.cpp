// The F2 bank-conflict engine against the enumeration engine (the hardware model applied to
// every issue and base) on generated accesses, and against the H200 calibration rows.
#include <catch2/catch.hpp>
#include <random>

#include "analyzer/parse/Parsers.h"
#include "hw/Arch.h"
#include "solver/BankConflicts.h"

namespace {

using Rng = std::mt19937_64;
int64_t pick(Rng& rng, int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); }
int log2i(int64_t v) { return 63 - __builtin_clzll(static_cast<uint64_t>(v)); }

struct Generated {
  std::string smem, lanes, instr, arch;
  int bits = 16;
  int64_t align = 128;
  bool row_major = false;
};

// A power-of-two tile (contiguous mode K elements, other mode M), sometimes padded (not
// F2-linear), nested, element-swizzled or byte-swizzled; a lane map sending each lane and issue
// bit to a distinct coordinate bit, to nothing (broadcast), or occasionally somewhere that
// breaks alignment, range or linearity.
Generated generate(Rng& rng) {
  static const char* kInstrs[] = {"ld.shared.u8",      "ld.shared.u16",     "ld.shared.b32",    "ld.shared.v2.b32",
                                  "ld.shared.v4.b32",  "st.shared.u8",      "st.shared.u16",    "st.shared.b32",
                                  "st.shared.v2.b32",  "st.shared.v4.b32",  "ldmatrix.x1",      "ldmatrix.x2",
                                  "ldmatrix.x4",       "ldmatrix.x1.trans", "ldmatrix.x2.trans", "ldmatrix.x4.trans",
                                  "stmatrix.x1",       "stmatrix.x2",       "stmatrix.x4",      "stmatrix.x4.trans",
                                  "cp.async.ca.4",     "cp.async.ca.8",     "cp.async.ca.16",   "cp.async.cg.16"};
  Generated g;
  g.instr = kInstrs[pick(rng, 0, static_cast<int64_t>(std::size(kInstrs)) - 1)];
  const auto& in = lp::hw::smem_instr(g.instr);
  g.arch = pick(rng, 0, 7) == 0 ? "sm_80" : "sm_90";
  std::vector<int> widths;
  for (int b : {8, 16, 32})
    if (b / 8 <= in.bytes) widths.push_back(b);
  g.bits = in.kind == lp::hw::AccessKind::MatrixRows && pick(rng, 0, 3) ? 16 : widths[static_cast<size_t>(pick(rng, 0, static_cast<int64_t>(widths.size()) - 1))];
  const int eb = g.bits / 8;
  const int64_t n = std::max(1, in.bytes / eb);
  const int64_t K = (int64_t{1} << pick(rng, 5, 8)) / eb, M = int64_t{1} << pick(rng, 3, 6);
  const int cd = static_cast<int>(pick(rng, 0, 3) == 0 ? 0 : 1), od = 1 - cd;  // contiguous / other mode
  const int64_t pitch = K + (pick(rng, 0, 9) == 0 ? 8 : 0);
  std::string other = "_" + std::to_string(M), other_stride = "_" + std::to_string(pitch);
  if (M >= 16 && pick(rng, 0, 3) == 0) {
    other = "(_8,_" + std::to_string(M / 8) + ")";
    other_stride = "(_" + std::to_string(pitch) + ",_" + std::to_string(8 * pitch) + ")";
  }
  std::string tile = cd == 1 ? "(" + other + ",_" + std::to_string(K) + "):(" + other_stride + ",_1)"
                             : "(_" + std::to_string(K) + "," + other + "):(_1," + other_stride + ")";
  int64_t swz = pick(rng, 0, 3);
  if (swz == 1 || swz == 2) {
    int b = static_cast<int>(pick(rng, 1, 3)), m = static_cast<int>(pick(rng, 0, 4));
    tile = "Sw<" + std::to_string(b) + "," + std::to_string(m) + "," + std::to_string(b + pick(rng, 0, 2)) + "> o _0 o " + tile;
  } else if (swz == 3) {
    tile = "Sw<" + std::to_string(pick(rng, 1, 3)) + ",4,3> o smem_ptr[" + std::to_string(g.bits) + "b](unset) o " + tile;
  }
  g.smem = tile;
  g.row_major = pick(rng, 0, 3) == 0;
  static const int64_t kAligns[] = {16, 128, 1024};
  g.align = swz == 3 ? (pick(rng, 0, 3) ? 1024 : 128) : kAligns[pick(rng, 0, 2)];
  // Lane map: 5 lane bits, then 0-3 issue bits, each one mode of extent 2.
  const bool by_index = n == 1 && pick(rng, 0, 5) == 0;
  std::vector<std::pair<int64_t, int>> pool;  // (stride, mode) of distinct coordinate bits
  if (by_index) {
    for (int b = 0; b < log2i(M * K); ++b) pool.push_back({int64_t{1} << b, -1});
  } else {
    for (int b = 0; b < log2i(M); ++b) pool.push_back({int64_t{1} << b, od});
    for (int b = log2i(n); b < log2i(K); ++b) pool.push_back({int64_t{1} << b, cd});
  }
  std::shuffle(pool.begin(), pool.end(), rng);
  const int total = 5 + static_cast<int>(pick(rng, 0, 3));
  std::string ext = "(", str = "(";
  for (int k = 0; k < total; ++k) {
    std::pair<int64_t, int> s{0, by_index ? -1 : 0};
    int64_t roll = pick(rng, 0, 99);
    if (roll < 3) s = {M, by_index ? -1 : od};  // past the tile (or a carry)
    else if (roll < 6) s = {1, by_index ? -1 : cd};  // misaligned vectors, or a duplicate
    else if (roll >= 20 && !pool.empty()) {
      s = pool.back();
      pool.pop_back();
    }
    ext += (k ? ",_2" : "_2");
    str += (k ? "," : "") + std::string("_") + std::to_string(s.first) + (by_index ? "" : "@" + std::to_string(s.second));
  }
  g.lanes = ext + "):" + str + ")";
  return g;
}

}  // namespace

TEST_CASE("bank conflicts: F2 and enumeration agree on verdict, worst wavefronts and ideal", "[solver][conflict][f2]") {
  Rng rng(41);
  int generated = 0, decided = 0, proven = 0, conflicts = 0, invalid = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    Generated g = generate(rng);
    INFO(g.smem << (g.row_major ? " (row-major index)" : "") << " | " << g.lanes << " | " << g.instr << " " << g.bits
                 << "b on " << g.arch << ", base align " << g.align);
    lp::Layout smem = lp::parse_layout_text(g.smem).layout;
    if (g.row_major) smem = smem.with_order(lp::IndexOrder::RowMajor);
    lp::SmemAccess access(smem, g.bits, lp::parse_layout_text(g.lanes).layout, lp::hw::smem_instr(g.instr),
                          lp::hw::arch_by_name(g.arch), g.align);
    ++generated;
    auto e = lp::prove_conflict_free(access, lp::Engine::Enum);
    auto f = lp::prove_conflict_free(access, lp::Engine::F2);
    INFO("enum: " << e.reason << "\nf2: " << f.reason);
    REQUIRE(e.verdict != lp::Verdict::Unknown);
    if (trial % 10 == 0) REQUIRE(lp::prove_conflict_free(access, lp::Engine::Auto).verdict == e.verdict);
    if (f.verdict == lp::Verdict::Unknown) {
      REQUIRE(f.reason.find("internal error") == std::string::npos);
      continue;
    }
    ++decided;
    REQUIRE(f.engine == lp::Engine::F2);
    REQUIRE(f.verdict == e.verdict);
    REQUIRE(f.access.has_value() == e.access.has_value());
    if (e.access) {
      ++invalid;
      continue;
    }
    REQUIRE(f.wavefronts == e.wavefronts);
    REQUIRE(f.ideal == e.ideal);
    REQUIRE(f.conflict.has_value() == (f.verdict == lp::Verdict::Refuted));
    if (f.conflict) REQUIRE(f.conflict->wavefronts > f.conflict->ideal);
    (f.verdict == lp::Verdict::Proven ? proven : conflicts)++;
  }
  // F2 must decide most accesses (the generator's padding, carries and byte swizzles below
  // their period are the exceptions), with every kind of verdict present.
  CHECK(decided * 10 >= generated * 6);
  CHECK(proven > 200);
  CHECK(conflicts > 200);
  CHECK(invalid > 50);
}

TEST_CASE("bank conflicts: F2 on hand-made accesses", "[solver][conflict][f2]") {
  const auto& sm90 = lp::hw::arch_by_name("sm_90");
  auto run = [&](const char* smem, int bits, const char* lanes, const char* instr, int64_t align) {
    lp::SmemAccess a(lp::parse_layout_text(smem).layout, bits, lp::parse_layout_text(lanes).layout, lp::hw::smem_instr(instr),
                     sm90, align);
    return lp::prove_conflict_free(a, lp::Engine::F2);
  };
  // ldmatrix.x4 over a 128-byte-swizzled fp16 tile: conflict-free, 4 wavefronts.
  auto ok = run("Sw<3,4,3> o smem_ptr[16b](unset) o (_32,_64):(_64,_1)", 16, "(_16,_2,_2):(_1@0,_8@1,_16@0)",
                "ldmatrix.x4", 1024);
  REQUIRE(ok.verdict == lp::Verdict::Proven);
  CHECK(ok.wavefronts == 4);
  // The same without the swizzle: the 8 rows of a matrix share 128-byte-aligned columns (8-way).
  auto bad = run("(_32,_64):(_64,_1)", 16, "(_16,_2,_2):(_1@0,_8@1,_16@0)", "ldmatrix.x4", 1024);
  REQUIRE(bad.verdict == lp::Verdict::Refuted);
  CHECK(bad.wavefronts == 32);
  CHECK(bad.ideal == 4);
  // Column read of fp32 with a 32-word pitch: 32 words on one bank.
  auto col = run("(_32,_32):(_32,_1)", 32, "(_32):(_1@0)", "ld.shared.b32", 128);
  CHECK(col.wavefronts == 32);
  // v4 loads where lanes t and t^1 read the same address merge into 2 phases.
  auto merged = run("(_32,_32):(_32,_1)", 32, "(_2,_8,_2):(_0@0,_4@1,_1@0)", "ld.shared.v4.b32", 128);
  REQUIRE(merged.verdict == lp::Verdict::Proven);
  CHECK(merged.ideal == 2);
  // cp.async.ca.4 with all lanes on one word: no broadcast, one phase of 32 writes to bank 0.
  auto async = run("(_32,_32):(_32,_1)", 32, "(_32):(_0@0)", "cp.async.ca.4", 128);
  CHECK(async.wavefronts == 32);
  CHECK(async.ideal == 1);
  // Padding is not F2-linear: Unknown, with the reason.
  auto padded = run("(_32,_64):(_72,_1)", 16, "(_16,_2,_2):(_1@0,_8@1,_16@0)", "ldmatrix.x4", 1024);
  CHECK(padded.verdict == lp::Verdict::Unknown);
  CHECK(padded.reason.find("F2 does not apply") != std::string::npos);
}
