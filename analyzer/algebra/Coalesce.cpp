// coalesce, filter_zeros, filter: cute/layout.hpp (bw_coalesce, coalesce_x, filter_zeros, filter).
#include "analyzer/algebra/Algorithms.h"

namespace lp::algebra {

namespace {

// True when CuTe can decide `a*b == c` at compile time and it holds (is_constant<true, ...>).
bool statically_equal(Int shape, const Stride& stride, const Stride& next) {
  Stride product = shape * stride;
  return product.is_static && next.is_static && product == next;
}

// CuTe's detail::bw_coalesce over the flat leaves, walking from the back. `front` holds the
// modes built so far (front first); `single` says the result is still CuTe's integral form.
CuteLayout bw_coalesce(const std::vector<CuteLayout>& flat, CuteLayout seed) {
  std::vector<CuteLayout> built{std::move(seed)};
  for (size_t k = flat.size() - 1; k-- > 0;) {
    const CuteLayout& old = flat[k];
    if (old.shape.is_constant(1)) continue;
    if (built.size() == 1 && built[0].shape.is_constant(1)) {
      built[0] = old;
    } else if (built[0].shape.is_static && statically_equal(old.shape, old.stride, built[0].stride)) {
      built[0] = CuteLayout::leaf(old.shape * built[0].shape, old.stride);
    } else {
      built.insert(built.begin(), old);
    }
  }
  if (built.size() == 1) {
    if (built[0].shape.is_constant(1)) return CuteLayout::leaf(Int{1, true}, Int{0, true});
    return built[0];
  }
  return CuteLayout::tuple(std::move(built));
}

}  // namespace

CuteLayout coalesce(const CuteLayout& l) {
  std::vector<CuteLayout> flat = l.leaves();
  if (flat.empty()) throw AlgebraError("coalesce of an empty layout ()");
  return bw_coalesce(flat, flat.back());
}

CuteLayout coalesce_x(const CuteLayout& l) {
  std::vector<CuteLayout> flat = l.leaves();
  if (flat.empty()) throw AlgebraError("coalesce of an empty layout ()");
  CuteLayout seed = flat.back();
  // CuTe seeds a trailing static-1 mode with _2 so that the layout keeps extending linearly
  // past its domain (the function outside the domain matters to composition).
  if (seed.shape.is_constant(1)) seed.shape = Int{2, true};
  return bw_coalesce(flat, std::move(seed));
}

CuteLayout filter_zeros(const CuteLayout& l) {
  if (l.is_leaf) {
    if (l.stride.is_zero() && l.stride.is_static) return CuteLayout::leaf(Int{1, true}, l.stride);
    return l;
  }
  std::vector<CuteLayout> modes;
  for (const CuteLayout& m : l.modes) modes.push_back(filter_zeros(m));
  return CuteLayout::tuple(std::move(modes));
}

CuteLayout filter(const CuteLayout& l) { return coalesce(filter_zeros(l)); }

}  // namespace lp::algebra
