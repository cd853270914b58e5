#pragma once
// CuTe's layout algebra, algorithm for algorithm (cute/layout.hpp, cute/swizzle.hpp,
// cute/swizzle_layout.hpp of nvidia-cutlass 4.2.0). These compute what CuTe computes, bugs
// included; they check nothing. Legality.h decides whether a result is what it claims to be.
#include <optional>
#include <variant>
#include <vector>

#include "analyzer/algebra/CuteLayout.h"
#include "analyzer/ir/Swizzle.h"
#include "analyzer/ir/Tiler.h"

namespace lp::algebra {

/// A tiler operand: a layout, CuTe's `_` (keep the mode), or a tuple of tilers (one per mode).
struct CuteTiler {
  enum class Kind { Layout, Underscore, Tuple };
  Kind kind = Kind::Layout;
  CuteLayout layout;
  std::vector<CuteTiler> parts;

  static CuteTiler of(CuteLayout l) { return CuteTiler{Kind::Layout, std::move(l), {}}; }
  static CuteTiler underscore() { return CuteTiler{Kind::Underscore, {}, {}}; }
  static CuteTiler tuple(std::vector<CuteTiler> parts) { return CuteTiler{Kind::Tuple, {}, std::move(parts)}; }
};

/// A tiler of IR layouts as the algebra reads it. Throws AlgebraError where a layout is not plain.
CuteTiler to_cute(const Tiler& t);

// Simplification (coalesce.cpp)
CuteLayout coalesce(const CuteLayout& l);
/// coalesce applied at each top-level mode: CuTe's coalesce(L, profile) for a flat profile.
CuteLayout coalesce_x(const CuteLayout& l);
CuteLayout filter_zeros(const CuteLayout& l);
CuteLayout filter(const CuteLayout& l);

// Composition (Composition.cpp)
/// lhs o rhs for layouts, including rhs strides that are scaled bases `_1@i` (select mode i).
CuteLayout composition(const CuteLayout& lhs, const CuteLayout& rhs);
/// lhs o tiler: per-mode for tuples (untiled trailing modes of lhs are dropped).
CuteLayout composition(const CuteLayout& lhs, const CuteTiler& tiler);

// Complement (Complement.cpp)
/// complement(L, cotarget) for an integer cotarget.
CuteLayout complement(const CuteLayout& l, Int cotarget);
/// complement(L, shape): CuTe's form with a shape cotarget (flattened), as logical_divide uses it.
CuteLayout complement(const CuteLayout& l, const std::vector<Int>& cotarget);
/// complement(L): cotarget = cosize(filter(L)).
CuteLayout complement(const CuteLayout& l);

// Inverses (Inverse.cpp)
CuteLayout right_inverse(const CuteLayout& l);
CuteLayout left_inverse(const CuteLayout& l);
Int max_common_vector(const CuteLayout& a, const CuteLayout& b);

// Divides and products (DivideProduct.cpp)
CuteLayout logical_divide(const CuteLayout& l, const CuteTiler& t);
CuteLayout zipped_divide(const CuteLayout& l, const CuteTiler& t);
CuteLayout tiled_divide(const CuteLayout& l, const CuteTiler& t);
CuteLayout flat_divide(const CuteLayout& l, const CuteTiler& t);
CuteLayout logical_product(const CuteLayout& a, const CuteTiler& b);
CuteLayout blocked_product(const CuteLayout& a, const CuteLayout& b);
CuteLayout raked_product(const CuteLayout& a, const CuteLayout& b);
/// tile_to_shape(block, target) with CuTe's default column-major mode order.
CuteLayout tile_to_shape(const CuteLayout& block, const std::vector<Int>& target_shape);

// Swizzles (SwizzleComposition.cpp)
/// CuTe's make_swizzle<Y,Z>: the swizzle with source mask Y and destination mask Z, or none
/// where CuTe's static_asserts reject the masks (the reason is stored in `why_not`).
std::optional<Swizzle> make_swizzle(int64_t y_mask, int64_t z_mask, std::string& why_not);
/// composition(Swizzle, Swizzle): CuTe requires equal shifts and XORs the masks.
std::optional<Swizzle> compose_swizzles(const Swizzle& outer, const Swizzle& inner, std::string& why_not);
/// composition(Layout, Swizzle): CuTe's rewrite A o Sw = Sw' o A with Sw' = make_swizzle<A(Y),A(Z)>.
std::optional<Swizzle> swizzle_through_layout(const CuteLayout& a, const Swizzle& sw, std::string& why_not);

}  // namespace lp::algebra
