// Seed 003's descriptor grammar, with the normalisation it asks for: fractions reduced, a zero
// denominator or a non-integral count rejected, inconsistent bases rejected.
#include <fmt/format.h>

#include <numeric>

#include "analyzer/parse/AxisTable.h"
#include "analyzer/parse/Parsers.h"
#include "analyzer/parse/TreeBuilder.h"

namespace lp {

namespace {

void parse_entry(Cursor& c, TreeNode& shape, TreeNode& stride, AxisTable& axes);

void parse_group(Cursor& c, TreeNode& shape, TreeNode& stride, AxisTable& axes) {
  Cursor::Depth guard(c);
  c.skip_ws();
  shape.at = stride.at = c.pos();
  shape.leaf = stride.leaf = false;
  c.expect("(", "to open a descriptor group");
  if (c.consume(")")) return;
  do {
    shape.children.emplace_back();
    stride.children.emplace_back();
    parse_entry(c, shape.children.back(), stride.children.back(), axes);
  } while (c.consume(","));
  c.expect(")", "or ',' in the descriptor group");
}

void parse_entry(Cursor& c, TreeNode& shape, TreeNode& stride, AxisTable& axes) {
  if (c.peek() == '(') return parse_group(c, shape, stride, axes);
  c.skip_ws();
  size_t at = c.pos();
  shape.at = stride.at = at;
  int64_t num = c.parse_int("a basis count (e.g. 8 in 8@1) or '('");
  int64_t den = 1;
  size_t den_at = c.pos();
  if (c.consume("/")) {
    c.skip_ws();
    den_at = c.pos();
    den = c.parse_int("a denominator after '/'");
  }
  if (den == 0) c.fail_at(den_at, fmt::format("basis count {}/0 has a zero denominator", num));
  int64_t g = std::gcd(num, den);  // std::gcd of INT64_MIN is undefined: parse_int caps at -2^63
  if (g == 0) g = 1;
  if (num == INT64_MIN || den == INT64_MIN)
    c.fail_at(at, "basis count does not fit in 64 bits");
  num /= g;
  den /= g;
  if (den < 0) {
    num = -num;
    den = -den;
  }
  if (den != 1)
    c.fail_at(at, fmt::format("basis count {}/{} is not an integer: a layout maps integer coordinates to "
                              "integer offsets",
                              num, den));
  std::vector<uint32_t> printed;
  do {
    c.expect("@", printed.empty() ? "after the count: a descriptor entry is a basis N@dim"
                                  : "or ',' after the basis");
    c.skip_ws();
    size_t dim_at = c.pos();
    if (c.peek_raw() == '-') c.fail_at(dim_at, "a basis dimension is a non-negative index");
    int64_t d = c.parse_int("a dimension index after '@'");
    if (d > 1023) c.fail_at(dim_at, fmt::format("dimension {} is outside [0, 1023]", d));
    printed.push_back(static_cast<uint32_t>(d));
    if (printed.size() > 16) c.fail_at(dim_at, "a basis naming more than 16 nested dimensions");
  } while (c.peek() == '@');
  shape.unknown_extent = true;
  shape.static_value = stride.static_value = false;
  stride.term.value = num;
  stride.term.axis = Axis::basis({printed.rbegin(), printed.rend()});
  axes.note(stride.term);
}

}  // namespace

Layout parse_descriptor(Cursor& c) {
  c.skip_ws();
  size_t start = c.pos();
  TreeNode shape, stride;
  AxisTable axes;
  parse_group(c, shape, stride, axes);
  return build_layout(c, start, shape, stride, axes, IndexOrder::Colex);
}

}  // namespace lp
