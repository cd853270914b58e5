// The algebra's small operands (analyzer/parse/OperandParser.h): what each accepts, what it leaves
// to the layout parser, and where its diagnostics point.
#include <catch2/catch.hpp>

#include "analyzer/parse/OperandParser.h"

namespace {

std::shared_ptr<const lp::SourceText> text(const std::string& t) {
  auto s = std::make_shared<lp::SourceText>();
  s->name = "<operand>";
  s->text = t;
  return s;
}

std::string diagnostic_of(const std::function<void()>& parse) {
  try {
    parse();
  } catch (const lp::DiagnosticError& e) {
    return e.diagnostic().render();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("operands: swizzles alone, in every spelling", "[parse][operands]") {
  for (const char* t : {"Sw<3,4,3>", " Swizzle<3,4,3>{} ", "S<3,4,3>", "Sw <3, 4, 3>"}) {
    auto sw = lp::parse_swizzle_operand(text(t));
    REQUIRE(sw);
    CHECK(*sw == lp::Swizzle(3, 4, 3));
  }
  CHECK(!lp::parse_swizzle_operand(text("Sw<3,4,3> o _0 o (_8,_8):(_8,_1)")));  // a layout's text
  CHECK(!lp::parse_swizzle_operand(text("(_8,_8):(_8,_1)")));
  CHECK(diagnostic_of([] { lp::parse_swizzle_operand(text("Sw<3,4")); }).find("<operand>:1:7: error: expected ','") == 0);
}

TEST_CASE("operands: integers as CuTe prints them", "[parse][operands]") {
  CHECK(lp::parse_cute_integer(text("_64")) == lp::algebra::Int{64, true});
  CHECK(lp::parse_cute_integer(text(" 64 ")) == lp::algebra::Int{64, false});
  CHECK(!lp::parse_cute_integer(text("8:1")));  // a layout
  CHECK(!lp::parse_cute_integer(text("x")));
  CHECK(diagnostic_of([] { lp::parse_cute_integer(text("99999999999999999999")); }) ==
        "<operand>:1:1: error: integer literal does not fit in 64 bits (limit 2^63-1)\n99999999999999999999\n^\n");
}

TEST_CASE("operands: flat shapes", "[parse][operands]") {
  CHECK(lp::parse_flat_shape(text("(_8,16)")) == std::vector<lp::algebra::Int>{{8, true}, {16, false}});
  CHECK(lp::parse_flat_shape(text("32")) == std::vector<lp::algebra::Int>{{32, false}});
  CHECK(diagnostic_of([] { lp::parse_flat_shape(text("((2,4),8)")); }).find("<operand>:1:2: error: expected an extent") == 0);
  CHECK(diagnostic_of([] { lp::parse_flat_shape(text("(8,-1)")); }).find("<operand>:1:4: error: extent -1 must be at least 1") == 0);
  // 2^62 * 2 = 2^63: one past the largest int64.
  CHECK(diagnostic_of([] { lp::parse_flat_shape(text("(4611686018427387904,2)")); })
            .find("<operand>:1:22: error: the shape's size (the product of its extents) exceeds 2^63-1") == 0);
  CHECK(diagnostic_of([] { lp::parse_flat_shape(text("(8,16) x")); }).find("error: expected the end of the shape") != std::string::npos);
}
