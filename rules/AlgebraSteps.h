#pragma once
// The layout algebra a file performs (`compose` and `divide` statements), evaluated once, in file
// order, before the rules run: LP003 judges each step's legality, and the expectations on a
// step's name (`expect C injective`, `covers C ...`) are checked on the layout CuTe computes.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/algebra/Operations.h"
#include "rules/BufferGraph.h"
#include "solver/Result.h"

namespace lp::rules {

/// One compose, divide or product statement. Invariant: exactly one of `outcome` and `error` is set.
struct AlgebraStep {
  const annotate::Statement* stmt = nullptr;
  const annotate::Name* name = nullptr;
  std::string what;                         ///< "'C' = A o B", "'T' = logical_divide(A, T)"
  std::optional<algebra::Outcome> outcome;  ///< CuTe's result and its legality
  std::string error;                        ///< why the operation cannot be performed (CuTe rejects it)
  /// The layout CuTe computes, as later statements and expectations use it; absent when CuTe
  /// computes none or the IR cannot hold it (`result_missing` says which).
  std::optional<Layout> result;
  std::string result_missing;
  double time_ms = 0;
};

class AlgebraSteps {
 public:
  /// Evaluates every compose/divide of `file` whose operands are known (an operand naming a step
  /// without a result, or a buffer without a layout, leaves the step out: its own problem is
  /// reported where it arises). The compositions the operations claim are decided with `engine`
  /// within `limits` (solver/AlgebraClaims.h).
  AlgebraSteps(const annotate::ParseResult& file, const BufferGraph& graph, Engine engine, const SolverLimits& limits);

  const std::vector<AlgebraStep>& steps() const { return steps_; }
  /// The step that defines `name`, or null.
  const AlgebraStep* step(const std::string& name) const;

 private:
  std::vector<AlgebraStep> steps_;
  std::map<std::string, size_t> by_name_;
};

}  // namespace lp::rules
