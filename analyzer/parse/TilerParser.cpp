#include "analyzer/parse/TilerParser.h"

#include <fmt/format.h>

#include "analyzer/parse/Parsers.h"

namespace lp {

namespace {

// After optional blanks at `p`: the end of a tiler item (`,`, `]` or the end of the text)?
bool item_ends_at(std::string_view t, size_t p) {
  while (p < t.size() && (t[p] == ' ' || t[p] == '\t' || t[p] == '\r' || t[p] == '\n')) ++p;
  return p == t.size() || t[p] == ',' || t[p] == ']';
}

Tiler layout_item(Cursor& c) {
  c.skip_ws();
  const size_t at = c.pos();
  Layout l = is_cpp_spelling(c.text().substr(at)) ? parse_cpp_spelling(c) : parse_cute(c);
  if (auto problem = plain_cute_problem(l)) c.fail_at(at, fmt::format("this layout cannot be a tiler: {}", *problem));
  return Tiler::of(std::move(l));
}

}  // namespace

namespace {
// An extent written over bound constants (`D/2`), alone in its item; otherwise nothing is read.
std::optional<int64_t> symbolic_extent(Cursor& c) {
  const size_t at = c.pos();
  std::optional<IntExpr> e = c.parse_int_expr();
  if (!e) return std::nullopt;
  if (c.peek() != ',' && c.peek() != ']') {
    c.set_pos(at);  // the start of a layout item (`D:_1`)
    return std::nullopt;
  }
  if (e->value < 1) c.fail_at(at, fmt::format("a tiler extent must be at least 1, not {}", e->value));
  return e->value;
}
}  // namespace

Tiler parse_tiler(Cursor& c) {
  Cursor::Depth guard(c);
  c.skip_ws();
  if (!c.consume("[")) return layout_item(c);
  std::vector<Tiler> parts;
  if (c.peek() == ']') c.fail_expected("a tiler item (a layout, an extent such as _8, or _) inside '[ ]'");
  do {
    c.skip_ws();
    const std::string_view t = c.text();
    const size_t at = c.pos();
    if (c.peek() == '[') {
      parts.push_back(parse_tiler(c));
    } else if (c.peek_raw() == '_' && item_ends_at(t, at + 1)) {
      c.set_pos(at + 1);
      parts.push_back(Tiler::underscore());
    } else if (std::optional<int64_t> n = symbolic_extent(c)) {
      parts.push_back(Tiler::of(Layout::make(LayoutParts{IndexOrder::Colex, {Axis::memory()},
                                                        {Mode{*n, {1}, false, true}}, Nest::make_leaf(), {}, {}, {}})));
    } else {
      // An extent N (N:_1) is a bare integer, `_N` or `N`, alone in its item.
      size_t digits = at + (c.peek_raw() == '_' ? 1 : 0);
      size_t end = digits;
      while (end < t.size() && t[end] >= '0' && t[end] <= '9') ++end;
      if (end > digits && item_ends_at(t, end)) {
        const bool is_static = digits > at;
        c.set_pos(digits);
        const int64_t n = c.parse_int("a tiler extent");
        if (n < 1) c.fail_at(at, fmt::format("a tiler extent must be at least 1, not {}", n));
        parts.push_back(Tiler::of(Layout::make(LayoutParts{IndexOrder::Colex, {Axis::memory()},
                                                          {Mode{n, {1}, is_static, true}}, Nest::make_leaf(), {}, {}, {}})));
      } else {
        parts.push_back(layout_item(c));
      }
    }
  } while (c.consume(","));
  c.expect("]", "or ',' in the tiler");
  return Tiler::tuple(std::move(parts));
}

Tiler parse_tiler(std::shared_ptr<const SourceText> src, ParseLimits limits, const std::vector<BoundConstant>* constants) {
  Cursor c(std::move(src), limits, Symbols{nullptr, constants});
  if (c.at_end()) c.fail_at(c.pos(), "expected a tiler ([T0, T1, ...] or a layout), found an empty text");
  Tiler t = parse_tiler(c);
  if (!c.at_end()) c.fail_expected("the end of the tiler");
  return t;
}

}  // namespace lp
