#include "analyzer/parse/OperationParser.h"

#include <fmt/format.h>

#include <algorithm>

#include "analyzer/parse/OperandParser.h"
#include "analyzer/parse/Parsers.h"
#include "analyzer/parse/TilerParser.h"

namespace lp {

namespace {

using namespace lp::algebra;

template <class Parse>
auto parse_operand(const std::string& text, const std::string& name, Parse&& parse) {
  auto src = std::make_shared<SourceText>();
  src->name = name;
  src->text = text;
  return parse(src);
}

std::string operand_name(size_t i) { return fmt::format("<operand {}>", i + 1); }

// A tiler: `[T0, T1, ...]` or a single layout in any notation (analyzer/parse/TilerParser.h), an
// extent N (CuTe reads it as N:_1), or `_` (keep the mode).
CuteTiler tiler_operand(const std::string& text, const std::string& name) {
  const size_t first = text.find_first_not_of(" \t"), last = text.find_last_not_of(" \t");
  if (first != std::string::npos && first == last && text[first] == '_') return CuteTiler::underscore();
  if (auto n = parse_operand(text, name, parse_cute_integer)) {
    if (n->value < 1) throw OperationError(fmt::format("tiler extent {} must be >= 1", n->value));
    return CuteTiler::of(CuteLayout::leaf(*n, Int{1, true}));
  }
  return parse_operand(text, name, [](std::shared_ptr<const SourceText> src) { return to_cute(parse_tiler(std::move(src))); });
}

Layout layout_operand(const std::string& text, const std::string& name) { return parse_layout_text(text, name).layout; }

Operand compose_operand(const std::string& text, const std::string& name) {
  if (auto sw = parse_operand(text, name, parse_swizzle_operand)) return *sw;
  const size_t first = text.find_first_not_of(" \t");
  if (first != std::string::npos && text[first] == '[') return tiler_operand(text, name);
  return layout_operand(text, name);
}

}  // namespace

const std::vector<std::string>& algebra_operation_names() {
  static const std::vector<std::string> names = {
      "compose",         "complement",    "logical_divide", "zipped_divide", "tiled_divide",  "flat_divide",
      "logical_product", "blocked_product", "raked_product", "tile_to_shape", "coalesce",      "filter_zeros",
      "filter",          "right_inverse", "left_inverse",   "max_common_vector"};
  return names;
}

algebra::Outcome evaluate_algebra_operation(const std::string& op, const std::vector<std::string>& args) {
  const auto& names = algebra_operation_names();
  if (std::find(names.begin(), names.end(), op) == names.end())
    throw OperationError(fmt::format("unknown operation '{}' (expected one of: {})", op, fmt::join(names, ", ")));
  auto need = [&](size_t lo, size_t hi) {
    if (args.size() < lo || args.size() > hi)
      throw OperationError(lo == hi ? fmt::format("{} takes {} operand(s), got {}", op, lo, args.size())
                                    : fmt::format("{} takes {} to {} operands, got {}", op, lo, hi, args.size()));
  };
  auto layout_arg = [&](size_t i) { return layout_operand(args[i], operand_name(i)); };
  const std::string n2 = operand_name(1);
  if (op == "compose") {
    need(2, 2);
    return op_compose(compose_operand(args[0], operand_name(0)), compose_operand(args[1], n2));
  }
  if (op == "complement") {
    need(1, 2);
    std::optional<Cotarget> cotarget;  // an integer, or a shape as CuTe's IntTuple cotarget
    if (args.size() == 2) cotarget = Cotarget{parse_operand(args[1], "<cotarget>", parse_flat_shape)};
    return op_complement(layout_arg(0), cotarget);
  }
  if (op.ends_with("_divide")) {
    need(2, 2);
    const DivideKind kind = op == "logical_divide" ? DivideKind::Logical
                            : op == "zipped_divide" ? DivideKind::Zipped
                            : op == "tiled_divide"  ? DivideKind::Tiled
                                                    : DivideKind::Flat;
    return op_divide(kind, layout_arg(0), tiler_operand(args[1], n2));
  }
  if (op == "logical_product") {
    need(2, 2);
    return op_logical_product(layout_arg(0), tiler_operand(args[1], n2));
  }
  if (op == "blocked_product" || op == "raked_product" || op == "max_common_vector") {
    need(2, 2);
    if (op == "blocked_product") return op_blocked_product(layout_arg(0), layout_arg(1));
    if (op == "raked_product") return op_raked_product(layout_arg(0), layout_arg(1));
    return op_max_common_vector(layout_arg(0), layout_arg(1));
  }
  if (op == "tile_to_shape") {
    need(2, 2);
    return op_tile_to_shape(layout_arg(0), parse_operand(args[1], "<target shape>", parse_flat_shape));
  }
  need(1, 1);
  if (op == "coalesce") return op_coalesce(layout_arg(0));
  if (op == "filter_zeros") return op_filter_zeros(layout_arg(0));
  if (op == "filter") return op_filter(layout_arg(0));
  if (op == "right_inverse") return op_right_inverse(layout_arg(0));
  return op_left_inverse(layout_arg(0));
}

}  // namespace lp
