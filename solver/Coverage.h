#pragma once
// Replica coverage: every point of a declared target box (e.g. TMEM lanes 0..127, or every warp
// of a warpgroup) holds a copy of some element. Axes not named by the target are free.
#include <optional>
#include <vector>

#include "analyzer/ir/Layout.h"
#include "solver/Result.h"

namespace lp {

struct AxisRange {
  Axis axis;
  int64_t lo = 0, hi = 0;  ///< inclusive
};

struct CoverageWitness {
  std::vector<int64_t> uncovered;  ///< one value per target axis, in target order
};

struct CoverageResult : Outcome {
  std::optional<CoverageWitness> witness;  ///< set exactly when Refuted
};

/// Throws std::invalid_argument for a target naming an axis the layout lacks or an empty range.
CoverageResult prove_covers(const Layout& layout, const std::vector<AxisRange>& target, Engine engine,
                            const SolverLimits& limits = {});

}  // namespace lp
