#pragma once
// Seeded random CuTe layouts for the property and differential suites.
#include <random>

#include "analyzer/algebra/CuteLayout.h"

namespace lp::algebra::testing {

struct LayoutGen {
  std::mt19937_64 rng;
  bool allow_dynamic = false;  ///< some values dynamic (CuTe `4` instead of `_4`)
  bool allow_negative = false;
  bool allow_nesting = true;

  explicit LayoutGen(uint64_t seed) : rng(seed) {}
  int64_t pick(std::initializer_list<int64_t> values);
  bool chance(double p);
  Int value(int64_t v);
  /// Any layout: rank 1-3, extents in {1,2,3,4,6,8}, strides from a small set (zeros included).
  CuteLayout any(int max_rank = 3);
  /// A compact layout (a bijection onto [0, size)) with its modes in a random stride order.
  CuteLayout compact(int max_rank = 3);
  /// A leaf or flat tuple of the given extents with compact column-major strides.
  CuteLayout col_major(const std::vector<int64_t>& extents);
};

}  // namespace lp::algebra::testing
