#pragma once
// The shared-memory instructions the bank model knows, and how each splits into phases.
//
// Phase rules (docs/hardware.md, measured on sm_90):
//   - 8/16/32-bit per-lane accesses: one phase of all 32 lanes;
//   - 64-bit: lanes 0-15 and 16-31; 128-bit: lanes 0-7, 8-15, 16-23, 24-31;
//   - ldmatrix/stmatrix .xN: one phase per 8x8 matrix k, made of the 16-byte rows whose
//     addresses lanes 8k..8k+7 give; lanes >= 8N give no address;
//   - a merged 64-bit load is one phase of 32 lanes, a merged 128-bit load two phases of 16.
// cp.async (LDGSTS) shared-memory writes, measured on an H100 with scripts/gpu (docs/hardware.md,
// "cp.async"): the phases of a store of the same width, no broadcast (every lane's write to a word
// counts). `.ca` phases further split by the global lines their sources lie in (hw/BankModel.h);
// the hardware's shared-memory wavefront counters do not count `.cg` writes at all.
#include <string>
#include <string_view>
#include <vector>

#include "hw/Arch.h"

namespace lp::hw {

enum class SmemDirection { Load, Store };

/// Per-lane accesses (ld/st.shared, cp.async) or matrix-row accesses (ldmatrix/stmatrix).
enum class AccessKind { PerLane, MatrixRows };

/// cp.async's cache qualifier: `.ca` (LDGSTS.E*, through L1) or `.cg` (LDGSTS.E.BYPASS.128, L2 only).
enum class AsyncCopy { None, CacheAll, CacheGlobal };

/// One catalog entry. Invariant: bytes is a power of two in [1,16]; matrices is 1, 2 or 4 for
/// MatrixRows (bytes == 16) and 0 for PerLane; mergeable only for 64/128-bit PerLane loads.
struct SmemInstr {
  std::string_view name;  ///< the CLI name, e.g. "ld.shared.v4.b32", "ldmatrix.x4.trans"
  SmemDirection direction = SmemDirection::Load;
  AccessKind kind = AccessKind::PerLane;
  int bytes = 4;      ///< bytes at each address (one lane's access, or one matrix row)
  int matrices = 0;   ///< ldmatrix/stmatrix .x1/.x2/.x4
  bool trans = false;
  bool mergeable = false;
  int min_sm = 0;     ///< first architecture with the instruction (PTX ISA)
  bool broadcast = true;  ///< lanes touching one word share it (false: each lane's access counts)
  AsyncCopy async = AsyncCopy::None;  ///< a cp.async form (global -> shared), else None
  bool measured = false;  ///< phase rule measured on sm_90 rather than assumed
  std::string_view sass;  ///< what it compiles to on sm_90, for the probes and the docs
};

/// Throws HwError listing the known names when `name` is unknown, and naming the forms that
/// replace it when `name` is a retired one (cp.async.4/.8/.16: say .ca or .cg).
const SmemInstr& smem_instr(std::string_view name);
/// Whether `arch` has the instruction (the PTX ISA's target requirement, SmemInstr::min_sm).
bool available_on(const SmemInstr& instr, const Arch& arch);
const std::vector<SmemInstr>& smem_instr_catalog();

/// Lanes whose addresses the instruction reads: all 32, or 8 per matrix.
int address_lane_count(const SmemInstr& instr);

/// The lanes of each phase, in order. `merged` selects the merged split of a mergeable load.
std::vector<std::vector<int>> phase_lanes(const SmemInstr& instr, bool merged);

}  // namespace lp::hw
