// CuTe layouts spelled as C++, the way kernel authors copy them out of their code:
//   composition(Swizzle<3,3,3>{}, Layout<Shape<_8,_64>, Stride<_64,_1>>{})
//   make_layout(make_shape(8,64), make_stride(64,1)), make_layout(shape, GenRowMajor{})
//   ComposedLayout<Swizzle<3,4,3>, smem_ptr_flag_bits<16>, Layout<...>>
// Template arguments may be constant expressions (Int<128 + 4>); `cute::` prefixes are ignored.
#include <fmt/format.h>

#include <algorithm>

#include "analyzer/parse/AxisTable.h"
#include "analyzer/parse/Parsers.h"
#include "analyzer/parse/TreeBuilder.h"

namespace lp {

namespace {

// Reads an identifier, skipping `cute::` qualifiers.
std::string word(Cursor& c) {
  c.skip_ws();
  while (c.looking_at("cute") && c.text().substr(c.pos(), 6) == "cute::") c.set_pos(c.pos() + 6);
  return c.parse_identifier();
}

// `{}` or `()` after a type used as a value; both are optional.
void value_braces(Cursor& c) {
  if (c.consume("{")) c.expect("}", "to close '{}'");
  else if (c.looking_at("()")) c.consume("()");
}

std::pair<int64_t, bool> int_value(Cursor& c, bool allow_dynamic, std::string_view what);

// One integer operand: `_8`, `Int<8>`, `C<8>` (static) or a literal (dynamic). `allow_dynamic`
// is false inside template argument lists, where only static integers are types.
std::pair<int64_t, bool> int_atom(Cursor& c, bool allow_dynamic, std::string_view what) {
  c.skip_ws();
  size_t save = c.pos();
  std::string w = word(c);
  if (w.size() > 1 && w[0] == '_' && std::all_of(w.begin() + 1, w.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
    c.set_pos(save);
    while (c.text().substr(c.pos(), 6) == "cute::") c.set_pos(c.pos() + 6);
    c.set_pos(c.pos() + 1);
    int64_t v = c.parse_int(what);
    if (allow_dynamic) value_braces(c);
    return {v, true};
  }
  if (w == "Int" || w == "C") {
    c.expect("<", fmt::format("after '{}'", w));
    int64_t v = c.parse_const_expr(what);
    c.expect(">", fmt::format("to close '{}<...>'", w));
    if (allow_dynamic) value_braces(c);
    return {v, true};
  }
  c.set_pos(save);
  if (!allow_dynamic) c.fail_expected(fmt::format("{} as a static integer (_8, Int<8>)", what));
  if (c.consume("(")) {
    Cursor::Depth guard(c);
    auto v = int_value(c, true, what);
    c.expect(")", "to close the parenthesised expression");
    return v;
  }
  if (is_ident_start(c.peek())) {
    size_t at = c.pos();
    std::string id = c.parse_identifier();
    c.fail_at(at, fmt::format("'{}' is not a number: layout texts must give every extent and stride as an "
                              "integer (bind parameters in an annotation)",
                              id));
  }
  return {c.parse_int(what), false};
}

// An integer value expression as C++ computes it: `Int<128>{} + Int<1>{}` is the static _129,
// `bM + Int<1>{}` with a literal bM is dynamic.
std::pair<int64_t, bool> int_value(Cursor& c, bool allow_dynamic, std::string_view what) {
  auto term = [&]() {
    auto [v, st] = int_atom(c, allow_dynamic, what);
    while (allow_dynamic) {
      c.skip_ws();
      size_t op = c.pos();
      if (c.peek() == '*') {
        c.set_pos(c.pos() + 1);
        auto [r, rs] = int_atom(c, true, what);
        if (__builtin_mul_overflow(v, r, &v)) c.fail_at(op, fmt::format("integer overflow in {}", what));
        st = st && rs;
      } else if (c.peek() == '/' ) {
        c.set_pos(c.pos() + 1);
        auto [r, rs] = int_atom(c, true, what);
        if (r == 0) c.fail_at(op, "division by zero");
        if (v % r != 0) c.fail_at(op, fmt::format("{} / {} is not an integer", v, r));
        v /= r;
        st = st && rs;
      } else {
        break;
      }
    }
    return std::pair<int64_t, bool>{v, st};
  };
  auto [v, st] = term();
  while (allow_dynamic) {
    c.skip_ws();
    size_t op = c.pos();
    char ch = c.peek();
    if (ch != '+' && ch != '-') break;
    c.set_pos(c.pos() + 1);
    auto [r, rs] = term();
    bool overflow = ch == '+' ? __builtin_add_overflow(v, r, &v) : __builtin_sub_overflow(v, r, &v);
    if (overflow) c.fail_at(op, fmt::format("integer overflow in {}", what));
    st = st && rs;
  }
  return {v, st};
}

// Shape<...>, make_shape(...), or an integer.
TreeNode shape_node(Cursor& c, bool in_template) {
  Cursor::Depth guard(c);
  c.skip_ws();
  TreeNode n;
  n.at = c.pos();
  size_t save = c.pos();
  std::string w = word(c);
  if (w == "Shape" || w == "make_shape") {
    bool tmpl = (w == "Shape");
    c.expect(tmpl ? "<" : "(", fmt::format("after '{}'", w));
    n.leaf = false;
    if (!c.consume(tmpl ? ">" : ")")) {
      do n.children.push_back(shape_node(c, tmpl));
      while (c.consume(","));
      c.expect(tmpl ? ">" : ")", fmt::format("or ',' in {}", w));
    }
    if (tmpl && !in_template) value_braces(c);
    return n;
  }
  c.set_pos(save);
  auto [v, st] = int_value(c, !in_template, "an extent");
  n.extent = v;
  n.static_value = st;
  if (v < 1) c.fail_at(n.at, fmt::format("extent {} must be >= 1", v));
  return n;
}

// Stride<...>, make_stride(...), E<i...>, or an integer.
TreeNode stride_node(Cursor& c, bool in_template, AxisTable& axes) {
  Cursor::Depth guard(c);
  c.skip_ws();
  TreeNode n;
  n.at = c.pos();
  size_t save = c.pos();
  std::string w = word(c);
  if (w == "Stride" || w == "make_stride") {
    bool tmpl = (w == "Stride");
    c.expect(tmpl ? "<" : "(", fmt::format("after '{}'", w));
    n.leaf = false;
    if (!c.consume(tmpl ? ">" : ")")) {
      do n.children.push_back(stride_node(c, tmpl, axes));
      while (c.consume(","));
      c.expect(tmpl ? ">" : ")", fmt::format("or ',' in {}", w));
    }
    if (tmpl && !in_template) value_braces(c);
    return n;
  }
  if (w == "E") {  // E<0,1>: the unit basis with path (0,1), outermost first
    c.expect("<", "after 'E'");
    std::vector<uint32_t> path;
    do {
      c.skip_ws();
      size_t at = c.pos();
      int64_t d = c.parse_const_expr("a basis index");
      if (d < 0 || d > 1023) c.fail_at(at, fmt::format("basis index {} is outside [0, 1023]", d));
      path.push_back(static_cast<uint32_t>(d));
    } while (c.consume(","));
    c.expect(">", "to close 'E<...>'");
    if (!in_template) value_braces(c);
    n.term = Term{1, Axis::basis(path)};
    axes.note(n.term);
    return n;
  }
  c.set_pos(save);
  auto [v, st] = int_value(c, !in_template, "a stride");
  n.static_value = st;
  n.term.value = v;
  if (v != 0) n.term.axis = Axis::memory();
  axes.note(n.term);
  return n;
}

// Compact strides for `shape`, CuTe's compact_major: LayoutLeft walks the leaves forwards,
// LayoutRight backwards; static extent-1 leaves get stride _0.
void compact_strides(const TreeNode& shape, TreeNode& stride, bool row_major, int64_t& current,
                     bool& current_static, Cursor& c) {
  stride.at = shape.at;
  stride.leaf = shape.leaf;
  if (shape.leaf) {
    if (shape.extent == 1 && shape.static_value) {
      stride.term = Term{0, std::nullopt};
      stride.static_value = true;
      return;
    }
    stride.term = Term{current, current != 0 ? std::optional<Axis>(Axis::memory()) : std::nullopt};
    stride.static_value = current_static;
    if (__builtin_mul_overflow(current, shape.extent, &current))
      c.fail_at(shape.at, "the compact strides of this shape exceed 2^63-1");
    current_static = current_static && shape.static_value;
    return;
  }
  stride.children.resize(shape.children.size());
  if (row_major)
    for (size_t i = shape.children.size(); i-- > 0;)
      compact_strides(shape.children[i], stride.children[i], true, current, current_static, c);
  else
    for (size_t i = 0; i < shape.children.size(); ++i)
      compact_strides(shape.children[i], stride.children[i], false, current, current_static, c);
}

Layout make_from_trees(Cursor& c, size_t start, const TreeNode& shape, TreeNode* stride, AxisTable& axes,
                       std::optional<bool> row_major) {
  TreeNode compact;
  if (!stride) {
    int64_t cur = 1;
    bool st = true;
    compact_strides(shape, compact, row_major.value_or(false), cur, st, c);
    stride = &compact;
    axes.note(Term{1, Axis::memory()});
  }
  bool basis = false, memory = false;
  for (const Axis& a : axes.axes()) (a.is_basis() ? basis : memory) = true;
  if (basis && memory)
    c.fail_at(stride->at, "the strides mix integer offsets and bases E<i>; CuTe cannot add the two");
  if (axes.empty()) axes.index(Axis::memory());
  return build_layout(c, start, shape, *stride, axes, IndexOrder::Colex);
}

std::optional<bool> major_tag(Cursor& c) {
  size_t save = c.pos();
  std::string w = word(c);
  if (w == "GenRowMajor" || w == "LayoutRight") {
    value_braces(c);
    return true;
  }
  if (w == "GenColMajor" || w == "LayoutLeft") {
    value_braces(c);
    return false;
  }
  c.set_pos(save);
  return std::nullopt;
}

Swizzle swizzle_args(Cursor& c) {
  c.expect("<", "after 'Swizzle'");
  c.skip_ws();
  size_t at = c.pos();
  int64_t b = c.parse_const_expr("the swizzle's B");
  c.expect(",", "between Swizzle's arguments");
  int64_t m = c.parse_const_expr("the swizzle's M");
  c.expect(",", "between Swizzle's arguments");
  int64_t s = c.parse_const_expr("the swizzle's S");
  c.expect(">", "to close 'Swizzle<B,M,S>'");
  if (std::string why = Swizzle::check(b, m, s); !why.empty()) c.fail_at(at, why);
  return Swizzle(static_cast<int>(b), static_cast<int>(m), static_cast<int>(s));
}

Layout with_swizzle(Cursor& c, size_t start, const Layout& inner, const Swizzle& sw, int64_t offset,
                    int element_bits) {
  LayoutParts p = inner.parts();
  if (offset != 0) p.stages.push_back(Stage{Stage::Kind::AddOffset, offset, true, {}, 0});
  Stage s{Stage::Kind::Swizzle, 0, true, sw, 0};
  if (element_bits) {
    s.kind = Stage::Kind::ByteSwizzle;
    s.element_bits = element_bits;
  }
  p.stages.push_back(s);
  try {
    return Layout::make(std::move(p));
  } catch (const LayoutError& e) {
    c.fail_at(start, e.what());
  }
}

Layout layout_expr(Cursor& c, bool in_template);

// The offset slot of ComposedLayout<Swizzle, OFFSET, Layout>: an integer or a smem pointer flag.
std::pair<int64_t, int> offset_slot(Cursor& c, bool in_template) {
  size_t save = c.pos();
  std::string w = word(c);
  if (w == "smem_ptr_flag_bits") {
    c.expect("<", "after 'smem_ptr_flag_bits'");
    c.skip_ws();
    size_t at = c.pos();
    int64_t bits = c.parse_const_expr("the element width in bits");
    if (bits < 1 || bits > 1024 || (bits & (bits - 1)))
      c.fail_at(at, fmt::format("element width {} bits is not a power of two in [1, 1024]", bits));
    c.expect(">", "to close 'smem_ptr_flag_bits<...>'");
    if (!in_template) value_braces(c);
    return {0, static_cast<int>(bits)};
  }
  if (w == "smem_ptr_flag")
    c.fail_at(save, "smem_ptr_flag without a width: write smem_ptr_flag_bits<16> (the element width in bits)");
  c.set_pos(save);
  return {int_value(c, !in_template, "the composed offset").first, 0};
}

Layout layout_expr(Cursor& c, bool in_template) {
  Cursor::Depth guard(c);
  c.skip_ws();
  size_t start = c.pos();
  std::string w = word(c);
  if (w == "Layout") {
    c.expect("<", "after 'Layout'");
    AxisTable axes;
    TreeNode shape = shape_node(c, true);
    std::optional<TreeNode> stride;
    std::optional<bool> major;
    if (c.consume(",")) {
      major = major_tag(c);
      if (!major) stride = stride_node(c, true, axes);
    }
    c.expect(">", "to close 'Layout<...>'");
    if (!in_template) value_braces(c);
    return make_from_trees(c, start, shape, stride ? &*stride : nullptr, axes, major);
  }
  if (w == "make_layout") {
    c.expect("(", "after 'make_layout'");
    AxisTable axes;
    TreeNode shape = shape_node(c, false);
    std::optional<TreeNode> stride;
    std::optional<bool> major;
    if (c.consume(",")) {
      major = major_tag(c);
      if (!major) stride = stride_node(c, false, axes);
    }
    c.expect(")", "to close 'make_layout(...)'");
    return make_from_trees(c, start, shape, stride ? &*stride : nullptr, axes, major);
  }
  if (w == "ComposedLayout") {
    c.expect("<", "after 'ComposedLayout'");
    if (word(c) != "Swizzle") c.fail_expected("'Swizzle<B,M,S>' as ComposedLayout's first argument");
    Swizzle sw = swizzle_args(c);
    c.expect(",", "after the swizzle");
    auto [offset, bits] = offset_slot(c, true);
    c.expect(",", "after the offset");
    Layout inner = layout_expr(c, true);
    c.expect(">", "to close 'ComposedLayout<...>'");
    if (!in_template) value_braces(c);
    return with_swizzle(c, start, inner, sw, offset, bits);
  }
  if (w == "composition" || w == "make_composed_layout") {
    c.expect("(", fmt::format("after '{}'", w));
    c.skip_ws();
    size_t sw_at = c.pos();
    if (word(c) != "Swizzle") {
      c.set_pos(sw_at);
      c.fail_expected(fmt::format("'Swizzle<B,M,S>{{}}' as the first argument of {} (composing two "
                                  "layouts is algebra: use 'layoutproof algebra compose')",
                                  w));
    }
    Swizzle sw = swizzle_args(c);
    value_braces(c);
    c.expect(",", "after the swizzle");
    int64_t offset = 0;
    int bits = 0;
    if (w == "make_composed_layout") {
      std::tie(offset, bits) = offset_slot(c, false);
      c.expect(",", "after the offset");
    }
    Layout inner = layout_expr(c, false);
    c.expect(")", fmt::format("to close '{}(...)'", w));
    return with_swizzle(c, start, inner, sw, offset, bits);
  }
  c.set_pos(start);
  c.fail_expected("a CuTe layout: Layout<...>, make_layout(...), composition(Swizzle<...>{}, ...) or ComposedLayout<...>");
}

}  // namespace

Layout parse_cpp_spelling(Cursor& c) { return layout_expr(c, false); }

}  // namespace lp
