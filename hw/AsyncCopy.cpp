#include "hw/AsyncCopy.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "hw/BankModel.h"
#include "hw/HwError.h"

namespace lp::hw {

BypassSectors bypass_sectors(const Arch& arch, const SmemInstr& instr, const std::vector<int64_t>& shared,
                             const std::optional<std::vector<int64_t>>& global) {
  validate_access(arch, instr, shared);
  const std::string where = std::string(instr.name) + " on " + std::string(arch.name);
  if (instr.async != AsyncCopy::CacheGlobal) throw HwError(where + ": L2-to-SM sectors are modelled for cp.async.cg only");
  std::vector<int64_t> source(kWarpLanes);
  for (int lane = 0; lane < kWarpLanes; ++lane) source[static_cast<size_t>(lane)] = int64_t{instr.bytes} * lane;
  if (global) {
    if (global->size() != kWarpLanes)
      throw HwError(where + ": expected 32 global addresses (lanes 0..31), got " + std::to_string(global->size()));
    for (int lane = 0; lane < kWarpLanes; ++lane) {
      const int64_t g = (*global)[static_cast<size_t>(lane)];
      if (g < 0 || g % instr.bytes != 0)
        throw HwError(where + ": lane " + std::to_string(lane) + " global address " + std::to_string(g) +
                      (g < 0 ? " is negative" : " is not aligned to " + std::to_string(instr.bytes) + " bytes"));
    }
    source = *global;
  }
  // Lanes writing one shared address are one write (which lane's data lands is not modelled: no
  // measured count depends on it).
  std::map<int64_t, int> writer;  // shared address -> a lane writing it
  for (int lane = 0; lane < kWarpLanes; ++lane) writer.emplace(shared[static_cast<size_t>(lane)], lane);
  std::map<int64_t, std::set<int64_t>> shared_sectors_of;  // global sector -> the shared sectors it lands in
  std::map<int64_t, std::vector<int>> lanes_of;            // global sector -> the lanes reading it
  for (const auto& [address, lane] : writer) {
    const int64_t g = source[static_cast<size_t>(lane)] / kSectorBytes;
    shared_sectors_of[g].insert(address / kSectorBytes);
    lanes_of[g].push_back(lane);
  }
  BypassSectors out;
  out.ideal = static_cast<int64_t>(shared_sectors_of.size());
  for (auto& [g, sectors] : shared_sectors_of) {
    out.sectors += static_cast<int64_t>(sectors.size());
    std::vector<int>& lanes = lanes_of[g];
    std::sort(lanes.begin(), lanes.end());
    if (sectors.size() > 1 && (!out.split_lane || lanes.front() < *out.split_lane)) {
      out.split_lane = lanes.front();
      out.split_shared_sectors.assign(sectors.begin(), sectors.end());
      out.split_lanes = lanes;
    }
  }
  return out;
}

}  // namespace lp::hw
