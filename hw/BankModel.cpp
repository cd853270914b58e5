#include "hw/BankModel.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "analyzer/ir/Checked.h"
#include "hw/HwError.h"

namespace lp::hw {

namespace {

bool partners_match(const std::vector<int64_t>& addresses, int partner_mask) {
  for (int t = 0; t < kWarpLanes; ++t)
    if (addresses[static_cast<size_t>(t)] != addresses[static_cast<size_t>(t ^ partner_mask)]) return false;
  return true;
}

PhaseCost phase_cost(const Arch& arch, const SmemInstr& instr, const std::vector<int64_t>& addresses,
                     std::vector<int> lanes, LaneMask active) {
  const int64_t word_bytes = arch.bank_bytes;
  std::map<int, std::set<int64_t>> words_by_bank;
  std::map<int, int64_t> accesses_by_bank;  // every lane's access, for instructions without broadcast
  for (int lane : lanes) {
    if (!((active >> lane) & 1)) continue;
    const int64_t first = addresses[static_cast<size_t>(lane)];
    const int64_t last = first + instr.bytes - 1;  // validated: no overflow, inside smem
    for (int64_t w = first / word_bytes; w <= last / word_bytes; ++w) {
      words_by_bank[static_cast<int>(w % arch.banks)].insert(w);
      ++accesses_by_bank[static_cast<int>(w % arch.banks)];
    }
  }
  PhaseCost cost;
  cost.lanes = std::move(lanes);
  int64_t busiest = 0;
  for (const auto& [bank, words] : words_by_bank) {
    const int64_t load = instr.broadcast ? static_cast<int64_t>(words.size()) : accesses_by_bank[bank];
    if (load > busiest) {  // strict: the lowest bank wins ties
      busiest = load;
      cost.bank = bank;
      cost.words.assign(words.begin(), words.end());
    }
  }
  cost.wavefronts = std::max<int64_t>(1, busiest) + instr.phase_overhead;
  return cost;
}

}  // namespace

bool loads_merge(const Arch& arch, const SmemInstr& instr, const std::vector<int64_t>& addresses) {
  if (!arch.load_merging || !instr.mergeable || addresses.size() != kWarpLanes) return false;
  return partners_match(addresses, 1) || partners_match(addresses, 2);
}

namespace {

// validate_access for the lanes in `active` only.
void validate_lanes(const Arch& arch, const SmemInstr& instr, const std::vector<int64_t>& addresses, LaneMask active) {
  const std::string where = std::string(instr.name) + " on " + std::string(arch.name);
  if (arch.sm < instr.min_sm)
    throw HwError(where + ": the instruction needs sm_" + std::to_string(instr.min_sm) + " or later");
  if (instr.kind == AccessKind::MatrixRows && instr.direction == SmemDirection::Store && !arch.has_stmatrix)
    throw HwError(where + ": stmatrix needs sm_90 or later");
  if (addresses.size() != kWarpLanes)
    throw HwError(where + ": expected 32 lane addresses (lanes 0..31), got " + std::to_string(addresses.size()));
  const int used = address_lane_count(instr);
  for (int lane = 0; lane < used; ++lane) {
    if (!((active >> lane) & 1)) continue;
    const int64_t a = addresses[static_cast<size_t>(lane)];
    const std::string at = where + ": lane " + std::to_string(lane) + " address " + std::to_string(a);
    if (a < 0) throw HwError(at + " is negative (addresses are byte offsets from the shared-memory base)");
    if (a % instr.bytes != 0)
      throw HwError(at + " is not aligned to " + std::to_string(instr.bytes) + " bytes (the instruction accesses " +
                    std::to_string(instr.bytes) + " bytes at each address)");
    const int64_t end = checked_add(a, instr.bytes, "shared-memory address");
    if (end > arch.max_smem_bytes_per_block)
      throw HwError(at + ": bytes [" + std::to_string(a) + ", " + std::to_string(end) + ") exceed the " +
                    std::to_string(arch.max_smem_bytes_per_block) + " bytes of shared memory a block can have");
  }
}

}  // namespace

void validate_access(const Arch& arch, const SmemInstr& instr, const std::vector<int64_t>& addresses) {
  validate_lanes(arch, instr, addresses, kAllLanes);
}

AccessCost smem_access_cost(const Arch& arch, const SmemInstr& instr, const std::vector<int64_t>& addresses) {
  return smem_access_cost(arch, instr, addresses, kAllLanes);
}

AccessCost smem_access_cost(const Arch& arch, const SmemInstr& instr, const std::vector<int64_t>& addresses,
                            LaneMask active) {
  validate_lanes(arch, instr, addresses, active);
  AccessCost cost;
  cost.merged = active == kAllLanes && loads_merge(arch, instr, addresses);
  for (std::vector<int>& lanes : phase_lanes(instr, cost.merged)) {
    cost.phases.push_back(phase_cost(arch, instr, addresses, std::move(lanes), active));
    cost.wavefronts += cost.phases.back().wavefronts;
  }
  cost.ideal = static_cast<int64_t>(cost.phases.size()) * (1 + instr.phase_overhead);
  cost.conflict_free = cost.wavefronts == cost.ideal;
  return cost;
}

}  // namespace lp::hw
