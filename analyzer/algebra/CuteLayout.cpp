#include "analyzer/algebra/CuteLayout.h"

#include "analyzer/algebra/CuteRejects.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>

#include "analyzer/ir/Checked.h"
#include "analyzer/ir/Print.h"

namespace lp::algebra {

Int operator*(Int a, Int b) {
  if (a.is_constant(0) || b.is_constant(0)) return {0, true};
  return {checked_mul(a.value, b.value, "layout algebra"), a.is_static && b.is_static};
}

Int operator/(Int a, Int b) {
  if (a.is_constant(0)) return {0, true};
  // Only a dynamic zero gets here (static operands that divide by zero are CuTe compile errors).
  if (b.value == 0) throw CuteRejects("CuTe's algorithm divides by a zero extent or stride (at run time, a crash)");
  return {a.value / b.value, a.is_static && b.is_static};
}

Int operator+(Int a, Int b) { return {checked_add(a.value, b.value, "layout algebra"), a.is_static && b.is_static}; }
Int operator-(Int a, Int b) { return {checked_sub(a.value, b.value, "layout algebra"), a.is_static && b.is_static}; }
Int ceil_div(Int a, Int b) { return (a + b - Int{1, true}) / b; }
Int min(Int a, Int b) { return {std::min(a.value, b.value), a.is_static && b.is_static}; }
Int abs(Int a) { return {checked_abs(a.value, "layout algebra"), a.is_static}; }

Stride Stride::integer(Int v) {
  Stride s;
  s.is_static = v.is_static;
  if (v.value != 0) s.terms.push_back({Axis::memory(), v.value});
  return s;
}

bool Stride::is_integer() const { return terms.empty() || (terms.size() == 1 && terms[0].first.is_memory()); }

Int Stride::as_int() const { return {terms.empty() ? 0 : terms[0].second, is_static}; }

bool Stride::is_single_basis() const { return terms.size() == 1 && terms[0].first.is_basis(); }

Stride operator*(Int a, const Stride& s) {
  Stride r;
  r.is_static = (a.is_static && s.is_static) || a.is_constant(0) || (s.is_zero() && s.is_static);
  if (a.value == 0) return r;
  for (const auto& [axis, v] : s.terms) r.terms.push_back({axis, checked_mul(a.value, v, "layout algebra")});
  return r;
}

Stride operator*(const Stride& s, Int a) { return a * s; }

CuteLayout CuteLayout::leaf(Int shape, Stride stride) {
  CuteLayout l;
  l.shape = shape;
  l.stride = std::move(stride);
  return l;
}

CuteLayout CuteLayout::tuple(std::vector<CuteLayout> modes) {
  CuteLayout l;
  l.is_leaf = false;
  l.modes = std::move(modes);
  return l;
}

const CuteLayout& CuteLayout::mode(size_t i) const {
  if (is_leaf) {
    if (i != 0) throw AlgebraError(fmt::format("mode {} of a rank-1 layout", i));
    return *this;
  }
  if (i >= modes.size()) throw AlgebraError(fmt::format("mode {} of a rank-{} layout", i, modes.size()));
  return modes[i];
}

Int CuteLayout::size() const {
  if (is_leaf) return shape;
  Int s{1, true};
  for (const CuteLayout& m : modes) s = s * m.size();
  return s;
}

Int CuteLayout::cosize() const {
  Int sum{0, true};
  for (const CuteLayout& l : leaves()) {
    if (!l.stride.is_integer())
      throw AlgebraError("cosize of a layout with scaled-basis strides is a tuple; this operation needs an integer");
    sum = sum + (l.shape - Int{1, true}) * abs(l.stride.as_int());
  }
  return sum + Int{1, true};
}

std::vector<CuteLayout> CuteLayout::leaves() const {
  if (is_leaf) return {*this};
  std::vector<CuteLayout> out;
  for (const CuteLayout& m : modes)
    for (CuteLayout& x : m.leaves()) out.push_back(std::move(x));
  return out;
}

CuteLayout flatten(const CuteLayout& l) {
  if (l.is_leaf) return l;
  return CuteLayout::tuple(l.leaves());
}

CuteLayout append_to_rank(const CuteLayout& l, size_t rank) {
  if (l.rank() >= rank) return l;
  std::vector<CuteLayout> modes = l.is_leaf ? std::vector<CuteLayout>{l} : l.modes;
  while (modes.size() < rank) modes.push_back(CuteLayout::leaf(Int{1, true}, Int{0, true}));
  return CuteLayout::tuple(std::move(modes));
}

namespace {

CuteLayout compact_col_major_impl(const CuteLayout& shape_tree, Int& current) {
  if (shape_tree.is_leaf) {
    if (shape_tree.shape.is_constant(1)) return CuteLayout::leaf(shape_tree.shape, Int{0, true});
    CuteLayout r = CuteLayout::leaf(shape_tree.shape, current);
    current = current * shape_tree.shape;
    return r;
  }
  std::vector<CuteLayout> modes;
  for (const CuteLayout& m : shape_tree.modes) modes.push_back(compact_col_major_impl(m, current));
  return CuteLayout::tuple(std::move(modes));
}

Nest nest_of(const CuteLayout& l) {
  if (l.is_leaf) return Nest::make_leaf();
  std::vector<Nest> c;
  for (const CuteLayout& m : l.modes) c.push_back(nest_of(m));
  return Nest::tuple(std::move(c));
}

CuteLayout tree_from(const Layout& l, const Nest& n, size_t& next) {
  if (n.leaf) {
    const Mode& m = l.modes()[next++];
    Stride s;
    s.is_static = m.static_stride;
    for (size_t a = 0; a < l.axes().size(); ++a)
      if (m.stride[a] != 0) s.terms.push_back({l.axes()[a], m.stride[a]});
    std::sort(s.terms.begin(), s.terms.end());
    return CuteLayout::leaf(Int{m.extent, m.static_extent}, std::move(s));
  }
  std::vector<CuteLayout> modes;
  for (const Nest& c : n.children) modes.push_back(tree_from(l, c, next));
  return CuteLayout::tuple(std::move(modes));
}

}  // namespace

CuteLayout compact_col_major(const CuteLayout& shape_tree, Int current) {
  return compact_col_major_impl(shape_tree, current);
}

CuteLayout from_ir(const Layout& in) {
  if (auto problem = plain_cute_problem(in)) throw AlgebraError(*problem);
  const Layout l = in.with_order(IndexOrder::Colex);
  size_t next = 0;
  return tree_from(l, l.nest(), next);
}

Layout to_ir(const CuteLayout& l) {
  std::vector<CuteLayout> leaves = l.leaves();
  std::vector<Axis> axes;
  for (const CuteLayout& x : leaves)
    for (const auto& t : x.stride.terms)
      if (std::find(axes.begin(), axes.end(), t.first) == axes.end()) axes.push_back(t.first);
  if (axes.empty()) axes.push_back(Axis::memory());
  std::sort(axes.begin(), axes.end(), [](const Axis& a, const Axis& b) {
    if (a.is_memory() != b.is_memory()) return a.is_memory();
    return a < b;
  });
  LayoutParts p;
  p.order = IndexOrder::Colex;
  p.axes = axes;
  for (const CuteLayout& x : leaves) {
    // A computed extent below 1 is no layout at all (and -1 would read as the IR's "unknown
    // extent" of a bare descriptor): CuTe's arithmetic produced something that is not a shape.
    if (x.shape.value < 1)
      throw LayoutError(fmt::format("CuTe's result has extent {}, which is not a shape", x.shape.value));
    Mode m;
    m.extent = x.shape.value;
    m.static_extent = x.shape.is_static;
    m.static_stride = x.stride.is_static;
    m.stride.assign(axes.size(), 0);
    for (const auto& [axis, v] : x.stride.terms)
      m.stride[static_cast<size_t>(std::find(axes.begin(), axes.end(), axis) - axes.begin())] = v;
    p.modes.push_back(std::move(m));
  }
  p.nest = nest_of(l);
  return Layout::make(std::move(p));
}

std::string cute_text(const CuteLayout& l) { return print_cute(to_ir(l)).text; }

}  // namespace lp::algebra
