#pragma once
// What a cp.async.cg (LDGSTS.E.BYPASS.128) moves from L2 to the SM. Its shared-memory writes are
// invisible to the shared wavefront counters, but its data crosses in 32-byte sectors, one for each
// (global sector, shared sector) pair its lanes' 16 bytes touch, lanes writing one shared address
// counted once. Measured on an H100 (tests/data/sm90_cp_async_wavefronts.tsv): the hardware counter
// l1tex__m_xbar2l1tex_read_sectors counts exactly these in all 43 .cg launches. A fill whose global
// sectors straddle shared sectors (rows padded by 16 bytes, a 16-byte offset) moves up to twice the
// sectors its data needs, and takes longer where the fill is bandwidth-bound (docs/hardware.md).
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "hw/Arch.h"
#include "hw/SmemInstr.h"

namespace lp::hw {

/// Bytes of an L2 / L1 sector, the unit in which data crosses from L2 to an SM (sm_80, sm_90).
inline constexpr int64_t kSectorBytes = 32;

struct BypassSectors {
  int64_t sectors = 0;  ///< L2-to-SM sectors the instruction moves
  int64_t ideal = 0;    ///< distinct global sectors its lanes read: the fewest it can move
  /// The lowest lane whose global sector lands in more than one shared sector, those shared sectors
  /// (byte address / kSectorBytes, ascending) and the lanes reading that global sector.
  std::optional<int> split_lane;
  std::vector<int64_t> split_shared_sectors;
  std::vector<int> split_lanes;
};

/// What extra sectors were measured to cost (an H100; docs/hardware.md, "cp.async", and
/// docs/data/cp_async_*_h100.tsv), for the findings that report them.
inline constexpr std::string_view kBypassSplitMeasured =
    "measured on an H100: 1.6x (rows padded to 144 bytes: 1.5x the sectors) to 2.15x (a 16-byte offset: 2x) the time of "
    "an aligned fill in an L2-bandwidth-bound loop; +21% (fill alone) to +25% kernel time for a 64x64 f16 tile at pitch 144 "
    "filled by 4 warps over L2-resident data (llama.cpp's DKQ=64 K tile: +23%); +4% for a 64x128 f16 tile at pitch 272 "
    "streaming from DRAM; no cost with cp.async.ca, whose data come through L1 (docs/hardware.md)";

/// Validates like smem_access_cost (hw/BankModel.h) and throws HwError unless `instr` is
/// cp.async.cg. `global`: each lane's source byte address; absent, lane t reads byte 16 t of a
/// 32-byte-aligned run, so lanes 2k and 2k+1 share a global sector (a row-major fill whose rows
/// start on 32-byte boundaries).
BypassSectors bypass_sectors(const Arch& arch, const SmemInstr& instr, const std::vector<int64_t>& shared,
                             const std::optional<std::vector<int64_t>>& global = std::nullopt);

}  // namespace lp::hw
