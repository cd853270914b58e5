// complement: cute/layout.hpp (detail::complement).
#include <fmt/format.h>

#include "analyzer/algebra/Algorithms.h"
#include "analyzer/algebra/CuteRejects.h"

namespace lp::algebra {

namespace {

// CuTe's coalesce(Shape): multiplies neighbours of equal staticness.
std::vector<Int> coalesce_shape(const std::vector<Int>& shape) {
  std::vector<Int> out;
  for (const Int& s : shape) {
    if (!out.empty() && out.back().is_static == s.is_static) out.back() = out.back() * s;
    else out.push_back(s);
  }
  return out;
}

// CuTe's ceil_div(tuple, int): folds the divisor across the modes.
std::vector<Int> ceil_div_shape(const std::vector<Int>& shape, Int divisor) {
  std::vector<Int> out;
  for (const Int& s : shape) {
    out.push_back(ceil_div(s, divisor));
    divisor = ceil_div(divisor, s);
  }
  return out;
}

CuteLayout shape_layout(const std::vector<Int>& shape) {
  if (shape.size() == 1) return CuteLayout::leaf(shape[0], Int{1, true});
  std::vector<CuteLayout> modes;
  for (const Int& s : shape) modes.push_back(CuteLayout::leaf(s, Int{1, true}));
  return CuteLayout::tuple(std::move(modes));
}

Int checked_nonzero_shape(Int s) {
  if (s.is_constant(0)) throw CuteRejects("\"Non-injective Layout detected in complement.\"");
  return s;
}

}  // namespace

CuteLayout complement(const CuteLayout& layout, const std::vector<Int>& cotarget) {
  const CuteLayout filtered = filter(layout);
  std::vector<CuteLayout> leaves = filtered.leaves();
  for (const CuteLayout& l : leaves)
    if (!l.stride.is_integer())
      throw AlgebraError("complement of a layout with scaled-basis strides is not supported (only integer strides)");
  if (filtered.is_leaf && filtered.stride.is_zero() && filtered.stride.is_static)
    return compact_col_major(shape_layout(coalesce_shape(cotarget)));

  const size_t rank = leaves.size();
  if (rank > 1)
    for (const CuteLayout& l : leaves)
      if (!l.stride.is_static) throw CuteRejects("\"Dynamic-stride complement only for rank-1 layouts\"");
  std::vector<Int> result_shape;
  std::vector<Int> result_stride{Int{1, true}};
  for (size_t i = 0; i + 1 < rank; ++i) {
    size_t min_idx = 0;
    for (size_t k = 1; k < leaves.size(); ++k)
      if (leaves[k].stride.as_int().value < leaves[min_idx].stride.as_int().value) min_idx = k;
    const Int min_stride = leaves[min_idx].stride.as_int();
    result_shape.push_back(checked_nonzero_shape(min_stride / result_stride[i]));
    result_stride.push_back(min_stride * leaves[min_idx].shape);
    leaves.erase(leaves.begin() + static_cast<ptrdiff_t>(min_idx));
  }
  const Int last_stride = leaves[0].stride.as_int();
  result_shape.push_back(checked_nonzero_shape(last_stride / result_stride[rank - 1]));
  const Int new_stride = last_stride * leaves[0].shape;
  const std::vector<Int> rest_shape = coalesce_shape(ceil_div_shape(cotarget, new_stride));

  std::vector<CuteLayout> modes;
  for (size_t i = 0; i < result_shape.size(); ++i) modes.push_back(CuteLayout::leaf(result_shape[i], result_stride[i]));
  modes.push_back(compact_col_major(shape_layout(rest_shape), new_stride));
  return coalesce(CuteLayout::tuple(std::move(modes)));
}

CuteLayout complement(const CuteLayout& layout, Int cotarget) { return complement(layout, std::vector<Int>{cotarget}); }

CuteLayout complement(const CuteLayout& layout) { return complement(layout, filter(layout).cosize()); }

}  // namespace lp::algebra
