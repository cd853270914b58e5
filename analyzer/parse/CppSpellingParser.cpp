// CuTe layouts spelled as C++, the way kernel authors copy them out of their code:
//   composition(Swizzle<3,3,3>{}, Layout<Shape<_8,_64>, Stride<_64,_1>>{})
//   make_layout(make_shape(8,64), make_stride(64,1)), make_layout(shape, GenRowMajor{})
//   ComposedLayout<Swizzle<3,4,3>, smem_ptr_flag_bits<16>, Layout<...>>
//   tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{}, Shape<_64,_64>{}), UMMA::Layout_MN_SW128_32B_Atom<float>
// Template arguments may be constant expressions (Int<128 + 4>); `cute::` prefixes are ignored.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <functional>

#include "analyzer/algebra/Algorithms.h"
#include "analyzer/algebra/CuteRejects.h"
#include "analyzer/parse/AxisTable.h"
#include "analyzer/parse/Parsers.h"
#include "analyzer/parse/TreeBuilder.h"

namespace lp {

namespace {

using algebra::Int;

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
  if (offset != 0) p.stages.push_back(Stage::add_offset(offset));
  p.stages.push_back(element_bits ? Stage::byte_swizzled(sw, element_bits) : Stage::swizzled(sw));
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

// CuTe functions and types people paste that the layout texts do not evaluate, and what to write
// instead. Anything else named here is a name only the compiler can resolve.
[[noreturn]] void unsupported(Cursor& c, size_t at, const std::string& w) {
  static const std::array<std::string_view, 26> kFunctions = {
      "logical_divide", "zipped_divide", "tiled_divide", "flat_divide", "logical_product", "zipped_product",
      "tiled_product", "flat_product", "blocked_product", "raked_product", "coalesce", "filter", "filter_zeros",
      "make_ordered_layout", "right_inverse", "left_inverse", "upcast", "downcast", "recast_layout", "append",
      "prepend", "get", "select", "group_modes", "flatten", "make_identity_layout"};
  if (std::find(kFunctions.begin(), kFunctions.end(), w) != kFunctions.end())
    c.fail_at(at, fmt::format("'{}' is not supported in a layout text; write the layout it evaluates to in CuTe's print "
                              "format (print() in CuTe, `layoutproof algebra` for divides and products, or a probe: "
                              "docs/cute.md), or state the operation with a compose/divide annotation",
                              w));
  c.fail_at(at, fmt::format("'{}' is not a layout LayoutProof can read: a type alias or variable stands for a layout only "
                            "the compiler knows; write its value in CuTe's print format (print({}{{}}) in CuTe), or let "
                            "a probe write it (layoutproof extract, docs/cute.md)",
                            w, w));
}

// The element types of CuTe's GMMA/UMMA atoms, by the names code spells them with, and their bits.
std::optional<int> element_type_bits(const std::string& name) {
  static const std::array<std::pair<std::string_view, int>, 18> kTypes = {{
      {"half_t", 16}, {"bfloat16_t", 16}, {"tfloat32_t", 32}, {"float", 32}, {"double", 64},
      {"float_e4m3_t", 8}, {"float_e5m2_t", 8}, {"int8_t", 8}, {"uint8_t", 8}, {"int16_t", 16},
      {"uint16_t", 16}, {"int32_t", 32}, {"uint32_t", 32}, {"int64_t", 64}, {"uint64_t", 64},
      {"__half", 16}, {"__nv_bfloat16", 16}, {"uint128_t", 128}}};
  for (const auto& [n, bits] : kTypes)
    if (n == name) return bits;
  return std::nullopt;
}

// GMMA::Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom<T> and UMMA::Layout_MN_SW128_32B_Atom<T>, as the
// pinned CuTe defines them (nvidia-cutlass 4.2.0.0): in bits,
//   cute/atom/mma_traits_sm90_gmma.hpp:75-84
//     Layout_MN_SWxx_Atom_Bits = ComposedLayout<Swizzle<B,4,3>, smem_ptr_flag, Layout<Shape<_W,_8>,Stride<_1,_W>>>
//     Layout_K_SWxx_Atom_Bits  = ComposedLayout<Swizzle<B,4,3>, smem_ptr_flag, Layout<Shape<_8,_W>,Stride<_W,_1>>>
//     with (B, W) = (0,128) INTER, (1,256) SW32, (2,512) SW64, (3,1024) SW128;
//   cute/atom/mma_traits_sm100.hpp:72
//     Layout_MN_SW128_32B_Atom_Bits = ComposedLayout<Swizzle<2,5,2>, smem_ptr_flag, Layout<Shape<_1024,_4>,Stride<_1,_1024>>>;
// and the atom for T is upcast<sizeof_bits<T>>(Bits) (:88-104, sm100 :75): W/bits elements of T,
// the swizzle kept on byte addresses (`Sw<B,4,3> o smem_ptr[Nb](unset) o ...`). cute::UMMA
// re-exports the GMMA names (mma_traits_sm100.hpp:63-70).
Layout mma_atom(Cursor& c) {
  const size_t start = c.pos();
  std::string ns = word(c);
  if (ns == "SM90") {
    c.expect("::", "after 'SM90'");
    ns = word(c);
    if (ns != "GMMA") c.fail_expected("'GMMA' after 'SM90::'");
    c.expect("::", "after 'GMMA'");
  } else {
    c.expect("::", fmt::format("after '{}'", ns));
  }
  c.skip_ws();
  const size_t name_at = c.pos();
  const std::string name = c.parse_identifier();
  struct Atom {
    std::string_view name;
    bool k_major;
    int swizzle_bits, bits_width;
    bool umma_only;
  };
  static const std::array<Atom, 9> kAtoms = {{
      {"Layout_MN_INTER_Atom", false, 0, 128, false}, {"Layout_MN_SW32_Atom", false, 1, 256, false},
      {"Layout_MN_SW64_Atom", false, 2, 512, false},  {"Layout_MN_SW128_Atom", false, 3, 1024, false},
      {"Layout_K_INTER_Atom", true, 0, 128, false},   {"Layout_K_SW32_Atom", true, 1, 256, false},
      {"Layout_K_SW64_Atom", true, 2, 512, false},    {"Layout_K_SW128_Atom", true, 3, 1024, false},
      {"Layout_MN_SW128_32B_Atom", false, 2, 1024, true}}};
  const Atom* atom = nullptr;
  for (const Atom& a : kAtoms)
    if (a.name == name) atom = &a;
  if (!atom || (atom->umma_only && ns != "UMMA"))
    c.fail_at(name_at, fmt::format("unknown {} layout atom '{}'; expected Layout_{{K,MN}}_{{INTER,SW32,SW64,SW128}}_Atom<T>{}",
                                   ns, name, ns == "UMMA" ? " or Layout_MN_SW128_32B_Atom<T>" : ""));
  c.expect("<", fmt::format("after '{}' (the element type, e.g. {}<half_t>)", name, name));
  c.skip_ws();
  const size_t type_at = c.pos();
  std::string type = word(c);
  while (type == "cutlass" && c.consume("::")) type = word(c);
  const std::optional<int> bits = element_type_bits(type);
  if (!bits)
    c.fail_at(type_at, fmt::format("'{}' is not an element type LayoutProof knows; write the type itself (half_t, "
                                   "bfloat16_t, tfloat32_t, float, float_e4m3_t, float_e5m2_t, int8_t, uint8_t, ...)",
                                   type.empty() ? std::string(1, c.peek()) : type));
  c.expect(">", fmt::format("to close '{}<...>'", name));
  value_braces(c);
  const int64_t w = atom->bits_width / *bits;
  const int64_t other = atom->umma_only ? 4 : 8;
  const Int we{w, true}, ot{other, true}, one{1, true};
  algebra::CuteLayout core = atom->k_major
      ? algebra::CuteLayout::tuple({algebra::CuteLayout::leaf(ot, we), algebra::CuteLayout::leaf(we, one)})
      : algebra::CuteLayout::tuple({algebra::CuteLayout::leaf(we, one), algebra::CuteLayout::leaf(ot, we)});
  const Swizzle sw = atom->umma_only ? Swizzle(2, 5, 2) : Swizzle(atom->swizzle_bits, 4, 3);
  return with_swizzle(c, start, algebra::to_ir(core), sw, 0, *bits);
}

// tile_to_shape(BLOCK, SHAPE[, ORDER]) with CuTe's default column-major order (cute/layout.hpp
// tile_to_shape; a ComposedLayout block keeps its swizzle, cute/layout_composed.hpp).
Layout tile_to_shape_expr(Cursor& c, size_t start) {
  c.expect("(", "after 'tile_to_shape'");
  const Layout block = layout_expr(c, false);
  c.expect(",", "and the target shape (tile_to_shape(BLOCK, SHAPE))");
  const TreeNode shape = shape_node(c, false);
  if (c.consume(",")) {
    c.skip_ws();
    const size_t order_at = c.pos();
    bool col_major = false;
    if (std::optional<bool> major = major_tag(c)) {
      col_major = !*major;
    } else if (word(c) == "Step") {
      c.expect("<", "after 'Step'");
      col_major = true;
      int64_t k = 1;
      do col_major = int_value(c, false, "a mode order").first == k++ && col_major;
      while (c.consume(","));
      c.expect(">", "to close 'Step<...>'");
      value_braces(c);
    }
    if (!col_major)
      c.fail_at(order_at, "tile_to_shape with a mode order other than column-major (Step<_1,_2,...>, GenColMajor) is not "
                          "supported; write the tiled layout in CuTe's print format (print() in CuTe, or a probe: "
                          "docs/cute.md)");
  }
  c.expect(")", "to close 'tile_to_shape(...)'");
  std::vector<Int> target;
  std::function<Int(const TreeNode&)> product = [&](const TreeNode& n) {
    if (n.leaf) return Int{n.extent, n.static_value};
    Int p{1, true};
    for (const TreeNode& k : n.children) p = p * product(k);
    return p;
  };
  if (shape.leaf) target.push_back(product(shape));
  else
    for (const TreeNode& k : shape.children) target.push_back(product(k));
  // The swizzle and offset stay outside: tile the layout they are composed with.
  LayoutParts inner = block.parts();
  std::vector<Stage> stages = std::move(inner.stages);
  inner.stages.clear();
  // CuTe's own algorithm (the algebra's tile_to_shape, compared with CuTe by tests/algebra's
  // differential suite); no exhaustive legality check here, so a layout text stays cheap to read
  // whatever its size. A target the block does not divide is CuTe's static_assert.
  algebra::CuteLayout tiled;
  try {
    tiled = algebra::tile_to_shape(algebra::from_ir(Layout::make(std::move(inner))), target);
  } catch (const algebra::CuteRejects& e) {
    c.fail_at(start, fmt::format("tile_to_shape does not give the target shape here: {}", e.what()));
  } catch (const std::exception& e) {
    c.fail_at(start, fmt::format("tile_to_shape: {}", e.what()));
  }
  LayoutParts p = algebra::to_ir(tiled).parts();
  p.stages = std::move(stages);
  try {
    return Layout::make(std::move(p));
  } catch (const LayoutError& e) {
    c.fail_at(start, e.what());
  }
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
  if (w == "tile_to_shape") return tile_to_shape_expr(c, start);
  if (w == "GMMA" || w == "UMMA" || w == "SM90") {
    c.set_pos(start);
    return mma_atom(c);
  }
  c.set_pos(start);
  if (!w.empty()) unsupported(c, start, w);
  c.fail_expected("a CuTe layout: Layout<...>, make_layout(...), composition(Swizzle<...>{}, ...), ComposedLayout<...>, "
                  "tile_to_shape(...) or GMMA::Layout_*_Atom<T>");
}

}  // namespace

Layout parse_cpp_spelling(Cursor& c) { return layout_expr(c, false); }

}  // namespace lp
