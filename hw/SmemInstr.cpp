#include "hw/SmemInstr.h"

#include "hw/HwError.h"

namespace lp::hw {

namespace {

constexpr int kWarp = 32;

SmemInstr per_lane(std::string_view name, SmemDirection dir, int bytes, int min_sm, bool measured,
                   std::string_view sass) {
  SmemInstr i;
  i.name = name;
  i.direction = dir;
  i.kind = AccessKind::PerLane;
  i.bytes = bytes;
  i.mergeable = dir == SmemDirection::Load && bytes >= 8;
  i.min_sm = min_sm;
  i.measured = measured;
  i.sass = sass;
  return i;
}

SmemInstr matrix(std::string_view name, SmemDirection dir, int matrices, bool trans, int min_sm,
                 bool measured, std::string_view sass) {
  SmemInstr i;
  i.name = name;
  i.direction = dir;
  i.kind = AccessKind::MatrixRows;
  i.bytes = 16;
  i.matrices = matrices;
  i.trans = trans;
  i.min_sm = min_sm;
  i.measured = measured;
  i.sass = sass;
  return i;
}

// cp.async's shared write side, as measured on sm_90 (tests/data/sm90_cp_async_wavefronts.tsv):
// a store's phases without broadcast. `.cg` exists for 16 bytes only (PTX ISA, cp.async); its
// shared writes are invisible to the wavefront counters, so its entry is not `measured`.
SmemInstr async_copy(std::string_view name, AsyncCopy async, int bytes, std::string_view sass) {
  SmemInstr i = per_lane(name, SmemDirection::Store, bytes, 80, async == AsyncCopy::CacheAll, sass);
  i.broadcast = false;
  i.async = async;
  return i;
}

// Names the catalog once had, and what to write instead.
struct RetiredName {
  std::string_view name, replacement;
};
constexpr RetiredName kRetired[] = {
    {"cp.async.4", "cp.async.ca.4"},
    {"cp.async.8", "cp.async.ca.8"},
    {"cp.async.16", "cp.async.ca.16 or cp.async.cg.16"},
};

std::vector<SmemInstr> build_catalog() {
  using D = SmemDirection;
  // `measured` marks the instructions docs/hardware.md measured directly; the others follow the
  // same rule by width (u8/u16 stores, .x1/.x2 stmatrix and .trans variants) or are assumed.
  return {
      per_lane("ld.shared.u8", D::Load, 1, 50, true, "LDS.U8"),
      per_lane("ld.shared.u16", D::Load, 2, 50, true, "LDS.U16"),
      per_lane("ld.shared.b32", D::Load, 4, 50, true, "LDS"),
      per_lane("ld.shared.v2.b32", D::Load, 8, 50, true, "LDS.64"),
      per_lane("ld.shared.v4.b32", D::Load, 16, 50, true, "LDS.128"),
      per_lane("st.shared.u8", D::Store, 1, 50, false, "STS.U8"),
      per_lane("st.shared.u16", D::Store, 2, 50, false, "STS.U16"),
      per_lane("st.shared.b32", D::Store, 4, 50, true, "STS"),
      per_lane("st.shared.v2.b32", D::Store, 8, 50, true, "STS.64"),
      per_lane("st.shared.v4.b32", D::Store, 16, 50, true, "STS.128"),
      matrix("ldmatrix.x1", D::Load, 1, false, 75, true, "LDSM.16.M88"),
      matrix("ldmatrix.x2", D::Load, 2, false, 75, true, "LDSM.16.M88.2"),
      matrix("ldmatrix.x4", D::Load, 4, false, 75, true, "LDSM.16.M88.4"),
      matrix("ldmatrix.x1.trans", D::Load, 1, true, 75, false, "LDSM.16.MT88"),
      matrix("ldmatrix.x2.trans", D::Load, 2, true, 75, false, "LDSM.16.MT88.2"),
      matrix("ldmatrix.x4.trans", D::Load, 4, true, 75, true, "LDSM.16.MT88.4"),
      matrix("stmatrix.x1", D::Store, 1, false, 90, false, "STSM.16.M88"),
      matrix("stmatrix.x2", D::Store, 2, false, 90, false, "STSM.16.M88.2"),
      matrix("stmatrix.x4", D::Store, 4, false, 90, true, "STSM.16.M88.4"),
      matrix("stmatrix.x1.trans", D::Store, 1, true, 90, false, "STSM.16.MT88"),
      matrix("stmatrix.x2.trans", D::Store, 2, true, 90, false, "STSM.16.MT88.2"),
      matrix("stmatrix.x4.trans", D::Store, 4, true, 90, true, "STSM.16.MT88.4"),
      async_copy("cp.async.ca.4", AsyncCopy::CacheAll, 4, "LDGSTS.E"),
      async_copy("cp.async.ca.8", AsyncCopy::CacheAll, 8, "LDGSTS.E.64"),
      async_copy("cp.async.ca.16", AsyncCopy::CacheAll, 16, "LDGSTS.E.128"),
      async_copy("cp.async.cg.16", AsyncCopy::CacheGlobal, 16, "LDGSTS.E.BYPASS.128"),
  };
}

std::vector<int> lane_range(int first, int count) {
  std::vector<int> lanes(static_cast<size_t>(count));
  for (int k = 0; k < count; ++k) lanes[static_cast<size_t>(k)] = first + k;
  return lanes;
}

}  // namespace

const std::vector<SmemInstr>& smem_instr_catalog() {
  static const std::vector<SmemInstr> kCatalog = build_catalog();
  return kCatalog;
}

const SmemInstr& smem_instr(std::string_view name) {
  for (const SmemInstr& i : smem_instr_catalog())
    if (i.name == name) return i;
  for (const RetiredName& r : kRetired)
    if (r.name == name)
      throw HwError("'" + std::string(name) + "' no longer names one instruction: cp.async's cache qualifier changes how " +
                    "the hardware writes shared memory (docs/hardware.md, \"cp.async\"); write " +
                    std::string(r.replacement) + " (the .ca/.cg in the PTX)");
  std::string known;
  for (const SmemInstr& i : smem_instr_catalog()) known += (known.empty() ? "" : ", ") + std::string(i.name);
  throw HwError("unknown shared-memory instruction '" + std::string(name) + "' (known: " + known + ")");
}

int address_lane_count(const SmemInstr& instr) {
  return instr.kind == AccessKind::MatrixRows ? 8 * instr.matrices : kWarp;
}

std::vector<std::vector<int>> phase_lanes(const SmemInstr& instr, bool merged) {
  int lanes_per_phase = kWarp;
  int phases = 1;
  if (instr.kind == AccessKind::MatrixRows) {
    lanes_per_phase = 8;
    phases = instr.matrices;
  } else if (instr.bytes > 4) {
    // 128 bytes per phase; a merged load serves twice the lanes from the same 128 bytes.
    lanes_per_phase = 128 / instr.bytes * (merged && instr.mergeable ? 2 : 1);
    phases = kWarp / lanes_per_phase;
  }
  std::vector<std::vector<int>> out;
  for (int p = 0; p < phases; ++p) out.push_back(lane_range(p * lanes_per_phase, lanes_per_phase));
  return out;
}

bool available_on(const SmemInstr& instr, const Arch& arch) { return arch.sm >= instr.min_sm; }

}  // namespace lp::hw
