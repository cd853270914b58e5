#pragma once
// Element types as annotations and `prove --dtype` name them, and their sizes: the one table the
// annotation parser, the solver's accesses and the reports share.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lp::hw {

/// The size in bits (8..128) of the element type `name` (f16, bf16, f32, tf32, f64, u8, s8, i8,
/// e4m3, e5m2, fp8, u16, s16, u32, s32, u64, s64, b8..b128, half, float, double), or nullopt.
std::optional<int> element_bits(std::string_view name);

/// Every element type name, in the table's order, for diagnostics.
const std::vector<std::string>& element_type_names();

}  // namespace lp::hw
