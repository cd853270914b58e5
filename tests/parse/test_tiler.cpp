// CuTe tilers `[T0, T1, ...]` (analyzer/parse/TilerParser.h): each item read as the whole-layout
// parser reads it, extents as CuTe's N:_1, and what CuTe's documentation computes with them.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "solver/AlgebraClaims.h"
#include "analyzer/algebra/CuteLayout.h"
#include "analyzer/algebra/Operations.h"
#include "analyzer/parse/Parsers.h"
#include "analyzer/parse/TilerParser.h"

namespace {

using lp::Tiler;

Tiler tiler(const std::string& text) {
  auto src = std::make_shared<lp::SourceText>();
  src->name = "<tiler>";
  src->text = text;
  return lp::parse_tiler(src);
}

std::string diagnose(const std::string& text) {
  try {
    tiler(text);
    return "";
  } catch (const lp::DiagnosticError& e) {
    return e.diagnostic().render();
  }
}

// A tiler leaf in CuTe's print format.
std::string cute(const Tiler& t) { return lp::algebra::cute_text(lp::algebra::from_ir(*t.layout)); }

// The layout as the whole-layout parser reads it, in CuTe's print format.
std::string layout_text(const std::string& text) {
  return lp::algebra::cute_text(lp::algebra::from_ir(lp::parse_layout_text(text).layout));
}

}  // namespace

TEST_CASE("tiler items are the layouts the layout parser reads, extents N:_1 and _", "[tiler]") {
  const Tiler t = tiler("[_3:_3, (_2,_4):(_1,_8), 8, _16, _, [_2, (4,2):(2,1)]]");
  REQUIRE(t.kind == Tiler::Kind::Tuple);
  REQUIRE(t.parts.size() == 6);
  CHECK(cute(t.parts[0]) == layout_text("_3:_3"));
  CHECK(cute(t.parts[1]) == layout_text("(_2,_4):(_1,_8)"));
  // CuTe reads an integer tiler N as the layout N:_1, keeping the integer's staticness.
  CHECK(cute(t.parts[2]) == "8:_1");
  CHECK(cute(t.parts[3]) == "_16:_1");
  CHECK(t.parts[4].kind == Tiler::Kind::Underscore);
  REQUIRE(t.parts[5].kind == Tiler::Kind::Tuple);
  CHECK(cute(t.parts[5].parts[1]) == layout_text("(4,2):(2,1)"));
  // A single layout is a tiler too.
  const Tiler one = tiler("  (_4,_2):(_2,_1) ");
  REQUIRE(one.kind == Tiler::Kind::Layout);
  CHECK(cute(one) == layout_text("(_4,_2):(_2,_1)"));
}

TEST_CASE("tiler items in CuTe's C++ spelling read as their print format", "[tiler]") {
  // 02_layout_algebra.md's make_tile(Layout<_3,_3>{}, Layout<Shape<_2,_4>, Stride<_1,_8>>{}).
  const Tiler cpp = tiler("[Layout<_3,_3>{}, Layout<Shape <_2,_4>, Stride<_1,_8>>{}]");
  const Tiler printed = tiler("[_3:_3, (_2,_4):(_1,_8)]");
  REQUIRE(cpp.parts.size() == 2);
  for (size_t i = 0; i < 2; ++i) CHECK(cute(cpp.parts[i]) == cute(printed.parts[i]));
}

TEST_CASE("CuTe's documented by-mode divide and composition, from parsed tilers", "[tiler]") {
  // NVIDIA/cutlass media/docs/cpp/cute/02_layout_algebra.md, "Logical Divide 2-D Example" and
  // "Zipped, Tiled, Flat Divides": A = (9,(4,8)):(59,(13,1)), B = <3:3, (2,4):(1,8)>, all static.
  const lp::Layout a = lp::parse_layout_text("(_9,(_4,_8)):(_59,(_13,_1))").layout;
  const Tiler b = tiler("[_3:_3, (_2,_4):(_1,_8)]");
  // "the sublayout (3,(2,4)):(177,(13,2)) ... the result we would have received if we had applied
  // composition"
  const auto c = lp::decide_claims(lp::algebra::op_compose(a, lp::algebra::to_cute(b)));
  REQUIRE(c.text);
  CHECK(*c.text == "(_3,(_2,_4)):(_177,(_13,_2))");
  CHECK(c.check.verdict == lp::algebra::Verdict::Legal);
  // "((TileM,RestM), (TileN,RestN)) with shape ((3,3), (8,4))"; "layout<0>(zipped_divide(a, b))
  // == composition(a, b)"
  const auto ld = lp::decide_claims(lp::algebra::op_divide(lp::algebra::DivideKind::Logical, a, lp::algebra::to_cute(b)));
  REQUIRE(ld.layout);
  CHECK(ld.check.verdict == lp::algebra::Verdict::Legal);
  CHECK(ld.layout->modes.at(0).size().value == 9);
  CHECK(ld.layout->modes.at(0).modes.at(0).size().value == 3);
  CHECK(ld.layout->modes.at(1).modes.at(0).size().value == 8);
  const auto zd = lp::decide_claims(lp::algebra::op_divide(lp::algebra::DivideKind::Zipped, a, lp::algebra::to_cute(b)));
  REQUIRE(zd.layout);
  CHECK(lp::algebra::cute_text(zd.layout->modes.at(0)) == *c.text);
  CHECK(zd.layout->modes.at(1).size().value == 12);  // "twelve of those tiles"
}

TEST_CASE("malformed tilers are located diagnostics", "[tiler][malformed]") {
  struct Case {
    std::string text, message;
    size_t column;
  };
  const std::vector<Case> cases = {
      {"[_8, _4", "expected ']' or ',' in the tiler, found end of input", 8},
      {"[]", "expected a tiler item (a layout, an extent such as _8, or _) inside '[ ]', found ']'", 2},
      {"[_8 _4]", "expected ':' between the shape and the stride, found '_4'", 5},
      {"[_8, 0]", "a tiler extent must be at least 1, not 0", 6},
      {"[_8, _4] x", "expected the end of the tiler, found 'x'", 10},
      {"", "expected a tiler ([T0, T1, ...] or a layout), found an empty text", 1},
  };
  for (const Case& k : cases) {
    INFO(k.text);
    const std::string d = diagnose(k.text);
    CAPTURE(d);
    CHECK(d.rfind(fmt::format("<tiler>:1:{}: error: {}\n", k.column, k.message), 0) == 0);
    CHECK(d.find("^\n") != std::string::npos);
  }
  // A swizzled layout is no tiler; an overflowing extent and deep nesting stop at their limits.
  CHECK(diagnose("[Sw<3,3,3> o _0 o _8:_1]").find("<tiler>:1:2: error: this layout cannot be a tiler") == 0);
  CHECK(diagnose("[_4, 99999999999999999999]").find("<tiler>:1:6: error:") == 0);
  CHECK(diagnose(std::string(200, '[') + "_1" + std::string(200, ']')).find("nesting deeper than 64 levels") !=
        std::string::npos);
  for (const std::string text : {"[-2]", "[_8,,_4]", "[(_2,_4):(_1]", "[_8] ]", "[\x01]"}) {
    INFO(text);
    CHECK(diagnose(text).find(": error: ") != std::string::npos);
  }
}
