#pragma once
// The algebra as LayoutProof offers it: each operation computes CuTe's result and decides, by
// exhaustive evaluation, whether that result is the function the operation claims. The
// compositions a result stands on are returned as claims (Check::claims) and decided above the
// algebra by the solver's composition portfolio: lp::decide_claims (solver/AlgebraClaims.h).
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "analyzer/algebra/Algorithms.h"
#include "analyzer/algebra/Legality.h"

namespace lp::algebra {

/// What an operation produced: a layout (possibly composed with a swizzle), a bare swizzle, or
/// an integer (max_common_vector). `text` is CuTe's print format.
struct Outcome {
  std::string op;
  std::optional<std::string> text;         ///< absent when there is no result (CuTe rejects it)
  std::optional<CuteLayout> layout;        ///< the result as a plain CuTe layout, when it is one
  std::optional<Layout> composed;          ///< the result when it carries a swizzle stage
  Check check;                             ///< undecided while check.claims is not empty
};

/// An operand of compose: a layout (possibly `Sw o O o L`), a bare swizzle, or a tiler tuple.
using Operand = std::variant<Layout, Swizzle, CuteTiler>;

Outcome op_coalesce(const Layout& l);
Outcome op_filter_zeros(const Layout& l);
Outcome op_filter(const Layout& l);
Outcome op_compose(const Operand& a, const Operand& b);
/// complement's cotarget: an integer or a shape (CuTe's IntTuple). CuTe's contract uses its size;
/// the shape's staticness shapes the result (`(_4,7)` keeps a static 4 where 28 would not).
struct Cotarget {
  std::vector<Int> shape;
  Cotarget(Int n) : shape{n} {}  // NOLINT: an integer is a rank-1 cotarget
  Cotarget(std::vector<Int> s) : shape(std::move(s)) {}  // NOLINT
  int64_t size() const;
};
/// complement(L, cotarget); without one, CuTe's default cosize(filter(L)). Inverses of layouts
/// composed with a swizzle follow CuTe's swizzle_layout.hpp (composition(inverse(L), Sw), which
/// CuTe rewrites as Sw' o inverse(L)); so does max_common_vector.
Outcome op_complement(const Layout& l, std::optional<Cotarget> cotarget);
enum class DivideKind { Logical, Zipped, Tiled, Flat };
Outcome op_divide(DivideKind kind, const Layout& l, const CuteTiler& t);
Outcome op_logical_product(const Layout& a, const CuteTiler& b);
Outcome op_blocked_product(const Layout& a, const Layout& b);
Outcome op_raked_product(const Layout& a, const Layout& b);
Outcome op_tile_to_shape(const Layout& block, const std::vector<Int>& target);
Outcome op_right_inverse(const Layout& l);
Outcome op_left_inverse(const Layout& l);
Outcome op_max_common_vector(const Layout& a, const Layout& b);

/// "legal" | "illegal" | "unknown".
const char* verdict_name(Verdict v);

}  // namespace lp::algebra
