#include "RandomLayouts.h"

#include <algorithm>

namespace lp::algebra::testing {

int64_t LayoutGen::pick(std::initializer_list<int64_t> values) {
  std::uniform_int_distribution<size_t> d(0, values.size() - 1);
  return *(values.begin() + d(rng));
}

bool LayoutGen::chance(double p) { return std::bernoulli_distribution(p)(rng); }

Int LayoutGen::value(int64_t v) { return Int{v, !(allow_dynamic && chance(0.3))}; }

CuteLayout LayoutGen::any(int max_rank) {
  const int rank = static_cast<int>(pick({1, 2, 3}));
  std::vector<CuteLayout> modes;
  for (int i = 0; i < std::min(rank, max_rank); ++i) {
    auto leaf = [&] {
      int64_t stride = pick({0, 1, 1, 2, 3, 4, 6, 8, 12, 16, 32});
      if (allow_negative && chance(0.15)) stride = -stride;
      return CuteLayout::leaf(value(pick({1, 2, 2, 3, 4, 4, 6, 8})), value(stride));
    };
    if (allow_nesting && chance(0.2)) modes.push_back(CuteLayout::tuple({leaf(), leaf()}));
    else modes.push_back(leaf());
  }
  return modes.size() == 1 ? modes[0] : CuteLayout::tuple(std::move(modes));
}

CuteLayout LayoutGen::compact(int max_rank) {
  const int rank = std::min<int>(static_cast<int>(pick({1, 2, 3})), max_rank);
  std::vector<int64_t> extents;
  for (int i = 0; i < rank; ++i) extents.push_back(pick({2, 2, 3, 4, 4, 8}));
  std::vector<size_t> order(extents.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<int64_t> strides(extents.size());
  int64_t s = 1;
  for (size_t k : order) {
    strides[k] = s;
    s *= extents[k];
  }
  std::vector<CuteLayout> modes;
  for (size_t i = 0; i < extents.size(); ++i) modes.push_back(CuteLayout::leaf(value(extents[i]), value(strides[i])));
  return modes.size() == 1 ? modes[0] : CuteLayout::tuple(std::move(modes));
}

CuteLayout LayoutGen::col_major(const std::vector<int64_t>& extents) {
  std::vector<CuteLayout> modes;
  int64_t s = 1;
  for (int64_t e : extents) {
    modes.push_back(CuteLayout::leaf(value(e), value(s)));
    s *= e;
  }
  return modes.size() == 1 ? modes[0] : CuteLayout::tuple(std::move(modes));
}

}  // namespace lp::algebra::testing
