#pragma once
// The algebra's working form of a CuTe layout: a tree in which every node is itself a layout
// (CuTe's layout<i>(L)), leaves carry a shape and a stride, and every integer remembers whether
// CuTe would know it at compile time. CuTe's algorithms branch on that (`is_static`,
// `is_constant<1,...>`), so reproducing what CuTe prints needs it. Conversion to and from lp::Layout
// is exact; evaluation for legality checks is left to lp::Layout, an independent evaluator.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/ir/Axis.h"
#include "analyzer/ir/Layout.h"
#include "analyzer/support/Error.h"

namespace lp::algebra {

/// Raised when an operation's operands are outside what the algebra (or CuTe) handles, e.g. a
/// dynamic multi-mode stride in complement. The message names the operand part and the reason.
class AlgebraError : public Error {
 public:
  explicit AlgebraError(const std::string& what) : Error(what) {}
};

/// An integer as CuTe holds it: `_4` (static, part of the type) or `4` (dynamic).
struct Int {
  int64_t value = 0;
  bool is_static = true;

  bool is_constant(int64_t v) const { return is_static && value == v; }
  bool operator==(const Int&) const = default;
};

/// CuTe's integer arithmetic: static iff both operands are static, plus CuTe's mixed special
/// cases (`_0 * x == _0`, `_0 / x == _0`, `x % _1 == _0`). Checked: overflow throws.
Int operator*(Int a, Int b);
Int operator/(Int a, Int b);  ///< truncating, like C++
Int operator+(Int a, Int b);
Int operator-(Int a, Int b);
Int ceil_div(Int a, Int b);   ///< (a + b - 1) / b, exactly as CuTe writes it
Int min(Int a, Int b);
Int abs(Int a);

/// A stride: an integer (the memory axis `m`) or a sum of scaled bases (`3@0`), with the
/// staticness of its coefficient. Terms are sorted by axis and never zero.
struct Stride {
  std::vector<std::pair<Axis, int64_t>> terms;
  bool is_static = true;

  static Stride integer(Int v);
  bool is_zero() const { return terms.empty(); }
  bool is_integer() const;  ///< zero or a multiple of `m`
  /// The integer value; precondition is_integer().
  Int as_int() const;
  /// A single scaled basis `v@path` (CuTe's ScaledBasis), if that is what this is.
  bool is_single_basis() const;
  bool operator==(const Stride& o) const { return terms == o.terms; }
};

Stride operator*(Int a, const Stride& s);
Stride operator*(const Stride& s, Int a);

/// A CuTe layout tree. A leaf holds shape:stride; a tuple holds sub-layouts (possibly none).
struct CuteLayout {
  bool is_leaf = true;
  Int shape{1, true};
  Stride stride;
  std::vector<CuteLayout> modes;

  static CuteLayout leaf(Int shape, Stride stride);
  static CuteLayout tuple(std::vector<CuteLayout> modes);
  /// `_N:_1` style compact integer leaf.
  static CuteLayout leaf(Int shape, Int stride) { return leaf(shape, Stride::integer(stride)); }

  size_t rank() const { return is_leaf ? 1 : modes.size(); }
  /// Mode i (CuTe's layout<i>): for a leaf, only i == 0, the leaf itself.
  const CuteLayout& mode(size_t i) const;
  Int size() const;
  /// CuTe's cosize for integer strides: L(size-1) + 1 of the absolute-stride layout.
  Int cosize() const;
  std::vector<CuteLayout> leaves() const;  ///< flattened, in order
  bool operator==(const CuteLayout&) const = default;
};

/// Flattens to a tuple of leaves (a leaf stays a leaf, as CuTe's flatten keeps it).
CuteLayout flatten(const CuteLayout& l);
/// CuTe's append<N>(L): pads with `_1:_0` modes up to rank N (a leaf becomes (L, _1:_0, ...)).
CuteLayout append_to_rank(const CuteLayout& l, size_t rank);
/// Compact column-major layout of a shape tree, starting at stride `current` (CuTe's
/// compact_major<LayoutLeft>): static-1 extents get stride `_0`.
CuteLayout compact_col_major(const CuteLayout& shape_tree, Int current = Int{1, true});

/// From the IR. Requires a CuTe-style layout: colex order, known extents, no replicas, no offset,
/// no post stages. Throws AlgebraError naming what does not fit.
CuteLayout from_ir(const Layout& l);
/// To the IR (colex, axes = the axes the strides use, or just `m`).
Layout to_ir(const CuteLayout& l);
/// CuTe's print format via lp::print_cute.
std::string cute_text(const CuteLayout& l);

}  // namespace lp::algebra
