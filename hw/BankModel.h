#pragma once
// Exact shared-memory wavefronts of one warp-wide instruction (rules: hw/README.md, sources and
// status: docs/hardware.md).
//
// Each phase costs the largest number of distinct 4-byte words any one bank must deliver in it
// (at least 1); the instruction costs the sum over its phases. Lanes touching one word share it
// (broadcast), whatever part of the word they touch. The ideal is the number of phases the
// hardware uses for this instruction and these addresses (after load merging): no access can
// take fewer, since every phase costs at least one wavefront and a phase never carries more
// than 128 bytes of distinct data.
#include <cstdint>
#include <vector>

#include "hw/Arch.h"
#include "hw/SmemInstr.h"

namespace lp::hw {

inline constexpr int kWarpLanes = 32;

struct PhaseCost {
  std::vector<int> lanes;       ///< lanes whose addresses the phase serves
  int64_t wavefronts = 1;       ///< distinct words of the busiest bank (>= 1), plus the phase overhead
  int bank = 0;                 ///< the busiest bank (lowest-numbered on ties)
  std::vector<int64_t> words;   ///< the distinct word indices (byte offset / 4) it delivers, ascending
};

struct AccessCost {
  int64_t wavefronts = 0;  ///< sum over phases
  int64_t ideal = 0;       ///< number of phases (times 1 + overhead for cp.async)
  bool conflict_free = false;  ///< wavefronts == ideal
  bool merged = false;     ///< a 64/128-bit load that ran merged
  std::vector<PhaseCost> phases;
};

/// True when a mergeable load on `arch` merges: every lane t reads the same address as lane
/// t^1, or every lane t reads the same address as lane t^2.
bool loads_merge(const Arch& arch, const SmemInstr& instr, const std::vector<int64_t>& addresses);

/// Checks the instruction exists on `arch`, that there are 32 addresses, and that every
/// address the instruction reads is aligned to its access and lies inside the block's shared
/// memory. Throws HwError naming the lane and the rule it breaks.
void validate_access(const Arch& arch, const SmemInstr& instr, const std::vector<int64_t>& addresses);

/// Validates (see validate_access), then computes the cost. `addresses` are byte offsets of
/// lanes 0..31 from a 1024-byte-aligned base; lanes the instruction does not read are ignored.
AccessCost smem_access_cost(const Arch& arch, const SmemInstr& instr, const std::vector<int64_t>& addresses);

/// Lanes of a warp, bit t for lane t.
using LaneMask = uint32_t;
inline constexpr LaneMask kAllLanes = ~LaneMask{0};

/// The same for a warp where only the lanes in `active` execute the instruction (a guard
/// predicate, divergent control flow): the others give no address and fetch nothing, only the
/// active lanes' addresses are validated, and a mergeable load merges only with every lane
/// active (partial-warp merging was not measured). The ideal is the instruction's phase count,
/// as for a full warp.
AccessCost smem_access_cost(const Arch& arch, const SmemInstr& instr, const std::vector<int64_t>& addresses,
                            LaneMask active);

}  // namespace lp::hw
