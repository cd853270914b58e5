#pragma once
// Replica coverage: every point of a declared target box (e.g. TMEM lanes 0..127, or every warp
// of a warpgroup) holds a copy of some element. Axes not named by the target are free.
#include <optional>
#include <vector>

#include "analyzer/ir/Layout.h"
#include "analyzer/ir/Parametric.h"
#include "solver/Result.h"

namespace lp {

struct AxisRange {
  Axis axis;
  int64_t lo = 0, hi = 0;  ///< inclusive
};

struct CoverageWitness {
  std::vector<int64_t> uncovered;  ///< one value per target axis, in target order
  std::vector<int64_t> params;     ///< parameter values (one per spec) of the violation
};

struct CoverageResult : Outcome {
  std::optional<CoverageWitness> witness;  ///< set exactly when Refuted
};

/// Throws std::invalid_argument for a target naming an axis the layout lacks or an empty range.
/// With `params`, `layout` is the instance at the parameters' largest values and the property
/// is proven for every admissible parameter value.
CoverageResult prove_covers(const Layout& layout, const std::vector<AxisRange>& target, Engine engine,
                            const SolverLimits& limits = {}, const Parametric* params = nullptr);

}  // namespace lp
