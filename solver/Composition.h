#pragma once
// Composition legality: for every c in B's domain, B(c) lies in A's domain and the stated
// result R satisfies R(c) == A(B(c)). B's images are A's 1-D indices (integer strides) or A's
// top-level coordinates (scaled bases _1@d). R is indexed like B (same size, same 1-D order).
#include <optional>
#include <vector>

#include "analyzer/ir/Layout.h"
#include "solver/Result.h"

namespace lp {

struct CompositionWitness {
  int64_t index = 0;            ///< 1-D index c in B's domain
  std::vector<int64_t> coordinate;  ///< c split across B's modes
  bool out_of_domain = false;   ///< B(c) leaves A's domain (then expected/got are unset)
  bool outside_result = false;  ///< c is outside R's domain (R's size differs from B's)
  Point b_image;                ///< B(c)
  Point expected, got;          ///< A(B(c)) and R(c)
};

struct CompositionResult : Outcome {
  std::optional<CompositionWitness> witness;
};

/// A stated result whose size differs from B's is refuted at the first index one of them lacks.
/// Throws std::invalid_argument when B's images are neither A's indices nor A's coordinates.
/// With `r` absent only the domain is checked.
CompositionResult prove_composition(const Layout& a, const Layout& b, const std::optional<Layout>& r, Engine engine,
                                    const SolverLimits& limits = {});

}  // namespace lp
