#pragma once
// Exact shared-memory wavefronts of one warp-wide instruction (rules: docs/hardware.md, sources and
// status: docs/hardware.md).
//
// Each phase costs the largest number of distinct 4-byte words any one bank must deliver in it
// (at least 1); the instruction costs the sum over its phases. Lanes touching one word share it
// (broadcast), whatever part of the word they touch. The ideal is the number of phases the
// hardware uses for this instruction and these addresses (after load merging): no access can
// take fewer, since every phase costs at least one wavefront and a phase never carries more
// than 128 bytes of distinct data.
//
// cp.async.ca (LDGSTS through L1) also reads each source from an L1 line, in the same 32 banks, and
// looks lines up at most kAsyncTagLines at a time: given the global side, each phase splits into
// parts by those groups of lines, and a part costs the larger of its shared writes and its L1 reads
// (every lane's read counts, as every write does). Without the global side, each phase's sources are taken
// to lie in one line, as in a row-major fill. Measured: tests/data/sm90_cp_async_wavefronts.tsv.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hw/Arch.h"
#include "hw/SmemInstr.h"

namespace lp::hw {

/// Lanes of a warp (PTX ISA 9.0, section 2.2: "the warp size is 32 threads").
inline constexpr int kWarpLanes = 32;
/// Bytes of an L1 cache line (sm_80, sm_90): cp.async.ca reads its sources from such lines.
inline constexpr int64_t kL1LineBytes = 128;
/// Distinct source lines one tag-stage wavefront of a cp.async.ca looks up (sm_90, measured: ncu's
/// l1tex__t_output_wavefronts_pipe_lsu_mem_global_op_ldgsts_cache_access is 1 for 4 lines, 2 for 5, 8 for 32).
inline constexpr int kAsyncTagLines = 4;

struct PhaseCost {
  std::vector<int> lanes;       ///< lanes whose addresses the phase serves
  int64_t wavefronts = 1;       ///< distinct words of the busiest bank (>= 1; every lane's word without broadcast)
  int bank = 0;                 ///< the busiest bank (lowest-numbered on ties)
  std::vector<int64_t> words;   ///< the distinct word indices (byte offset / 4) it delivers, ascending
  /// cp.async.ca with its global side: the lines (address / kL1LineBytes) the part reads, and the
  /// reads of its busiest L1 bank; `wavefronts` is the larger of that and the write side.
  std::vector<int64_t> lines;
  int64_t read_load = 0;
};

struct AccessCost {
  int64_t wavefronts = 0;  ///< sum over phases
  int64_t ideal = 0;       ///< number of phases with an active lane (cp.async.ca with a global side: phase parts)
  bool conflict_free = false;  ///< wavefronts == ideal
  bool merged = false;     ///< a 64/128-bit load that ran merged
  std::vector<PhaseCost> phases;
};

/// A mergeable load merges when, for one x here, every (active) lane t reads the same address as
/// lane t^x (measured on sm_90, docs/hardware.md).
inline constexpr std::array<int, 2> kMergePartnerXors{1, 2};

/// Lanes of a warp, bit t for lane t.
using LaneMask = uint32_t;
inline constexpr LaneMask kAllLanes = ~LaneMask{0};
/// Lanes 0..n-1 (all of them from n = kWarpLanes on): the lanes whose addresses an instruction with
/// n address lanes reads.
inline constexpr LaneMask lanes_below(int n) { return n >= kWarpLanes ? kAllLanes : (LaneMask{1} << n) - 1; }

/// The bank words (byte address / bank_bytes) that one lane's access of `instr` at `address` touches,
/// first to last; and their banks, sorted, each once. What explain and the pages show per lane.
std::vector<int64_t> words_of(const Arch& arch, const SmemInstr& instr, int64_t address);
std::vector<int> banks_of(const Arch& arch, const SmemInstr& instr, int64_t address);

/// True when a mergeable load on `arch` merges: every active lane t reads the same address as
/// lane t^1, or every active lane t the same as lane t^2 (kMergePartnerXors), where a partner
/// that is not active does not count against it (measured on partial warps, H100:
/// tests/data/sm90_smem_partial_warps.tsv).
bool loads_merge(const Arch& arch, const SmemInstr& instr, const std::vector<int64_t>& addresses,
                 LaneMask active = kAllLanes);

/// The first active lane (below the instruction's address lanes) whose address the instruction
/// cannot use (negative, misaligned, or past the block's shared memory), and why; nullopt if none.
struct InvalidLane {
  int lane = 0;
  std::string reason;  ///< "lane 1 address 2180 is not aligned to 16 bytes (...)"
};
std::optional<InvalidLane> invalid_lane(const Arch& arch, const SmemInstr& instr, const std::vector<int64_t>& addresses,
                                        LaneMask active);

/// Checks the instruction exists on `arch`, that there are 32 addresses, and that every
/// address the instruction reads is aligned to its access and lies inside the block's shared
/// memory. Throws HwError naming the lane and the rule it breaks.
void validate_access(const Arch& arch, const SmemInstr& instr, const std::vector<int64_t>& addresses);

/// Validates (see validate_access), then computes the cost. `addresses` are byte offsets of
/// lanes 0..31 from a 1024-byte-aligned base; lanes the instruction does not read are ignored.
AccessCost smem_access_cost(const Arch& arch, const SmemInstr& instr, const std::vector<int64_t>& addresses);

/// The same for a cp.async.ca whose lanes read `global_addresses` (byte addresses, any base):
/// phases split into parts by groups of kAsyncTagLines source lines (in the order of the lowest
/// lane reading each line); a part costs max(1, its shared-write load, its L1-read load). Throws
/// HwError for any other instruction (the shared side of .cg does not depend on it in any counter)
/// and for global addresses that are not 32, negative or misaligned.
AccessCost smem_access_cost(const Arch& arch, const SmemInstr& instr, const std::vector<int64_t>& addresses,
                            const std::vector<int64_t>& global_addresses);
/// The same for a warp where only the lanes in `active` execute the instruction (a guard
/// predicate, divergent control flow): the others give no address and fetch nothing, only the
/// active lanes' addresses are validated, a phase without an active lane costs nothing and is no
/// part of the ideal (the ideal is the number of phases with an active lane), and merging looks
/// at the active lanes only (loads_merge). Measured on an H100: 29 partial warps of ld/st.shared
/// .b32, .v2 and .v4, tests/data/sm90_smem_partial_warps.tsv.
AccessCost smem_access_cost(const Arch& arch, const SmemInstr& instr, const std::vector<int64_t>& addresses,
                            LaneMask active);

}  // namespace lp::hw
