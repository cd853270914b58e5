#pragma once
// Composition legality: for every c in B's domain, B(c) lies in A's domain and the stated
// result R satisfies R(c) == A(B(c)). B's images are A's 1-D indices (integer strides) or A's
// coordinates (scaled bases: _1@d adds to the 1-D coordinate of A's mode d, _1@d@k (path d,k) to
// that of its mode k, as CuTe's E<d,k>). R is indexed like B (same size, same 1-D order). This
// one decision serves `prove compose` and the algebra's legality (solver/AlgebraClaims.h).
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
  Point b_image;                ///< B(c); empty when c is outside B's domain (R longer than B)
  /// A(B(c)) and R(c), R evaluated past its domain as CuTe does (a colexicographic split, the
  /// last mode taking the rest); `got` is empty where R cannot be so evaluated.
  Point expected, got;
};

struct CompositionResult : Outcome {
  std::optional<CompositionWitness> witness;
  /// After a refutation, when B's domain was enumerated and stays in A's domain: at how many of
  /// B's points R differs from A o B (0 when only the sizes differ).
  std::optional<int64_t> wrong_points;
};

/// A stated result whose size differs from B's is refuted before any engine; where B's domain can
/// be enumerated, at the first point R (evaluated past its domain as CuTe does) gets wrong.
/// Throws std::invalid_argument when B's images are neither A's indices nor A's coordinates.
/// With `r` absent only the domain is checked.
CompositionResult prove_composition(const Layout& a, const Layout& b, const std::optional<Layout>& r, Engine engine,
                                    const SolverLimits& limits = {});

/// CuTe's own composition contract (test/unit/cute/core/composition.cpp): R(c) == A(B(c)) for every
/// c in B's domain, with A evaluated as CuTe evaluates it also past its domain (Layout::cute_image),
/// and size(R) == size(B). For a claim whose B leaves A's domain: Proven means CuTe's contract holds
/// there; a refutation's witness is the first c where R differs (out_of_domain false, `expected` is
/// A extended), with wrong_points. Decided by enumerating B's domain; unknown past
/// limits.max_enumeration, for a B that addresses A's modes (scaled bases), or for an A CuTe does
/// not extend (lexicographic, replicas).
CompositionResult prove_extended_composition(const Layout& a, const Layout& b, const Layout& r,
                                             const SolverLimits& limits = {});

}  // namespace lp
