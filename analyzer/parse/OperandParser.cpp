#include "analyzer/parse/OperandParser.h"

#include <fmt/format.h>

#include "analyzer/ir/Checked.h"

namespace lp {

Swizzle parse_swizzle_parameters(Cursor& c, std::string_view closing) {
  c.expect("<", "after the swizzle's name");
  const size_t params = c.pos();
  const int64_t b = c.parse_int("the swizzle's B");
  c.expect(",", "between swizzle parameters");
  const int64_t m = c.parse_int("the swizzle's M");
  c.expect(",", "between swizzle parameters");
  const int64_t s = c.parse_int("the swizzle's S");
  c.expect(">", closing);
  if (std::string why = Swizzle::check(b, m, s); !why.empty()) c.fail_at(params, why);
  return Swizzle(static_cast<int>(b), static_cast<int>(m), static_cast<int>(s));
}

algebra::Int parse_cute_int(Cursor& c, std::string_view what) {
  c.skip_ws();
  const bool is_static = c.peek_raw() == '_' && ((c.peek_raw(1) >= '0' && c.peek_raw(1) <= '9') || c.peek_raw(1) == '-');
  if (is_static) c.set_pos(c.pos() + 1);
  return algebra::Int{c.parse_int(what), is_static};
}

std::optional<Swizzle> parse_swizzle_operand(std::shared_ptr<const SourceText> src) {
  Cursor c(std::move(src));
  c.skip_ws();
  std::string_view word;
  for (std::string_view w : {"Swizzle", "Sw", "S"})
    if (c.looking_at(std::string(w) + "<") || c.looking_at(std::string(w) + " <")) {
      word = w;
      break;
    }
  if (word.empty()) return std::nullopt;
  c.expect(word, "");
  const Swizzle sw = parse_swizzle_parameters(c, fmt::format("to close '{}<B,M,S>'", word));
  if (word == "Swizzle" && c.consume("{")) c.expect("}", "to close 'Swizzle<B,M,S>{'");
  if (!c.at_end()) return std::nullopt;  // a swizzled layout, `Sw<B,M,S> o ...`: a layout's text
  return sw;
}

std::optional<algebra::Int> parse_cute_integer(std::shared_ptr<const SourceText> src) {
  Cursor c(std::move(src));
  c.skip_ws();
  const char first = c.peek_raw(c.peek_raw() == '_' ? 1 : 0);
  if (!(first == '-' || (first >= '0' && first <= '9'))) return std::nullopt;
  const algebra::Int v = parse_cute_int(c, "an integer like 64 or _64");
  if (!c.at_end()) return std::nullopt;
  return v;
}

std::vector<algebra::Int> parse_flat_shape(std::shared_ptr<const SourceText> src) {
  Cursor c(std::move(src));
  std::vector<algebra::Int> shape = parse_flat_shape_at(c);
  if (!c.at_end()) c.fail_expected("the end of the shape");
  return shape;
}

std::vector<algebra::Int> parse_flat_shape_at(Cursor& c) {
  std::vector<algebra::Int> shape;
  const bool tuple = c.consume("(");
  int64_t size = 1;
  do {
    c.skip_ws();
    const size_t at = c.pos();
    const algebra::Int e = parse_cute_int(c, tuple ? "an extent (e.g. _8 or 8) of the flat shape" : "a shape like (_8,_16) or an extent");
    if (e.value < 1) c.fail_at(at, fmt::format("extent {} must be at least 1", e.value));
    if (__builtin_mul_overflow(size, e.value, &size)) c.fail_at(at, "the shape's size (the product of its extents) exceeds 2^63-1");
    shape.push_back(e);
  } while (tuple && c.consume(","));
  if (tuple) c.expect(")", "or ',' in the flat shape (nested modes are not a flat shape)");
  return shape;
}

}  // namespace lp
