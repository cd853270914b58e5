// right_inverse, left_inverse, max_common_vector: cute/layout.hpp.
#include <algorithm>
#include <numeric>

#include "analyzer/algebra/Algorithms.h"
#include "analyzer/algebra/CuteRejects.h"

namespace lp::algebra {

namespace {

struct FlatModes {
  std::vector<Int> shape, stride;
  std::vector<Int> prefix_product;  ///< CuTe's preprod_shape: [_1, s0, s0*s1, ...]
};

FlatModes coalesced_modes(const CuteLayout& l) {
  FlatModes f;
  for (const CuteLayout& leaf : coalesce(l).leaves()) {
    if (!leaf.stride.is_integer())
      throw AlgebraError("inverses of layouts with scaled-basis strides are not supported (only integer strides)");
    f.shape.push_back(leaf.shape);
    f.stride.push_back(leaf.stride.as_int());
  }
  f.prefix_product.push_back(Int{1, true});
  for (const Int& s : f.shape) f.prefix_product.push_back(s * f.prefix_product.back());
  return f;
}

// Mode indices ordered by stride value exactly as CuTe's SortByKey orders them: an exchange sort,
// which is not stable, so ties come out in CuTe's order (it decides which mode an inverse uses).
std::vector<size_t> sorted_by_stride(const FlatModes& f, const std::vector<size_t>& indices) {
  std::vector<size_t> a = indices;
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = i + 1; j < a.size(); ++j)
      if (f.stride[a[j]].value < f.stride[a[i]].value) std::swap(a[i], a[j]);
  return a;
}

CuteLayout layout_of(const std::vector<Int>& shape, const std::vector<Int>& stride) {
  std::vector<CuteLayout> modes;
  for (size_t i = 0; i < shape.size(); ++i) modes.push_back(CuteLayout::leaf(shape[i], stride[i]));
  return modes.size() == 1 ? modes[0] : CuteLayout::tuple(std::move(modes));
}

}  // namespace

CuteLayout right_inverse(const CuteLayout& l) {
  const FlatModes f = coalesced_modes(l);
  std::vector<size_t> static_modes;
  for (size_t i = 0; i < f.stride.size(); ++i)
    if (f.stride[i].is_static) static_modes.push_back(i);
  std::vector<Int> shape{Int{1, true}}, stride{Int{0, true}};
  Int current{1, true};
  for (size_t i : sorted_by_stride(f, static_modes)) {
    // CuTe: is_constant<istride, curr_stride>, so a dynamic running stride stops the search.
    if (current.is_static && f.stride[i].value == current.value) {
      shape.push_back(f.shape[i]);
      stride.push_back(f.prefix_product[i]);
      current = f.shape[i] * f.stride[i];
    }
  }
  return coalesce(layout_of(shape, stride));
}

CuteLayout left_inverse(const CuteLayout& l) {
  const FlatModes f = coalesced_modes(l);
  for (const Int& d : f.stride)
    if (!d.is_static) throw CuteRejects("\"Left inverse requires static strides.\"");
  std::vector<size_t> all(f.stride.size());
  std::iota(all.begin(), all.end(), size_t{0});
  const std::vector<size_t> order = sorted_by_stride(f, all);
  std::vector<Int> shape, stride{Int{0, true}};
  Int covered{1, true};  // size(result_shape)
  for (size_t i : order) {
    const Int d = f.stride[i];
    if (d.is_constant(0)) continue;
    if (!covered.is_static || d.value % covered.value != 0)
      throw CuteRejects("\"Left inverse divisibility condition\"");
    shape.push_back(d / covered);
    stride.push_back(f.prefix_product[i]);
    covered = covered * shape.back();
  }
  shape.push_back(f.shape[order.back()]);
  return coalesce(layout_of(shape, stride));
}

Int max_common_vector(const CuteLayout& a, const CuteLayout& b) {
  const CuteLayout common = coalesce(composition(a, right_inverse(b)));
  const CuteLayout& first = common.is_leaf ? common : common.modes[0];
  if (first.shape.is_static && first.stride.is_static && first.stride == Stride::integer(Int{1, true}))
    return first.shape;
  return Int{1, true};
}

}  // namespace lp::algebra
