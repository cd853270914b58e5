#include "hw/ElementType.h"

#include <utility>

namespace lp::hw {

namespace {

const std::vector<std::pair<std::string, int>>& element_table() {
  static const std::vector<std::pair<std::string, int>> kTable = {
      {"u8", 8},     {"s8", 8},     {"i8", 8},     {"b8", 8},    {"e4m3", 8},   {"e5m2", 8},   {"fp8", 8},
      {"f16", 16},   {"bf16", 16},  {"u16", 16},   {"s16", 16},  {"b16", 16},   {"half", 16},  {"f32", 32},
      {"tf32", 32},  {"u32", 32},   {"s32", 32},   {"b32", 32},  {"float", 32}, {"f64", 64},   {"u64", 64},
      {"s64", 64},   {"b64", 64},   {"double", 64}, {"b128", 128}};
  return kTable;
}

}  // namespace

std::optional<int> element_bits(std::string_view name) {
  for (const auto& [n, bits] : element_table())
    if (n == name) return bits;
  return std::nullopt;
}

const std::vector<std::string>& element_type_names() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> v;
    for (const auto& [n, bits] : element_table()) v.push_back(n);
    return v;
  }();
  return kNames;
}

}  // namespace lp::hw
