// Swizzle compositions: cute/swizzle.hpp (make_swizzle, composition of swizzles) and
// cute/swizzle_layout.hpp (composition(Layout, Swizzle)).
#include <bit>
#include <climits>
#include <cstdint>
#include <fmt/format.h>

#include "analyzer/algebra/Algorithms.h"
#include "analyzer/algebra/CuteRejects.h"
#include "analyzer/ir/Checked.h"

namespace lp::algebra {

namespace {

// CuTe's L(i) for any i >= 0: colex split, the last mode takes the remainder (CuTe never reduces
// the last mode), so the masks may lie outside L's domain as they do in CuTe.
int64_t cute_value_beyond_domain(const CuteLayout& l, int64_t i) {
  const std::vector<CuteLayout> leaves = l.leaves();
  int64_t value = 0;
  for (size_t k = 0; k < leaves.size(); ++k) {
    if (!leaves[k].stride.is_integer())
      throw AlgebraError("composition(Layout, Swizzle) needs integer strides in the layout");
    const int64_t extent = leaves[k].shape.value;
    const int64_t c = k + 1 == leaves.size() ? i : i % extent;
    value = checked_add(value, checked_mul(c, leaves[k].stride.as_int().value, "layout algebra"), "layout algebra");
    i /= extent;
  }
  return value;
}

}  // namespace

std::optional<Swizzle> make_swizzle(int64_t y_mask, int64_t z_mask, std::string& why_not) {
  const auto y = static_cast<uint32_t>(y_mask), z = static_cast<uint32_t>(z_mask);
  if (y_mask < 0 || z_mask < 0 || y_mask > INT32_MAX || z_mask > INT32_MAX) {
    why_not = fmt::format("make_swizzle<{},{}>: CuTe's masks are non-negative 32-bit ints", y_mask, z_mask);
    return std::nullopt;
  }
  const int bits = std::popcount(y);
  if (bits != std::popcount(z)) {
    why_not = fmt::format("make_swizzle<{:#x},{:#x}>: \"Number of bits in Y and Z don't match\"", y, z);
    return std::nullopt;
  }
  const int tz_y = std::countr_zero(y), tz_z = std::countr_zero(z);
  const int base = std::min(tz_y, tz_z) % 32;
  const int shift = tz_y - tz_z;
  const std::string invalid = Swizzle::check(bits, base, shift);
  if (!invalid.empty()) {
    why_not = fmt::format("make_swizzle<{:#x},{:#x}>: {}", y, z, invalid);
    return std::nullopt;
  }
  Swizzle s(bits, base, shift);
  if (static_cast<uint32_t>(s.source_mask() | s.dest_mask()) != (y | z)) {
    why_not = fmt::format("make_swizzle<{:#x},{:#x}>: the masks are not two contiguous bit fields "
                          "(CuTe's static_assert \"Something went wrong.\")", y, z);
    return std::nullopt;
  }
  return s;
}

std::optional<Swizzle> compose_swizzles(const Swizzle& outer, const Swizzle& inner, std::string& why_not) {
  if (outer.shift() != inner.shift()) {
    why_not = fmt::format("composition(Sw<{},{},{}>, Sw<{},{},{}>): \"Can only merge swizzles of the same shift.\"",
                          outer.bits(), outer.base(), outer.shift(), inner.bits(), inner.base(), inner.shift());
    return std::nullopt;
  }
  return make_swizzle(outer.source_mask() ^ inner.source_mask(), outer.dest_mask() ^ inner.dest_mask(), why_not);
}

std::optional<Swizzle> swizzle_through_layout(const CuteLayout& a, const Swizzle& sw, std::string& why_not) {
  const int64_t active_y = cute_value_beyond_domain(a, sw.source_mask());
  const int64_t active_z = cute_value_beyond_domain(a, sw.dest_mask());
  return make_swizzle(active_y, active_z, why_not);
}

}  // namespace lp::algebra
