#include "bench/ParametricSet.h"

#include <fmt/format.h>

#include "analyzer/parse/Parsers.h"
#include "hw/Arch.h"
#include "hw/SmemInstr.h"
#include "solver/Coverage.h"
#include "solver/Injectivity.h"
#include "solver/ParametricConflicts.h"

namespace lp::bench {

namespace {

ParamSpec range(const char* name, int64_t lo, int64_t hi, int64_t multiple = 1) { return ParamSpec{name, lo, hi, multiple}; }

ParametricCase injective(std::string family, std::string name, std::string layout, std::vector<ParamSpec> params,
                         std::vector<ParamSpec> small, bool holds) {
  ParametricCase c;
  c.family = std::move(family);
  c.name = std::move(name);
  c.property = ParametricProperty::Injective;
  c.layout = std::move(layout);
  c.params = std::move(params);
  c.small = std::move(small);
  c.holds = holds;
  return c;
}

ParametricCase covers(std::string family, std::string name, std::string layout, int64_t to, std::vector<ParamSpec> params,
                      std::vector<ParamSpec> small, bool holds) {
  ParametricCase c = injective(std::move(family), std::move(name), std::move(layout), std::move(params), std::move(small), holds);
  c.property = ParametricProperty::Covers;
  c.covers_to = to;
  return c;
}

ParametricCase access(std::string family, std::string name, std::string smem, std::string dtype, std::string lanes,
                      std::string instr, int64_t base_align, std::vector<ParamSpec> params, std::vector<ParamSpec> small,
                      bool holds) {
  ParametricCase c = injective(std::move(family), std::move(name), std::move(smem), std::move(params), std::move(small), holds);
  c.property = ParametricProperty::ConflictFree;
  c.dtype = std::move(dtype);
  c.lanes = std::move(lanes);
  c.instr = std::move(instr);
  c.base_align = base_align;
  return c;
}

// ldmatrix.x4: lanes 8k..8k+7 give the rows 0..7 of matrix k, whose columns start at 8k.
constexpr const char* kLdmatrixRows = "(_8,_4):(_1@0,_8@1)";

// The bank-conflict cases (the last of make_cases' three families), appended to `v`.
void add_bank_conflict_cases(std::vector<ParametricCase>& v) {
  // ---- Bank conflicts (sm_90 model: 32 banks of 4 bytes; 16-byte accesses in phases of 8 lanes;
  // a block has at most 232448 bytes of shared memory, so a pitch range ends where the rows the
  // lanes touch still fit: past that every value is refuted by the bound, as it should be).
  // A column of f32 at pitch P: lane l reads word l*P, bank l*P mod 32: 32 distinct banks exactly
  // when P is odd. P=32 (every lane in bank 0) is the first value.
  v.push_back(access("pitch", "f32-column-P", "(_32,_32):(P,_1)", "f32", "(_32):(_1@0)", "ld.shared.b32", 128,
                     {range("P", 32, 65536)}, {range("P", 32, 40)}, false));
  // Rows up to 31 at pitch 2Q+1 <= 1801 words fit.
  v.push_back(access("pitch", "f32-column-odd", "(_32,_32):(2*Q+1,_1)", "f32", "(_32):(_1@0)", "ld.shared.b32", 128,
                     {range("Q", 16, 900)}, {range("Q", 16, 24)}, true));
  // From P=33 (odd, conflict-free) the first failure is P=34 (two lanes a bank).
  v.push_back(access("pitch", "f32-column-from-33", "(_32,_32):(P,_1)", "f32", "(_32):(_1@0)", "ld.shared.b32", 128,
                     {range("P", 33, 65536)}, {range("P", 33, 40)}, false));
  // f16 8x8 matrices at row pitch 2D+16 bytes = 16 mod 128 (D a multiple of 64): the 8 rows of a
  // matrix fall in 8 distinct 16-byte bank groups.
  v.push_back(access("padded pitch", "ldmatrix-D+8", "(_64,D):(D+8,_1)", "f16", kLdmatrixRows, "ldmatrix.x4", 128,
                     {range("D", 64, 1024, 64)}, {range("D", 64, 192, 64)}, true));
  // Unpadded, the row pitch 2D bytes is 0 mod 128: all 8 rows in one group, 8 wavefronts a matrix.
  v.push_back(access("padded pitch", "ldmatrix-D", "(_64,D):(D,_1)", "f16", kLdmatrixRows, "ldmatrix.x4", 128,
                     {range("D", 64, 1024, 64)}, {range("D", 64, 192, 64)}, false));
  // Pitch P = 16Q+8 elements: 2P = 32Q+16 bytes, an odd multiple of 16: rows r*2P mod 128 are 8
  // distinct 16-byte groups. Rows 0..7 at pitch 2P <= 32016 bytes fit.
  v.push_back(access("padded pitch", "ldmatrix-16Q+8", "(_64,_64):(16*Q+8,_1)", "f16", kLdmatrixRows, "ldmatrix.x4", 128,
                     {range("Q", 4, 1000)}, {range("Q", 4, 12)}, true));
  // Pitch 8Q: 16Q bytes; an even Q repeats a group within 8 rows. Q=8 is the first value; from Q=9 on, Q=10.
  v.push_back(access("padded pitch", "ldmatrix-8Q", "(_64,_64):(8*Q,_1)", "f16", kLdmatrixRows, "ldmatrix.x4", 128,
                     {range("Q", 8, 8191)}, {range("Q", 8, 12)}, false));
  v.push_back(access("padded pitch", "ldmatrix-8Q-from-9", "(_64,_64):(8*Q,_1)", "f16", kLdmatrixRows, "ldmatrix.x4", 128,
                     {range("Q", 9, 8191)}, {range("Q", 9, 14)}, false));
  // 16-byte vectors: the 8 lanes of a phase read one row's 128 contiguous bytes, whatever the
  // pitch (a multiple of 4 keeps rows 16-byte aligned); 4 rows at pitch <= 16384 words fit.
  v.push_back(access("vector width", "v4-rows-P", "(_4,_32):(P,_1)", "f32", "(_8,_4):(_4@1,_1@0)", "ld.shared.v4.b32", 128,
                     {range("P", 32, 16384, 4)}, {range("P", 32, 64, 4)}, true));
  // 8-byte vectors: the 16 lanes of a half warp read one row's 128 contiguous bytes; 2 rows at
  // pitch <= 32768 words fit.
  v.push_back(access("vector width", "v2-rows-P", "(_2,_32):(P,_1)", "f32", "(_16,_2):(_2@1,_1@0)", "ld.shared.v2.b32", 128,
                     {range("P", 32, 32768, 2)}, {range("P", 32, 48, 2)}, true));
  // Past the end of shared memory: the last lane's 16 bytes start at 4*(3P+28) and must end by
  // 232448, so 12P + 128 <= 232448: P = 19360 fits, the next multiple of 4, 19364, is the first failure.
  v.push_back(access("vector width", "v4-rows-past-smem", "(_4,_32):(P,_1)", "f32", "(_8,_4):(_4@1,_1@0)",
                     "ld.shared.v4.b32", 128, {range("P", 19300, 65536, 4)}, {range("P", 19300, 19400, 4)}, false));
  // Issue counts: issue q reads rows 32q..32q+31 of column 0. At pitch 33 words every issue's 32
  // rows fall in 32 banks; at pitch 32 all in bank 0 (N=1 fails); with 128 rows, issue 4 (N=5)
  // reads past the buffer.
  v.push_back(access("issue count", "issues-pitch-33", "(_1024,_32):(_33,_1)", "f32", "(_32,N):(_1@0,_32@0)", "ld.shared.b32",
                     128, {range("N", 1, 32)}, {range("N", 1, 4)}, true));
  v.push_back(access("issue count", "issues-pitch-32", "(_1024,_32):(_32,_1)", "f32", "(_32,N):(_1@0,_32@0)", "ld.shared.b32",
                     128, {range("N", 1, 32)}, {range("N", 1, 4)}, false));
  v.push_back(access("issue count", "issues-past-buffer", "(_128,_32):(_33,_1)", "f32", "(_32,N):(_1@0,_32@0)",
                     "ld.shared.b32", 128, {range("N", 1, 8)}, {range("N", 1, 6)}, false));
  // The 128-byte TMA/GMMA swizzle over M rows: row r's 16-byte group k becomes k ^ (r mod 8), 8
  // distinct groups for the 8 rows of a matrix; M only sets how many rows exist. Without it, the
  // row pitch of 128 bytes puts all 8 rows in one group (M=8 fails).
  v.push_back(access("swizzled rows", "byte-swizzle-rows", "Sw<3,4,3> o smem_ptr[16b](unset) o (M,_64):(_64,_1)", "f16",
                     kLdmatrixRows, "ldmatrix.x4", 1024, {range("M", 8, 4096, 8)}, {range("M", 8, 32, 8)}, true));
  v.push_back(access("swizzled rows", "unswizzled-rows", "(M,_64):(_64,_1)", "f16", kLdmatrixRows, "ldmatrix.x4", 1024,
                     {range("M", 8, 4096, 8)}, {range("M", 8, 32, 8)}, false));
  // An element swizzle Sw<3,3,3> at pitch 64(2Q+1): offset bits 6..8 of row r are r(2Q+1) mod 8,
  // distinct over 8 rows, and xor the 16-byte group: conflict-free. At pitch 64Q an even Q
  // repeats them (Q=2 is the first).
  // Rows 0..7 at pitch 2(128Q+64) bytes fit up to Q=120.
  v.push_back(access("swizzled pitch", "swizzle-odd-pitch", "Sw<3,3,3> o _0 o (_8,_64):(128*Q+64,_1)", "f16", kLdmatrixRows,
                     "ldmatrix.x4", 128, {range("Q", 1, 120)}, {range("Q", 1, 6)}, true));
  v.push_back(access("swizzled pitch", "swizzle-pitch-64Q", "Sw<3,3,3> o _0 o (_8,_64):(64*Q,_1)", "f16", kLdmatrixRows,
                     "ldmatrix.x4", 128, {range("Q", 1, 2048)}, {range("Q", 1, 6)}, false));
  // The same with the byte-address swizzle: bits 7..9 of 128r(2Q+1) are r(2Q+1) mod 8.
  v.push_back(access("swizzled pitch", "byte-swizzle-odd-pitch", "Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(128*Q+64,_1)",
                     "f16", kLdmatrixRows, "ldmatrix.x4", 1024, {range("Q", 1, 120)}, {range("Q", 1, 6)}, true));
  v.push_back(access("swizzled pitch", "byte-swizzle-pitch-64Q", "Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(64*Q,_1)",
                     "f16", kLdmatrixRows, "ldmatrix.x4", 1024, {range("Q", 1, 2048)}, {range("Q", 1, 6)}, false));
  // 8-byte loads in half-warp phases: lane l's slot l*P mod 16 is distinct over 16 lanes exactly
  // when P is odd; P=16 fails first. Rows up to 31 at pitch 2Q+1 <= 921 doubles fit.
  v.push_back(access("pitch", "f64-column-P", "(_32,_16):(P,_1)", "f64", "(_32):(_1@0)", "ld.shared.v2.b32", 128,
                     {range("P", 16, 65536)}, {range("P", 16, 20)}, false));
  v.push_back(access("pitch", "f64-column-odd", "(_32,_16):(2*Q+1,_1)", "f64", "(_32):(_1@0)", "ld.shared.v2.b32", 128,
                     {range("Q", 8, 460)}, {range("Q", 8, 14)}, true));
}

std::vector<ParametricCase> make_cases() {
  std::vector<ParametricCase> v;
  // ---- Injectivity. Offsets are sums of coordinate x stride; "mixed radix" below means each
  // mode's stride is at least the span of the modes below it, so every offset has one coordinate.
  // Row-major: m*N + n with n < N is mixed radix.
  v.push_back(injective("row-major", "rowmajor-MxN", "(M,N):(N,_1)", {range("M", 1, 4096), range("N", 1, 4096)},
                        {range("M", 1, 6), range("N", 1, 6)}, true));
  // Column-major: m + n*M with m < M.
  v.push_back(injective("column-major", "colmajor-MxN", "(M,N):(_1,M)", {range("M", 1, 4096), range("N", 1, 4096)},
                        {range("M", 1, 6), range("N", 1, 6)}, true));
  v.push_back(injective("column-major", "colmajor-Mx64", "(M,_64):(_1,M)", {range("M", 1, 65536)}, {range("M", 1, 12)}, true));
  v.push_back(injective("column-major", "colmajor-2^20", "(M,N):(_1,M)", {range("M", 1, 1 << 20), range("N", 1, 1 << 20)},
                        {range("M", 1, 5), range("N", 1, 5)}, true));
  // Rows of 64 at stride 32: (1,0) and (0,32) are both 32 once there are two rows; M=1 is one row.
  v.push_back(injective("row-major", "short-pitch", "(M,_64):(_32,_1)", {range("M", 1, 4096)}, {range("M", 1, 6)}, false));
  // (M,2):(2,M): 2m + M*b; with M=1 only m=0 exists (offsets 0, 1); at M=2, (1,0) and (0,1) are both 2.
  v.push_back(injective("column-major", "interleave-M", "(M,_2):(_2,M)", {range("M", 1, 1024)}, {range("M", 1, 6)}, false));
  // 2m + (2M+1)b: 2m <= 2M-2 < 2M+1, mixed radix.
  v.push_back(injective("column-major", "interleave-2M+1", "(M,_2):(_2,2*M+1)", {range("M", 1, 1024)}, {range("M", 1, 6)}, true));
  // Padded pitches: the row stride D+8 (or 2*D) is at least the row's D elements.
  v.push_back(injective("padded pitch", "pitch-D+8", "(_64,D):(D+8,_1)", {range("D", 8, 256, 8)}, {range("D", 8, 48, 8)}, true));
  v.push_back(injective("padded pitch", "pitch-2D", "(_8,D):(2*D,_1)", {range("D", 1, 4096)}, {range("D", 1, 8)}, true));
  // Row stride D/2+4 is below the row's D elements once D > 8: (1,0) and (0,D/2+4) collide; D=16 is the first value.
  v.push_back(injective("padded pitch", "pitch-D/2+4", "(_16,D):(D/2+4,_1)", {range("D", 16, 256, 16)},
                        {range("D", 16, 64, 16)}, false));
  // Column pitch M+1 > M rows: mixed radix.
  v.push_back(injective("padded pitch", "colpitch-M+1", "(M,_32):(_1,M+1)", {range("M", 1, 65536)}, {range("M", 1, 10)}, true));
  // Column pitch M-1 < M rows: m = M-1 in column 0 meets column 1's row 0; the first value M=2 fails.
  v.push_back(injective("padded pitch", "colpitch-M-1", "(M,_32):(_1,M-1)", {range("M", 2, 65536)}, {range("M", 2, 10)}, false));
  // D/2 rows of a column-major D/2 x 2 tile: mixed radix.
  v.push_back(injective("divided", "half-colmajor", "(D/2,_2):(_1,D/2)", {range("D", 2, 512, 2)}, {range("D", 2, 16, 2)}, true));
  // 2i + (D/2)j with i < D/4: 2i <= D/2 - 2 < D/2, mixed radix.
  v.push_back(injective("divided", "quarter-pitch", "(D/4,_4):(_2,D/2)", {range("D", 4, 512, 4)}, {range("D", 4, 32, 4)}, true));
  // Batches of M x N row-major tiles at the product M*N: mixed radix.
  v.push_back(injective("products", "batch-M*N", "(M,N,_2):(N,_1,M*N)", {range("M", 1, 1024), range("N", 1, 1024)},
                        {range("M", 1, 5), range("N", 1, 5)}, true));
  // Batch stride M*N-1: (0,M-1,N-1) = M*N-1 = batch 1's first; M=N=1 (both 0) already fails.
  v.push_back(injective("products", "batch-M*N-1", "(M,N,_2):(N,_1,M*N-1)", {range("M", 1, 1024), range("N", 1, 1024)},
                        {range("M", 1, 4), range("N", 1, 4)}, false));
  // Blocked: 8x8 blocks, M of them down (stride 64), N across (stride 64*M): r + 8c + 64m + 64Mn is mixed radix.
  v.push_back(injective("blocked tiling", "blocked-8x8", "((_8,M),(_8,N)):((_1,_64),(_8,64*M))",
                        {range("M", 1, 64), range("N", 1, 64)}, {range("M", 1, 4), range("N", 1, 3)}, true));
  // Blocks down at stride 8 overlap columns (stride 64) once M > 8: (m=8) meets (c=1); the first is M=9, N=1.
  v.push_back(injective("blocked tiling", "blocked-overlap", "((_8,M),(_8,N)):((_1,_8),(_64,64*M))",
                        {range("M", 1, 64), range("N", 1, 64)}, {range("M", 1, 10), range("N", 1, 2)}, false));
  // Stages: S tiles of 64x64 at 4096 apart, or at a parametric stage stride P >= 4096 (the tile's span).
  v.push_back(injective("stage offsets", "stages-S", "(_64,_64,S):(_64,_1,_4096)", {range("S", 1, 16)}, {range("S", 1, 3)}, true));
  v.push_back(injective("stage offsets", "stage-stride-P", "(_64,_64,_4):(_64,_1,P)", {range("P", 4096, 65536, 64)},
                        {range("P", 4096, 4096 + 64 * 3, 64)}, true));
  // A stage stride of 2048 lands on the tile's row 32; P=2048 is the first value.
  v.push_back(injective("stage offsets", "stage-stride-short", "(_64,_64,_4):(_64,_1,P)", {range("P", 2048, 65536, 64)},
                        {range("P", 2048, 2048 + 64 * 2, 64)}, false));
  // A swizzle is a bijection of the offsets: injective exactly when its row-major core is.
  v.push_back(injective("swizzled rows", "swizzle-rows", "Sw<3,4,3> o _0 o (M,_64):(_64,_1)", {range("M", 8, 4096, 8)},
                        {range("M", 8, 32, 8)}, true));
  // ... and not when the core is not: rows of 64 at stride 32 collide from M=2 on (M=1: one row).
  v.push_back(injective("swizzled rows", "swizzle-short-pitch", "Sw<3,4,3> o _0 o (M,_64):(_32,_1)", {range("M", 1, 4096)},
                        {range("M", 1, 5)}, false));
  // TIRx, row-major M x 64.
  v.push_back(injective("row-major", "tirx-rows", "S[(M, 64) : (64, 1)]", {range("M", 1, 65536)}, {range("M", 1, 6)}, true));
  // Two rows at pitch M of M elements: mixed radix.
  v.push_back(injective("row-major", "two-rows-2^20", "(_2,M):(M,_1)", {range("M", 1, 1 << 20)}, {range("M", 1, 8)}, true));

  // ---- Coverage of offsets 0..255.
  // 4 x M column-major: offsets 0..4M-1, all of 0..255 once M >= 64.
  v.push_back(covers("coverage", "cover-4xM", "(_4,M):(_1,_4)", 255, {range("M", 64, 1024)}, {range("M", 64, 70)}, true));
  // M=32 reaches 0..127 only; 32 is the first value.
  v.push_back(covers("coverage", "cover-4xM-short", "(_4,M):(_1,_4)", 255, {range("M", 32, 1024)}, {range("M", 32, 40)}, false));
  // 16 rows at pitch M of M elements: 0..16M-1, all of 0..255 once M >= 16.
  v.push_back(covers("coverage", "cover-rows", "(_16,M):(M,_1)", 255, {range("M", 16, 256)}, {range("M", 16, 24)}, true));
  v.push_back(covers("coverage", "cover-rows-short", "(_16,M):(M,_1)", 255, {range("M", 8, 256)}, {range("M", 8, 16)}, false));
  // Pitch M+1 leaves offset M of every row pitch unwritten: offset M in 16..255 is a hole.
  v.push_back(covers("coverage", "cover-padded-hole", "(_16,M):(M+1,_1)", 255, {range("M", 16, 255)}, {range("M", 16, 20)}, false));

  add_bank_conflict_cases(v);
  return v;
}

}  // namespace

const std::vector<ParametricCase>& parametric_cases() {
  static const std::vector<ParametricCase> cases = make_cases();
  return cases;
}

const char* parametric_property_name(ParametricProperty p) {
  switch (p) {
    case ParametricProperty::Injective: return "injectivity";
    case ParametricProperty::Covers: return "coverage";
    case ParametricProperty::ConflictFree: return "bank-conflicts";
  }
  return "?";
}

ParametricDecision decide_case(const ParametricCase& c, const std::vector<ParamSpec>& specs, Engine engine,
                               const SolverLimits& limits) {
  const ParsedLayout parsed = parse_layout_text(c.layout, "<" + c.name + ">", std::nullopt, &specs);
  const Parametric params{specs, parsed.param_uses};
  ParametricDecision d;
  switch (c.property) {
    case ParametricProperty::Injective: {
      InjectivityResult r = prove_injective(parsed.layout, engine, limits, &params);
      if (r.witness) d.failing_values = r.witness->params;
      d.outcome = r;
      return d;
    }
    case ParametricProperty::Covers: {
      CoverageResult r = prove_covers(parsed.layout, {AxisRange{Axis::memory(), 0, c.covers_to}}, engine, limits, &params);
      if (r.witness) d.failing_values = r.witness->params;
      d.outcome = r;
      return d;
    }
    case ParametricProperty::ConflictFree: break;
  }
  const ParsedLayout lanes = parse_layout_text(c.lanes, "<lanes>", std::nullopt, &specs);
  const Parametric lane_params{specs, lanes.param_uses};
  std::vector<size_t> every(specs.size());
  for (size_t i = 0; i < every.size(); ++i) every[i] = i;
  const int bits = dtype_bits(c.dtype);
  const hw::SmemInstr& instr = hw::smem_instr(c.instr);
  const hw::Arch& arch = hw::default_arch();
  const auto decided = prove_conflict_free_over_values(
      ParametricConflictQuery{specs,
                              [&](const std::vector<int64_t>& v) {
                                return SmemAccess(instantiate(parsed.layout, params, v), bits,
                                                  instantiate(lanes.layout, lane_params, v), instr, arch, c.base_align);
                              },
                              affine_stride_params(params, lane_params, every)},
      engine, limits);
  d.outcome.engine = engine;
  if (!decided) {
    d.outcome.reason = fmt::format("more than {} instances", kMostConflictInstances);
    return d;
  }
  d.outcome.verdict = Verdict::Proven;
  int64_t worst = 0;
  for (const ConflictInstance& inst : decided->instances) {
    const bool valid = inst.invalid.empty();
    if (valid && inst.result.verdict == Verdict::Proven) {
      worst = std::max(worst, inst.result.wavefronts);
      continue;
    }
    d.outcome.verdict = valid ? inst.result.verdict : Verdict::Refuted;
    d.outcome.reason = valid ? inst.result.reason : inst.invalid;
    if (d.outcome.verdict == Verdict::Refuted) d.failing_values = inst.values;
    return d;
  }
  d.outcome.reason = decided->reduction.empty()
                         ? fmt::format("{} instances, worst {} wavefronts", decided->instances.size(), worst)
                         : fmt::format("{} values: {}; worst {} wavefronts", decided->value_vectors, decided->reduction, worst);
  return d;
}

}  // namespace lp::bench
