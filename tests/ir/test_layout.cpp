// The IR's own invariants and evaluation, checked against independent formulas.
#include <catch2/catch.hpp>

#include "analyzer/ir/Checked.h"
#include "analyzer/ir/Layout.h"
#include "analyzer/ir/Print.h"
#include "analyzer/parse/Parsers.h"

using lp::Layout;
using lp::parse_layout_text;

TEST_CASE("Layout::make rejects broken invariants", "[ir]") {
  lp::LayoutParts p;
  p.axes = {lp::Axis::memory(), lp::Axis::memory()};
  CHECK_THROWS_AS(Layout::make(p), lp::LayoutError);
  p.axes = {lp::Axis::memory()};
  p.modes = {lp::Mode{0, {1}}};
  p.nest = lp::Nest::make_leaf();
  CHECK_THROWS_WITH(Layout::make(p), Catch::Contains("extent 0"));
  p.modes = {lp::Mode{4, {1, 2}}};
  CHECK_THROWS_WITH(Layout::make(p), Catch::Contains("one entry per axis"));
  p.modes = {lp::Mode{4, {1}}, lp::Mode{4, {4}}};
  CHECK_THROWS_WITH(Layout::make(p), Catch::Contains("leaves"));
  p.nest = lp::Nest::flat(2);
  CHECK(Layout::make(p).size() == 16);
  p.axes = {lp::Axis::basis({1}), lp::Axis::basis({1, 0})};
  p.modes = {lp::Mode{4, {1, 0}}, lp::Mode{4, {0, 1}}};
  CHECK_THROWS_WITH(Layout::make(p), Catch::Contains("impossible"));
}

TEST_CASE("evaluation knows its domain and refuses points outside it", "[ir]") {
  Layout l = parse_layout_text("(_4,_3):(_1,_4)").layout;
  CHECK(l.offset_at(11) == 11);
  CHECK_THROWS_WITH(l.split(12), Catch::Contains("outside the layout's domain [0, 12)"));
  CHECK_THROWS_AS(l.split(-1), lp::LayoutError);
}

TEST_CASE("cosize is the span sum (extent-1)*|stride| + 1, negative strides included", "[ir]") {
  CHECK(parse_layout_text("(_4,_3):(_1,_4)").layout.cosize() == lp::Point{12});
  CHECK(parse_layout_text("(_4,_3):(_-1,_4)").layout.cosize() == lp::Point{12});
  CHECK(parse_layout_text("(_4,_3):(_2,_0)").layout.cosize() == lp::Point{7});
  Layout neg = parse_layout_text("(_4,_3):(_-1,_4)").layout;
  CHECK(neg.offset_at(0) == 0);
  CHECK(neg.offset_at(3) == -3);
  CHECK(neg.offset_at(4) == 4);
}

TEST_CASE("image and preimage enumerate small domains exactly", "[ir]") {
  Layout bc = parse_layout_text("(_4,_3):(_1,_0)").layout;
  auto img = lp::image(bc);
  CHECK(img.size() == 4);
  CHECK(lp::preimage(bc, {2}) == std::vector<int64_t>{2, 6, 10});
  Layout reg = parse_layout_text("S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid").layout;
  // Each of 128 elements has 2 replicas, all distinct points.
  CHECK(lp::image(reg).size() == 256);
  auto lane = *reg.axis_index(lp::Axis::named("laneid"));
  auto warp = *reg.axis_index(lp::Axis::named("warpid"));
  auto m = *reg.axis_index(lp::Axis::memory());
  lp::Point p(3, 0);
  p[lane] = 31;
  p[warp] = 10;
  p[m] = 1;
  CHECK(lp::preimage(reg, p) == std::vector<int64_t>{127});
  Layout huge = parse_layout_text("(_65536,_65536):(_1,_65536)").layout;
  CHECK_THROWS_WITH(lp::image(huge), Catch::Contains("more than"));
}

TEST_CASE("byte-address swizzles equal element swizzles exactly where CuTe's GMMA atoms say", "[ir]") {
  // Byte Sw<3,4,3> is element <3,3,3> on 16-bit, <3,2,3> on 32-bit, <3,1,3> on 64-bit.
  struct Case {
    int bits, m;
  };
  for (Case c : {Case{16, 3}, Case{32, 2}, Case{64, 1}}) {
    Layout bytes = parse_layout_text("Sw<3,4,3> o smem_ptr[" + std::to_string(c.bits) + "b](unset) o _4096:_1").layout;
    Layout elems = parse_layout_text("Sw<3," + std::to_string(c.m) + ",3> o _0 o _4096:_1").layout;
    for (int64_t i = 0; i < 4096; ++i) REQUIRE(bytes.offset_at(i) == elems.offset_at(i));
  }
  // Applied to element offsets by mistake, the byte swizzle is a different function (cutlass#2634).
  Layout wrong = parse_layout_text("Sw<3,4,3> o _0 o _4096:_1").layout;
  Layout right = parse_layout_text("Sw<3,4,3> o smem_ptr[16b](unset) o _4096:_1").layout;
  int differ = 0;
  for (int64_t i = 0; i < 4096; ++i) differ += wrong.offset_at(i) != right.offset_at(i);
  CHECK(differ > 0);
  // A byte swizzle that moves bits inside a 64-bit element cannot give an element offset.
  Layout split = parse_layout_text("Sw<1,0,3> o smem_ptr[64b](unset) o _64:_1").layout;
  CHECK_THROWS_WITH(split.offset_at(1), Catch::Contains("not the start of a 64-bit element"));
}

TEST_CASE("with_order keeps the coordinate function and reverses the index order", "[ir]") {
  Layout cute = parse_layout_text("((_2,_3),_4):((_1,_8),_2)").layout;
  Layout row = cute.with_order(lp::IndexOrder::RowMajor);
  // Coordinate (x, y), x in [0,6), y in [0,4): colex index x + 6y, row-major index 4x + y.
  for (int x = 0; x < 6; ++x)
    for (int y = 0; y < 4; ++y) REQUIRE(row.images(4 * x + y)[0][0] == cute.offset_at(x + 6 * y));
  CHECK(row.with_order(lp::IndexOrder::Colex).modes().size() == cute.modes().size());
  CHECK(lp::print_cute(row).text == "((_2,_3),_4):((_1,_8),_2)");
}

TEST_CASE("evaluation overflow is an error", "[ir]") {
  Layout l = parse_layout_text("(_2,_2):(_9223372036854775807,_1)").layout;
  CHECK(l.offset_at(0) == 0);
  CHECK(l.offset_at(1) == INT64_MAX);
  CHECK_THROWS_AS(l.offset_at(3), lp::OverflowError);
  CHECK_THROWS_AS(lp::checked_mul(INT64_MIN, -1), lp::OverflowError);
}

TEST_CASE("outer layouts (CuTe's A o O o B): invariants, CuTe's print format and stage equality", "[ir][composed]") {
  // Read and printed verbatim as CuTe prints ComposedLayout (layout_composed.hpp: A o O o B).
  for (const char* text : {"(_16,_16,_64):(_1,_16,_128) o _0 o Sw<4,4,4> o _0 o (_64,_128):(_256,_1)",
                           "_64:_1 o _-3 o (_16,_4):(_4,_1)", "Sw<3,3,3> o _0 o (_64,_8):(_8,_1) o _0 o (_8,_64):(_64,_1)"}) {
    INFO(text);
    const lp::Layout l = lp::parse_layout_text(text).layout;
    CHECK(l.has_outer_stage());
    CHECK(lp::print_cute(l).text == text);
    CHECK_THROWS_AS(lp::print_tirx(l), lp::ConversionError);
    CHECK(lp::parse_layout_text(text).layout.stages() == l.stages());  // by the layouts' parts
  }
  CHECK(lp::parse_layout_text("_64:_1 o _0 o _8:_1").layout.stages() !=
        lp::parse_layout_text("_64:_2 o _0 o _8:_1").layout.stages());
  // The stages after the last outer layout act on the final offset.
  CHECK(lp::parse_layout_text("Sw<3,3,3> o _0 o _64:_1 o _0 o _64:_1").layout.address_stages_begin() == 1);
  CHECK(lp::parse_layout_text("Sw<3,3,3> o _0 o _64:_1").layout.address_stages_begin() == 0);
  // Invariants: A is an integer CuTe layout, B integer-valued, no layout after a byte swizzle.
  CHECK_THROWS_WITH(lp::parse_layout_text("(_4,_4):(_1@0,_1@1) o _0 o _16:_1"), Catch::Contains("integer CuTe layout"));
  CHECK_THROWS_WITH(lp::parse_layout_text("_16:_1 o _0 o (_4,_4):(_1@0,_1@1)"), Catch::Contains("needs an integer B"));
  CHECK_THROWS_WITH(lp::parse_layout_text("_64:_1 o _0 o Sw<3,4,3> o smem_ptr[16b](unset) o _64:_1"),
                    Catch::Contains("no layout may be applied after it"));
  // A is evaluated as CuTe evaluates an integer past its size: 3 + 15 = 18 on _8:_2 is 36.
  CHECK(lp::parse_layout_text("_8:_2 o _3 o _16:_1").layout.offset_at(15) == 36);
  // Negative values split with truncating % and /, as C++ (and CuTe) does: -5 on (_4,_8):(_1,_10)
  // is (-1, -1), -1 - 10.
  CHECK(lp::parse_layout_text("(_4,_8):(_1,_10) o _-5 o _2:_1").layout.offset_at(0) == -11);
}

TEST_CASE("F2 maps: evaluation by the definition, swizzles recognised exactly, text round trip", "[ir][f2]") {
  // Definition (analyzer/ir/F2Map.h): clear the low n bits, XOR in column k for each set bit k.
  auto by_definition = [](const std::vector<int64_t>& cols, int64_t x) {
    int64_t y = x - (x & ((int64_t{1} << cols.size()) - 1));
    for (size_t k = 0; k < cols.size(); ++k)
      if ((x >> k) & 1) y ^= cols[k];
    return y;
  };
  const std::vector<int64_t> triton_128b = {1, 2, 4, 8, 16, 32, 72, 144, 288, 512, 1024, 2048};
  const lp::F2Map f(triton_128b);
  for (int64_t x = 0; x < 3 * 4096; ++x) REQUIRE(f.apply(x) == by_definition(triton_128b, x));
  CHECK(f.period() == 4096);
  // Triton's NVMMAShared 128B pattern on 16-bit elements is CuTe's Sw<3,3,3>, and nothing else is.
  REQUIRE(f.as_swizzle().has_value());
  CHECK(*f.as_swizzle() == lp::Swizzle(3, 3, 3));
  for (int b = 0; b <= 3; ++b)
    for (int m = 0; m <= 4; ++m)
      for (int s : {-4, -3, 3, 4, 5}) {
        if (!lp::Swizzle::check(b, m, s).empty()) continue;
        const lp::Swizzle sw(b, m, s);
        std::vector<int64_t> cols;
        for (int k = 0; k < 12; ++k) cols.push_back(sw.apply(int64_t{1} << k));
        const lp::F2Map g(cols);
        for (int64_t x = 0; x < 4096; ++x) REQUIRE(g.apply(x) == sw.apply(x));
        INFO("Sw<" << b << "," << m << "," << s << ">");
        REQUIRE(g.as_swizzle().has_value());
        for (int64_t x = 0; x < 4096; ++x) REQUIRE(g.as_swizzle()->apply(x) == sw.apply(x));
      }
  // Two bits XORed into one (a 2-bit row index into bit 3 and bit 3 again) is no swizzle.
  CHECK_FALSE(lp::F2Map({1, 2, 4, 8, 16 + 8, 32 + 8}).as_swizzle().has_value());
  CHECK_FALSE(lp::F2Map({2, 1}).as_swizzle().has_value());  // a bit permutation is not a swizzle

  const char* text = "F2[1,2,4,8,16,32,72,144,288,512,1024,2048] o _0 o (_64,_64):(_64,_1)";
  const Layout l = parse_layout_text(text).layout;
  CHECK(lp::print_cute(l).text == text);
  for (int64_t i = 0; i < l.size(); ++i) REQUIRE(l.offset_at(i) == by_definition(triton_128b, (i % 64) * 64 + i / 64));
  CHECK_THROWS_WITH(parse_layout_text("F2[1,-2] o _0 o _4:_1"), Catch::Contains("columns are bit patterns"));
  CHECK_THROWS_WITH(parse_layout_text("F2[1,2 o _0 o _4:_1"), Catch::Contains("expected ','"));
  CHECK_THROWS_AS(lp::print_tirx(l), lp::ConversionError);
}
