#include "solver/AccessAgreement.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace lp {

namespace {


int first_lane(hw::LaneMask m) { return __builtin_ctz(m); }

// The addresses of the active lanes relative to the first active one: what a warp's bank
// behaviour depends on, whatever the buffer's place.
std::vector<int64_t> relative(const WarpAddresses& w, hw::LaneMask lanes) {
  const hw::LaneMask m = w.active & lanes;
  std::vector<int64_t> out;
  if (!m) return out;
  const int64_t first = w.addresses[static_cast<size_t>(first_lane(m))];
  for (int l = 0; l < hw::kWarpLanes; ++l)
    if ((m >> l) & 1) out.push_back(w.addresses[static_cast<size_t>(l)] - first);
  return out;
}

int64_t first_address(const WarpAddresses& w, hw::LaneMask lanes) {
  const hw::LaneMask m = w.active & lanes;
  return m ? w.addresses[static_cast<size_t>(first_lane(m))] : 0;
}

}  // namespace

std::variant<Agreement, Disagreement> compare_warps(const std::vector<WarpAddresses>& compiled,
                                                    const std::vector<WarpAddresses>& issues, int address_lanes,
                                                    bool every_issue) {
  const hw::LaneMask lanes = hw::lanes_below(address_lanes);
  // Issues by their relative addresses, each with its first active lane's address.
  std::map<std::vector<int64_t>, std::vector<std::pair<size_t, int64_t>>> by_pattern;
  for (size_t i = 0; i < issues.size(); ++i)
    by_pattern[relative(issues[i], lanes)].emplace_back(i, first_address(issues[i], lanes));
  const hw::LaneMask annotated_active = issues.front().active & lanes;

  std::optional<std::set<int64_t>> shifts;  // the shifts that place every warp so far
  for (size_t w = 0; w < compiled.size(); ++w) {
    const WarpAddresses& warp = compiled[w];
    if ((warp.active & lanes) != annotated_active) {
      Disagreement d;
      d.kind = Disagreement::Kind::ActiveLanes;
      d.warp = w;
      d.compiled_active = warp.active & lanes;
      d.annotated_active = annotated_active;
      return d;
    }
    const std::vector<int64_t> pattern = relative(warp, lanes);
    auto it = by_pattern.find(pattern);
    if (it == by_pattern.end()) {
      // The nearest issue: the most lanes at the same relative address.
      Disagreement d;
      d.kind = Disagreement::Kind::LanePattern;
      d.warp = w;
      std::optional<size_t> best;
      for (const auto& [other, members] : by_pattern) {
        size_t alike = 0;
        for (size_t k = 0; k < std::min(other.size(), pattern.size()); ++k) alike += other[k] == pattern[k];
        if (!best || alike > *best || (alike == *best && members.front().first < d.issue)) {
          best = alike;
          d.issue = members.front().first;
        }
      }
      const std::vector<int64_t> near = relative(issues[d.issue], lanes);
      size_t k = 0;
      for (int l = 0; l < hw::kWarpLanes; ++l) {
        if (!((annotated_active >> l) & 1)) continue;
        if (k < near.size() && k < pattern.size() && near[k] != pattern[k]) {
          d.lane = l;
          d.compiled_offset = pattern[k];
          d.annotated_offset = near[k];
          break;
        }
        ++k;
      }
      return d;
    }
    std::set<int64_t> mine;
    for (const auto& [issue, first] : it->second) mine.insert(first_address(warp, lanes) - first);
    if (!shifts) {
      shifts = std::move(mine);
      continue;
    }
    std::set<int64_t> both;
    std::set_intersection(shifts->begin(), shifts->end(), mine.begin(), mine.end(), std::inserter(both, both.end()));
    if (both.empty()) {
      Disagreement d;
      d.kind = Disagreement::Kind::Shift;
      d.warp = w;
      d.issue = it->second.front().first;
      d.shifts_before.assign(shifts->begin(), shifts->end());
      d.shifts_of_warp.assign(mine.begin(), mine.end());
      return d;
    }
    shifts = std::move(both);
  }

  Agreement a;
  if (shifts)
    a.shift = *std::min_element(shifts->begin(), shifts->end(),
                                [](int64_t x, int64_t y) { return std::abs(x) < std::abs(y) || (std::abs(x) == std::abs(y) && x < y); });
  // Each warp's issue at that shift, and which issues are performed.
  std::set<std::pair<std::vector<int64_t>, int64_t>> performed;
  for (const WarpAddresses& warp : compiled) {
    const auto& members = by_pattern.at(relative(warp, lanes));
    const int64_t first = first_address(warp, lanes) - a.shift;
    for (const auto& [issue, at] : members)
      if (at == first) {
        a.issue_of_warp.push_back(issue);
        break;
      }
    performed.emplace(relative(warp, lanes), first);
  }
  if (every_issue)
    for (size_t i = 0; i < issues.size(); ++i)
      if (!performed.count({relative(issues[i], lanes), first_address(issues[i], lanes)})) {
        Disagreement d;
        d.kind = Disagreement::Kind::MissingIssue;
        d.issue = i;
        return d;
      }
  return a;
}

}  // namespace lp
