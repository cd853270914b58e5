#include "report/pages/BankView.h"

#include <algorithm>

#include "report/pages/FindingsDoc.h"

namespace lp::report {

std::vector<int> BankView::banks_of(int lane) const {
  return hw::banks_of(*arch, *instr, addresses[static_cast<size_t>(lane)]);
}

bool BankView::in_worst_phase(int lane) const {
  const auto& l = phase().lanes;
  return is_active(lane) && std::find(l.begin(), l.end(), lane) != l.end();
}

BankView bank_view(const rules::BankConflictCex& ce) {
  if (ce.lane_addresses.size() != hw::kWarpLanes) throw ReportInputError("the counterexample has no address for each lane");
  BankView v;
  v.addresses = ce.lane_addresses;
  v.arch = &hw::arch_by_name(ce.arch);
  v.instr = &hw::smem_instr(ce.instruction);
  v.active = ce.active_lanes.value_or(hw::kAllLanes);
  v.cost = hw::smem_access_cost(*v.arch, *v.instr, v.addresses, v.active);
  for (size_t k = 1; k < v.cost.phases.size(); ++k)
    if (v.cost.phases[k].wavefronts > v.cost.phases[v.worst].wavefronts) v.worst = k;
  for (int lane : v.phase().lanes) {
    if (!v.is_active(lane)) continue;
    auto b = v.banks_of(lane);
    if (std::find(b.begin(), b.end(), v.phase().bank) != b.end()) v.colliding.push_back(lane);
  }
  return v;
}

}  // namespace lp::report
