#pragma once
// The worst phase of a bank-conflict counterexample (LP002), recomputed from its 32 lane addresses
// with the hardware model rather than trusted from the finding, so the picture shows what the
// model says about exactly those addresses.
#include <nlohmann/json.hpp>
#include <vector>

#include "hw/BankModel.h"

namespace lp::report {

struct BankView {
  const hw::Arch* arch = nullptr;
  const hw::SmemInstr* instr = nullptr;
  std::vector<int64_t> addresses;  ///< lanes 0..31, bytes
  hw::AccessCost cost;
  size_t worst = 0;                ///< index into cost.phases: most wavefronts, first on ties
  std::vector<int> colliding;      ///< lanes of the worst phase whose access touches its busiest bank

  const hw::PhaseCost& phase() const { return cost.phases[worst]; }
  /// Banks lane `lane`'s access (or matrix row) touches, ascending.
  std::vector<int> banks_of(int lane) const;
  bool in_worst_phase(int lane) const;
};

/// Needs "instruction" and "lane_addresses" (32 integers); "arch" defaults to sm_90. Throws
/// ReportInputError for missing or mistyped fields, lp::hw::HwError for what the model rejects.
BankView bank_view(const nlohmann::json& counterexample);

}  // namespace lp::report
