#pragma once
// The worst phase of a bank-conflict counterexample (LP002), recomputed from its 32 lane addresses
// with the hardware model rather than trusted from the finding, so the picture shows what the
// model says about exactly those addresses.
#include <vector>

#include "hw/BankModel.h"
#include "findings/Counterexample.h"

namespace lp::report {

struct BankView {
  const hw::Arch* arch = nullptr;
  const hw::SmemInstr* instr = nullptr;
  std::vector<int64_t> addresses;  ///< lanes 0..31, bytes
  hw::LaneMask active = hw::kAllLanes;  ///< the lanes that execute the instruction
  hw::AccessCost cost;
  size_t worst = 0;                ///< index into cost.phases: most wavefronts, first on ties
  std::vector<int> colliding;      ///< lanes of the worst phase whose access touches its busiest bank

  const hw::PhaseCost& phase() const { return cost.phases[worst]; }
  /// Banks lane `lane`'s access (or matrix row) touches, ascending.
  std::vector<int> banks_of(int lane) const;
  bool is_active(int lane) const { return (active >> lane) & 1; }
  /// An active lane of the worst phase.
  bool in_worst_phase(int lane) const;
};

/// Throws ReportInputError without one address per lane, lp::hw::HwError for an instruction or
/// architecture the model does not know.
BankView bank_view(const rules::BankConflictCex& counterexample);

}  // namespace lp::report
