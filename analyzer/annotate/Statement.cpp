#include "analyzer/annotate/Statement.h"

#include <algorithm>
#include <utility>

namespace lp::annotate {

const char* space_name(Space s) {
  switch (s) {
    case Space::Smem: return "smem";
    case Space::Tmem: return "tmem";
    case Space::Regs: return "regs";
    case Space::Global: return "global";
  }
  return "smem";
}

const char* divide_name(DivideKind k) {
  switch (k) {
    case DivideKind::Logical: return "logical_divide";
    case DivideKind::Zipped: return "zipped_divide";
    case DivideKind::Tiled: return "tiled_divide";
    case DivideKind::Flat: return "flat_divide";
  }
  return "logical_divide";
}

const char* expect_name(ExpectKind k) {
  switch (k) {
    case ExpectKind::Injective: return "injective";
    case ExpectKind::ConflictFree: return "conflict-free";
    case ExpectKind::Wavefronts: return "wavefronts";
    case ExpectKind::Covers: return "covers";
    case ExpectKind::Illegal: return "illegal";
  }
  return "injective";
}

SourceLoc operand_loc(const Operand& o) {
  return std::visit([](const auto& x) { return x.loc; }, o);
}

namespace {

// Mirrors lp::dtype_bits (solver/SmemAccess.cpp), which lives in lp_solver; this library links
// only the parser and the hardware model. tests/annotate compares the two tables.
const std::vector<std::pair<std::string, int>>& dtype_table() {
  static const std::vector<std::pair<std::string, int>> kTable = {
      {"u8", 8},     {"s8", 8},     {"i8", 8},     {"b8", 8},    {"e4m3", 8},   {"e5m2", 8},   {"fp8", 8},
      {"f16", 16},   {"bf16", 16},  {"u16", 16},   {"s16", 16},  {"b16", 16},   {"half", 16},  {"f32", 32},
      {"tf32", 32},  {"u32", 32},   {"s32", 32},   {"b32", 32},  {"float", 32}, {"f64", 64},   {"u64", 64},
      {"s64", 64},   {"b64", 64},   {"double", 64}, {"b128", 128}};
  return kTable;
}

}  // namespace

std::optional<int> annotation_dtype_bits(std::string_view name) {
  for (const auto& [n, bits] : dtype_table())
    if (n == name) return bits;
  return std::nullopt;
}

const std::vector<std::string>& annotation_dtype_names() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> v;
    for (const auto& [n, bits] : dtype_table()) v.push_back(n);
    return v;
  }();
  return kNames;
}

}  // namespace lp::annotate
