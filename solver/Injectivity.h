#pragma once
// Injectivity: no two distinct logical elements share a physical point. Replicas of one element
// may coincide with each other; a replica of one element meeting any copy of another is a
// violation.
#include <optional>

#include "analyzer/ir/Layout.h"
#include "analyzer/ir/Parametric.h"
#include "solver/Result.h"

namespace lp {

struct InjectivityWitness {
  int64_t index_a = 0, index_b = 0;      ///< 1-D indices in the layout's own order, a != b
  int64_t replica_a = 0, replica_b = 0;  ///< replica combinations (row-major), 0 without replicas
  Point image;                           ///< the shared point, one value per axis
  std::vector<int64_t> params;           ///< parameter values (one per spec) of the violation
};

struct InjectivityResult : Outcome {
  std::optional<InjectivityWitness> witness;  ///< set exactly when Refuted
};

/// With `params`, `layout` is the instance at the parameters' largest values and the property
/// is proven for every admissible parameter value.
InjectivityResult prove_injective(const Layout& layout, Engine engine, const SolverLimits& limits = {},
                                  const Parametric* params = nullptr);

}  // namespace lp
