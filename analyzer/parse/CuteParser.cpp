// CuTe's print format, read verbatim as CuTe prints it (cute/layout.hpp, cute/swizzle.hpp,
// cute/layout_composed.hpp, cute/pointer_flagged.hpp, cute/numeric/arithmetic_tuple.hpp), and as
// the CuTe DSL prints it: `S<3,4,3> o 0 o ((8,16),(64,2)):((64,512),(1,8192))`.
#include <fmt/format.h>

#include "analyzer/parse/AxisTable.h"
#include "analyzer/parse/OperandParser.h"
#include "analyzer/parse/Parsers.h"
#include "analyzer/parse/TreeBuilder.h"

namespace lp {

namespace {

// `_4` (static) or `4` (dynamic), also `_-1`.
std::pair<int64_t, bool> cute_int(Cursor& c, std::string_view what) {
  const algebra::Int v = parse_cute_int(c, what);
  return {v.value, v.is_static};
}

TreeNode parse_shape(Cursor& c) {
  Cursor::Depth guard(c);
  c.skip_ws();
  TreeNode n;
  n.at = c.pos();
  if (c.consume("(")) {
    n.leaf = false;
    if (c.consume(")")) return n;
    do n.children.push_back(parse_shape(c));
    while (c.consume(","));
    c.expect(")", "or ',' in the shape tuple");
    return n;
  }
  if (std::optional<IntExpr> e = c.parse_int_expr()) {
    n.extent = e->value;
    n.static_value = false;
    n.param = e->param;
    return n;
  }
  auto [v, st] = cute_int(c, "an extent (e.g. _8 or 8) or '(' in the shape");
  n.extent = v;
  n.static_value = st;
  return n;
}

TreeNode parse_stride(Cursor& c, AxisTable& axes) {
  Cursor::Depth guard(c);
  c.skip_ws();
  TreeNode n;
  n.at = c.pos();
  if (c.consume("(")) {
    n.leaf = false;
    if (c.consume(")")) return n;
    do n.children.push_back(parse_stride(c, axes));
    while (c.consume(","));
    c.expect(")", "or ',' in the stride tuple");
    return n;
  }
  if (std::optional<IntExpr> e = c.parse_int_expr()) {
    n.static_value = false;
    n.term.value = e->value;
    n.param = e->param;
  } else {
    auto [v, st] = cute_int(c, "a stride (e.g. _1, 64, _1@0) or '(' in the stride");
    n.static_value = st;
    n.term.value = v;
  }
  std::vector<uint32_t> printed;  // CuTe prints the innermost index first
  while (c.peek() == '@') {
    c.set_pos(c.pos() + 1);
    c.skip_ws();
    size_t at = c.pos();
    int64_t d = c.parse_int("a basis index after '@'");
    if (d < 0 || d > 1023) c.fail_at(at, fmt::format("basis index {} is outside [0, 1023]", d));
    printed.push_back(static_cast<uint32_t>(d));
    if (printed.size() > 16) c.fail_at(at, "a basis nested deeper than 16 levels");
  }
  if (!printed.empty() && n.param) c.fail_at(n.at, "a parameter stride scales the memory axis, not a basis (N@i)");
  if (!printed.empty()) n.term.axis = Axis::basis({printed.rbegin(), printed.rend()});
  else if (n.term.value != 0 || n.param) n.term.axis = Axis::memory();
  axes.note(n.term);
  return n;
}

Layout parse_core(Cursor& c) {
  c.skip_ws();
  size_t start = c.pos();
  bool angle = c.consume("<");  // the 1-D descriptor form `<8 : 2>`
  TreeNode shape = parse_shape(c);
  c.expect(":", "between the shape and the stride");
  AxisTable axes;
  TreeNode stride = parse_stride(c, axes);
  if (angle) c.expect(">", "to close '<shape : stride>'");
  bool has_basis = false;
  const Axis* memory_user = nullptr;
  for (const Axis& a : axes.axes()) {
    if (a.is_basis()) has_basis = true;
    else memory_user = &a;
  }
  if (has_basis && memory_user)
    c.fail_at(stride.at, "the strides mix integer offsets and scaled bases (N@i); CuTe cannot add the two");
  if (axes.empty()) axes.index(Axis::memory());
  return build_layout(c, start, shape, stride, axes, IndexOrder::Colex);
}

// After a layout, ` o ` (a word of its own) continues a CuTe composed layout `A o O o B`.
bool composed_next(Cursor& c) {
  c.skip_ws();
  return c.looking_at("o") && !is_ident_char(c.peek_raw(1));
}

}  // namespace

Layout parse_cute(Cursor& c) {
  Cursor::Depth guard(c);
  c.skip_ws();
  size_t start = c.pos();
  // CuTe's composed layouts `X o OFFSET o B` (layout_composed.hpp), X a swizzle or a layout. CuTe
  // C++ prints a swizzle `Sw<B,M,S>`, the CuTe DSL (Python) `S<B,M,S>`.
  const bool dsl = c.looking_at("S<") || c.looking_at("S <");
  const bool swizzle = dsl || c.looking_at("Sw<") || c.looking_at("Sw <");
  Stage outermost;
  Swizzle sw;
  const bool f2 = c.looking_at("F2[") || c.looking_at("F2 [");
  if (f2) {
    // LayoutProof's own spelling of an F2-linear map: column k is the image of offset bit k.
    c.expect("F2", "");
    c.expect("[", "after 'F2'");
    std::vector<int64_t> columns;
    c.skip_ws();
    while (!c.looking_at("]")) {
      if (!columns.empty()) c.expect(",", "between the F2 map's columns");
      const size_t at = c.pos();
      columns.push_back(c.parse_int("a column of the F2 map (the image of one offset bit)"));
      if (std::string why = F2Map::check(columns); !why.empty()) c.fail_at(at, why);
      c.skip_ws();
    }
    c.expect("]", "to close 'F2[c0,c1,...]'");
    c.expect("o", "after the F2 map (composed as 'F2[...] o OFFSET o LAYOUT')");
    outermost = Stage::f2_linear(F2Map(std::move(columns)));
  } else if (swizzle) {
    c.expect(dsl ? "S" : "Sw", "");
    sw = parse_swizzle_parameters(c, dsl ? "to close 'S<B,M,S>'" : "to close 'Sw<B,M,S>'");
    c.expect("o", "after the swizzle (CuTe composes as 'Sw<B,M,S> o OFFSET o LAYOUT')");
    outermost = Stage::swizzled(sw);
  } else {
    Layout outer = parse_core(c);
    if (!composed_next(c)) return outer;
    c.expect("o", "");
    outermost = Stage::outer_layout(outer);
  }
  c.skip_ws();
  Stage offset = Stage::add_offset(0);
  if (swizzle && c.consume("smem_ptr")) {
    c.expect("[", "after 'smem_ptr'");
    size_t at = c.pos();
    int64_t bits = c.parse_int("the element width in bits");
    if (bits < 1 || bits > 1024 || (bits & (bits - 1)))
      c.fail_at(at, fmt::format("element width {} bits is not a power of two in [1, 1024]", bits));
    c.expect("b", "after the element width (as in smem_ptr[16b])");
    c.expect("]", "to close 'smem_ptr[...]'");
    c.expect("(", "as in 'smem_ptr[16b](unset)'");
    c.expect("unset", "as in 'smem_ptr[16b](unset)'");
    c.expect(")", "as in 'smem_ptr[16b](unset)'");
    outermost = Stage::byte_swizzled(sw, static_cast<int>(bits));
  } else {
    auto [v, st] = cute_int(c, swizzle ? "the composed offset (e.g. _0) or smem_ptr[16b](unset)"
                                       : "the composed offset (e.g. _0)");
    offset = Stage::add_offset(v, st);
  }
  c.expect("o", f2        ? "after the offset (composed as 'F2[...] o OFFSET o LAYOUT')"
               : swizzle ? "after the offset (CuTe composes as 'Sw<B,M,S> o OFFSET o LAYOUT')"
                         : "after the offset (CuTe composes as 'A o OFFSET o B')");
  Layout inner = parse_cute(c);
  LayoutParts p = inner.parts();
  if (offset.offset != 0) p.stages.push_back(offset);
  p.stages.push_back(outermost);
  try {
    return Layout::make(std::move(p));
  } catch (const LayoutError& e) {
    c.fail_at(start, e.what());
  }
}

}  // namespace lp
