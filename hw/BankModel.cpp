#include "hw/BankModel.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "analyzer/ir/Checked.h"
#include "hw/HwError.h"

namespace lp::hw {

namespace {

// Every active lane whose partner t^x is active reads the partner's address; an inactive partner
// does not stand in the way (measured: tests/data/sm90_smem_partial_warps.tsv).
bool partners_match(const std::vector<int64_t>& addresses, int partner_mask, LaneMask active) {
  for (int t = 0; t < kWarpLanes; ++t) {
    const int u = t ^ partner_mask;
    if (((active >> t) & 1) && ((active >> u) & 1) && addresses[static_cast<size_t>(t)] != addresses[static_cast<size_t>(u)])
      return false;
  }
  return true;
}

// The first and last bank word one access at `address` covers (words_of, without a vector).
std::pair<int64_t, int64_t> word_span(const Arch& arch, const SmemInstr& instr, int64_t address) {
  return {address / arch.bank_bytes, (address + instr.bytes - 1) / arch.bank_bytes};
}

PhaseCost phase_cost(const Arch& arch, const SmemInstr& instr, const std::vector<int64_t>& addresses,
                     std::vector<int> lanes, LaneMask active) {
  // Every (bank, word) the active lanes access, sorted: each bank's accesses are one run, its
  // distinct words in order. The engines cost millions of warps, so no map per phase.
  thread_local std::vector<std::pair<int, int64_t>> hits;
  hits.clear();
  for (int lane : lanes) {
    if (!((active >> lane) & 1)) continue;
    // validated: no overflow, inside smem
    const auto [first, last] = word_span(arch, instr, addresses[static_cast<size_t>(lane)]);
    for (int64_t w = first; w <= last; ++w) hits.emplace_back(static_cast<int>(w % arch.banks), w);
  }
  std::sort(hits.begin(), hits.end());
  PhaseCost cost;
  cost.lanes = std::move(lanes);
  int64_t busiest = 0;
  for (size_t run = 0; run < hits.size();) {
    const int bank = hits[run].first;
    size_t end = run;
    int64_t distinct = 0;
    for (; end < hits.size() && hits[end].first == bank; ++end) distinct += end == run || hits[end].second != hits[end - 1].second;
    // Without broadcast every lane's access counts.
    const int64_t load = instr.broadcast ? distinct : static_cast<int64_t>(end - run);
    if (load > busiest) {  // strict: the lowest bank wins ties
      busiest = load;
      cost.bank = bank;
      cost.words.clear();
      for (size_t k = run; k < end; ++k)
        if (k == run || hits[k].second != hits[k - 1].second) cost.words.push_back(hits[k].second);
    }
    run = end;
  }
  cost.wavefronts = std::max<int64_t>(1, busiest);
  return cost;
}

// The L1 side of a cp.async.ca part: every lane's read of a word counts (no broadcast, measured:
// lanes reading one global word cost one read each), per bank of the lines it reads.
void add_read_side(const Arch& arch, const SmemInstr& instr, const std::vector<int64_t>& global, PhaseCost& part) {
  std::map<int, int64_t> reads_by_bank;
  std::set<int64_t> lines;
  for (int lane : part.lanes) {
    const int64_t first = global[static_cast<size_t>(lane)];
    lines.insert(first / kL1LineBytes);
    for (int64_t w : words_of(arch, instr, first)) ++reads_by_bank[static_cast<int>(w % arch.banks)];
  }
  for (const auto& [bank, reads] : reads_by_bank) part.read_load = std::max(part.read_load, reads);
  part.lines.assign(lines.begin(), lines.end());
  part.wavefronts = std::max(part.wavefronts, part.read_load);
}

}  // namespace

std::vector<int64_t> words_of(const Arch& arch, const SmemInstr& instr, int64_t address) {
  const auto [first, last] = word_span(arch, instr, address);
  std::vector<int64_t> words;
  for (int64_t w = first; w <= last; ++w) words.push_back(w);
  return words;
}

std::vector<int> banks_of(const Arch& arch, const SmemInstr& instr, int64_t address) {
  std::vector<int> banks;
  for (int64_t w : words_of(arch, instr, address)) banks.push_back(static_cast<int>(w % arch.banks));
  std::sort(banks.begin(), banks.end());
  banks.erase(std::unique(banks.begin(), banks.end()), banks.end());
  return banks;
}

bool loads_merge(const Arch& arch, const SmemInstr& instr, const std::vector<int64_t>& addresses, LaneMask active) {
  if (!arch.load_merging || !instr.mergeable || addresses.size() != kWarpLanes) return false;
  for (int x : kMergePartnerXors)
    if (partners_match(addresses, x, active)) return true;
  return false;
}

namespace {

// validate_access for the lanes in `active` only.
void validate_lanes(const Arch& arch, const SmemInstr& instr, const std::vector<int64_t>& addresses, LaneMask active) {
  const auto where = [&] { return std::string(instr.name) + " on " + std::string(arch.name); };
  if (!available_on(instr, arch))
    throw HwError(where() + ": the instruction needs sm_" + std::to_string(instr.min_sm) + " or later");
  if (addresses.size() != kWarpLanes)
    throw HwError(where() + ": expected 32 lane addresses (lanes 0..31), got " + std::to_string(addresses.size()));
  if (auto bad = invalid_lane(arch, instr, addresses, active)) throw HwError(where() + ": " + bad->reason);
}

}  // namespace

std::optional<InvalidLane> invalid_lane(const Arch& arch, const SmemInstr& instr, const std::vector<int64_t>& addresses,
                                        LaneMask active) {
  const int used = std::min<int>(address_lane_count(instr), static_cast<int>(addresses.size()));
  for (int lane = 0; lane < used; ++lane) {
    if (!((active >> lane) & 1)) continue;
    const int64_t a = addresses[static_cast<size_t>(lane)];
    const auto at = [&] { return "lane " + std::to_string(lane) + " address " + std::to_string(a); };
    if (a < 0) return InvalidLane{lane, at() + " is negative (addresses are byte offsets from the shared-memory base)"};
    if (a % instr.bytes != 0)
      return InvalidLane{lane, at() + " is not aligned to " + std::to_string(instr.bytes) + " bytes (the instruction accesses " +
                                   std::to_string(instr.bytes) + " bytes at each address)"};
    const int64_t end = checked_add(a, instr.bytes, "shared-memory address");
    if (end > arch.max_smem_bytes_per_block)
      return InvalidLane{lane, at() + ": bytes [" + std::to_string(a) + ", " + std::to_string(end) + ") exceed the " +
                                   std::to_string(arch.max_smem_bytes_per_block) + " bytes of shared memory a block can have"};
  }
  return std::nullopt;
}

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
  cost.merged = loads_merge(arch, instr, addresses, active);
  for (std::vector<int>& lanes : phase_lanes(instr, cost.merged)) {
    const bool idle = std::none_of(lanes.begin(), lanes.end(), [&](int l) { return (active >> l) & 1; });
    cost.phases.push_back(phase_cost(arch, instr, addresses, std::move(lanes), active));
    // A phase without an active lane is skipped: no wavefront, and no part of the ideal (measured).
    if (idle) cost.phases.back().wavefronts = 0;
    else ++cost.ideal;
    cost.wavefronts += cost.phases.back().wavefronts;
  }
  cost.ideal = std::max<int64_t>(cost.ideal, 1);
  cost.conflict_free = cost.wavefronts <= cost.ideal;
  return cost;
}

AccessCost smem_access_cost(const Arch& arch, const SmemInstr& instr, const std::vector<int64_t>& addresses,
                            const std::vector<int64_t>& global_addresses) {
  validate_access(arch, instr, addresses);
  const std::string where = std::string(instr.name) + " on " + std::string(arch.name);
  if (instr.async != AsyncCopy::CacheAll)
    throw HwError(where + ": global addresses are modelled for cp.async.ca only (the hardware's shared-memory counters "
                          "see no cp.async.cg write, whatever its global side; docs/hardware.md)");
  if (global_addresses.size() != kWarpLanes)
    throw HwError(where + ": expected 32 global addresses (lanes 0..31), got " + std::to_string(global_addresses.size()));
  for (int lane = 0; lane < kWarpLanes; ++lane) {
    const int64_t g = global_addresses[static_cast<size_t>(lane)];
    if (g < 0 || g % instr.bytes != 0)
      throw HwError(where + ": lane " + std::to_string(lane) + " global address " + std::to_string(g) +
                    (g < 0 ? " is negative" : " is not aligned to " + std::to_string(instr.bytes) + " bytes"));
  }
  // Lines in the order of the lowest lane that reads each, kAsyncTagLines to a tag group.
  std::map<int64_t, int> group_of_line;
  for (int64_t g : global_addresses) {
    const int64_t line = g / kL1LineBytes;
    if (!group_of_line.count(line)) {
      const int seen = static_cast<int>(group_of_line.size());
      group_of_line[line] = seen / kAsyncTagLines;
    }
  }
  AccessCost cost;
  for (const std::vector<int>& lanes : phase_lanes(instr, false)) {
    std::map<int, std::vector<int>> parts;  // tag group -> the phase's lanes reading from it
    for (int lane : lanes) parts[group_of_line[global_addresses[static_cast<size_t>(lane)] / kL1LineBytes]].push_back(lane);
    for (auto& [group, part_lanes] : parts) {
      PhaseCost part = phase_cost(arch, instr, addresses, std::move(part_lanes), kAllLanes);
      add_read_side(arch, instr, global_addresses, part);
      cost.wavefronts += part.wavefronts;
      cost.phases.push_back(std::move(part));
    }
  }
  cost.ideal = static_cast<int64_t>(cost.phases.size());
  cost.conflict_free = cost.wavefronts == cost.ideal;
  return cost;
}

}  // namespace lp::hw
