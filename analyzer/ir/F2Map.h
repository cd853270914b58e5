#pragma once
// An F2-linear map on the low bits of an offset: Triton's LinearLayout from an element's offset
// bits to its place, or any XOR pattern that no single CuTe Swizzle<B,M,S> expresses.
//
// column(k) is the image of bit k. For x >= 0 with low bits x_0..x_{n-1} (n = bits()),
//   apply(x) = (x with its low n bits cleared) XOR (XOR of column(k) over every set x_k),
// so the bits at and above n pass through unchanged, as a swizzle leaves the bits it does not
// read: stacked buffers (x + j * 2^n) keep their pattern. Like Swizzle::apply, negative offsets are
// read in two's complement.
//
// Invariants (checked by F2Map::check): at most kMaxBits columns, each in [0, 2^kMaxBits).
// The map need not be injective; the engines prove that when it matters.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/ir/Swizzle.h"

namespace lp {

class F2Map {
 public:
  /// Largest bit position a column may set: keeps every image inside a positive int64.
  static constexpr int kMaxBits = 62;

  /// The reason `columns` break the invariants, or an empty string.
  static std::string check(const std::vector<int64_t>& columns);
  /// Precondition: check(columns) is empty.
  explicit F2Map(std::vector<int64_t> columns);
  F2Map() = default;

  const std::vector<int64_t>& columns() const { return columns_; }
  int bits() const { return static_cast<int>(columns_.size()); }
  /// The bits this map reads (the low bits()) or writes (the columns' bits).
  int64_t touched_mask() const;
  /// The smallest power of two P with apply(x + P) == apply(x) + P for every x >= 0.
  int64_t period() const;
  int64_t apply(int64_t offset) const;
  /// The CuTe swizzle with the same function on every offset, if one exists (an identity map is
  /// Sw<0,0,0>).
  std::optional<Swizzle> as_swizzle() const;

  bool operator==(const F2Map&) const = default;

 private:
  std::vector<int64_t> columns_;
};

}  // namespace lp
