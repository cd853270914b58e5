// composition: cute/layout.hpp (composition_impl, composition for layouts and tilers).
#include <fmt/format.h>

#include "analyzer/algebra/Algorithms.h"
#include "analyzer/algebra/CuteRejects.h"

namespace lp::algebra {

namespace {

// The codomain profile of rhs's strides (CuTe's coprofile): a leaf for integer strides, a tree of
// basis positions otherwise. lhs is coalesced separately under each terminal of the profile.
struct Profile {
  bool is_leaf = true;
  std::vector<Profile> children;
};

void add_path(Profile& p, const std::vector<uint32_t>& path, size_t depth) {
  if (depth == path.size()) return;
  p.is_leaf = false;
  if (p.children.size() <= path[depth]) p.children.resize(path[depth] + 1);
  add_path(p.children[path[depth]], path, depth + 1);
}

Profile coprofile(const CuteLayout& rhs) {
  Profile p;
  bool any_integer = false, any_basis = false;
  for (const CuteLayout& leaf : rhs.leaves())
    for (const auto& [axis, v] : leaf.stride.terms) {
      if (axis.is_basis()) {
        any_basis = true;
        add_path(p, axis.path(), 0);
      } else {
        any_integer = true;
      }
    }
  if (any_integer && any_basis)
    throw AlgebraError("the right operand mixes integer strides and scaled-basis strides; its codomain is not one "
                       "CuTe coordinate space");
  return p;
}

CuteLayout coalesce_x_by(const CuteLayout& l, const Profile& p) {
  if (p.is_leaf) return coalesce_x(l);
  if (p.children.size() > l.rank())
    throw AlgebraError(fmt::format("the right operand's scaled bases address mode {} of a rank-{} left operand",
                                   p.children.size() - 1, l.rank()));
  std::vector<CuteLayout> modes;
  for (size_t i = 0; i < l.rank(); ++i)
    modes.push_back(i < p.children.size() ? coalesce_x_by(l.mode(i), p.children[i]) : l.mode(i));
  return CuteLayout::tuple(std::move(modes));
}

CuteLayout composition_impl(const CuteLayout& lhs, const CuteLayout& rhs);

CuteLayout compose_leaf(const CuteLayout& lhs, Int rhs_shape, Stride rhs_stride) {
  if (rhs_stride.is_single_basis()) {
    const CuteLayout* sub = &lhs;
    for (uint32_t i : rhs_stride.terms[0].first.path()) sub = &sub->mode(i);
    return compose_leaf(*sub, rhs_shape, Stride::integer(Int{rhs_stride.terms[0].second, rhs_stride.is_static}));
  }
  if (!rhs_stride.is_integer())
    throw AlgebraError("a right-operand stride is a sum of several scaled bases; CuTe composes only single bases");
  if (rhs_stride.is_zero() && rhs_stride.is_static) return CuteLayout::leaf(rhs_shape, rhs_stride);
  if (lhs.is_leaf) return CuteLayout::leaf(rhs_shape, rhs_stride.as_int() * lhs.stride);

  const size_t rank = lhs.rank();
  std::vector<CuteLayout> result;
  Int rest_shape = rhs_shape;
  Int rest_stride = rhs_stride.as_int();
  for (size_t i = 0; i + 1 < rank; ++i) {
    const CuteLayout& curr = lhs.modes[i];
    if (!curr.is_leaf) throw AlgebraError("composition met a nested mode in the flattened left operand");
    const Int curr_shape = curr.shape;
    if (curr_shape.is_static && rest_stride.is_static && rest_stride.value % curr_shape.value != 0 &&
        !(rest_stride.value < curr_shape.value))
      throw CuteRejects(fmt::format("\"Stride Divisibility Condition\": stride {} vs extent {} of left mode {}",
                                    rest_stride.value, curr_shape.value, i));
    if (rest_stride.value == 0)
      throw CuteRejects("a dynamic stride 0 in the right operand makes CuTe divide by zero at run time");
    const Int next_shape = ceil_div(curr_shape, abs(rest_stride));
    const Int sign{rest_stride.value < 0 ? -1 : 1, rest_stride.is_static};
    const Int next_stride = ceil_div(abs(rest_stride), curr_shape) * sign;
    if (next_shape.is_constant(1) || rest_shape.is_constant(1)) {
      rest_stride = next_stride;
      continue;
    }
    const Int new_shape = min(next_shape, rest_shape);
    if (new_shape.is_static && rest_shape.is_static && rest_shape.value % new_shape.value != 0)
      throw CuteRejects(fmt::format("\"Shape Divisibility Condition\": extent {} is not a multiple of {} at left mode {}",
                                    rest_shape.value, new_shape.value, i));
    result.push_back(CuteLayout::leaf(new_shape, rest_stride * curr.stride));
    rest_shape = rest_shape / new_shape;
    rest_stride = next_stride;
  }
  const CuteLayout& last = lhs.modes[rank - 1];
  if (!last.is_leaf) throw AlgebraError("composition met a nested mode in the flattened left operand");
  if (result.empty()) return CuteLayout::leaf(rest_shape, rest_stride * last.stride);
  if (rest_shape.is_constant(1)) return result.size() == 1 ? result[0] : CuteLayout::tuple(std::move(result));
  result.push_back(CuteLayout::leaf(rest_shape, rest_stride * last.stride));
  return CuteLayout::tuple(std::move(result));
}

CuteLayout composition_impl(const CuteLayout& lhs, const CuteLayout& rhs) {
  if (rhs.is_leaf) return compose_leaf(lhs, rhs.shape, rhs.stride);
  std::vector<CuteLayout> modes;
  for (const CuteLayout& m : rhs.modes) modes.push_back(composition_impl(lhs, m));
  return CuteLayout::tuple(std::move(modes));
}

}  // namespace

CuteLayout composition(const CuteLayout& lhs, const CuteLayout& rhs) {
  if (lhs.leaves().empty()) throw AlgebraError("composition with an empty left operand ()");
  return composition_impl(coalesce_x_by(lhs, coprofile(rhs)), rhs);
}

CuteTiler to_cute(const Tiler& t) {
  switch (t.kind) {
    case Tiler::Kind::Layout: return CuteTiler::of(from_ir(*t.layout));
    case Tiler::Kind::Underscore: return CuteTiler::underscore();
    case Tiler::Kind::Tuple: break;
  }
  std::vector<CuteTiler> parts;
  for (const Tiler& p : t.parts) parts.push_back(to_cute(p));
  return CuteTiler::tuple(std::move(parts));
}

CuteLayout composition(const CuteLayout& lhs, const CuteTiler& tiler) {
  switch (tiler.kind) {
    case CuteTiler::Kind::Underscore:
      return lhs;
    case CuteTiler::Kind::Layout:
      return composition(lhs, tiler.layout);
    case CuteTiler::Kind::Tuple: {
      if (tiler.parts.size() > lhs.rank())
        throw CuteRejects(fmt::format("a rank-{} tiler on a rank-{} layout", tiler.parts.size(), lhs.rank()));
      std::vector<CuteLayout> modes;
      for (size_t i = 0; i < tiler.parts.size(); ++i) modes.push_back(composition(lhs.mode(i), tiler.parts[i]));
      return CuteLayout::tuple(std::move(modes));
    }
  }
  return lhs;
}

}  // namespace lp::algebra
