// Worked examples of CuTe's algebra, asserting CuTe's actual semantics (include/cute/layout.hpp and
// its unit tests). Where a common misreading differs (docs/algebra.md), the comment says what it
// claims and why that is not CuTe.
#include <catch2/catch.hpp>
#include <chrono>
#include <optional>

#include "TestSupport.h"
#include "solver/AlgebraClaims.h"
#include "analyzer/algebra/Legality.h"
#include "analyzer/algebra/Operations.h"
#include "analyzer/ir/Swizzle.h"
#include "analyzer/support/Governor.h"

using namespace lp;
using namespace lp::algebra;
using namespace lp::algebra::testing;

TEST_CASE("(_6,_6):(_1,_7) o _4:_4 is CuTe's (_2,_2):(_4,_7), wrong at 2 of 4 points", "[algebra][examples]") {
  const algebra::Outcome o = lp::decide_claims(op_compose(ir("(_6,_6):(_1,_7)"), ir("_4:_4")));
  CHECK(*o.text == "(_2,_2):(_4,_7)");
  CHECK(o.check.verdict == algebra::Verdict::Illegal);
  CHECK_THAT(o.check.reason, Catch::Contains("wrong at 2 of 4 points"));
  REQUIRE(o.check.witness);
  // B(2) = 8 = coordinate (2,1) of A: 2 + 7 = 9; the result gives (0,1) -> 7.
  CHECK(o.check.witness->index == 2);
  CHECK(o.check.witness->expected == "9");
  CHECK(o.check.witness->actual == "7");
}

TEST_CASE("dynamic (8,8):(8,1) o 4:3 is CuTe's (3,1):(24,1), wrong at 1 of 4", "[algebra][examples]") {
  const algebra::Outcome o = lp::decide_claims(op_compose(ir("(8,8):(8,1)"), ir("4:3")));
  CHECK(*o.text == "(3,1):(24,1)");
  CHECK(o.check.verdict == algebra::Verdict::Illegal);
  CHECK_THAT(o.check.reason, Catch::Contains("wrong at 1 of 4 points"));
  REQUIRE(o.check.witness);
  CHECK(o.check.witness->index == 3);  // A(9) = 9, R(3) = 1 (CuTe extends the last mode)
  CHECK(o.check.witness->expected == "9");
  CHECK(o.check.witness->actual == "1");
}

TEST_CASE("complement((4,2):(1,10)) = 2:4 leaves holes: legal by CuTe's contract, the hole a note", "[algebra][examples]") {
  const algebra::Outcome o = lp::decide_claims(op_complement(ir("(_4,_2):(_1,_10)"), std::nullopt));
  CHECK(*o.text == "_2:_4");
  CHECK(o.check.verdict == algebra::Verdict::Legal);
  REQUIRE(o.check.notes.size() == 1);
  CHECK(o.check.notes[0].kind == ContractNote::Kind::ComplementHole);
  CHECK_THAT(o.check.notes[0].message, Catch::Contains("hole: offset 8"));
  // CuTe refuses the dynamic-stride form outright.
  const algebra::Outcome d = lp::decide_claims(op_complement(ir("(4,2):(1,10)"), std::nullopt));
  CHECK_FALSE(d.text);
  CHECK_THAT(d.check.reason, Catch::Contains("Dynamic-stride complement only for rank-1 layouts"));
}

TEST_CASE("composition with a tuple tiler drops untiled modes, logical_divide keeps them", "[algebra][examples]") {
  const CuteTiler t = CuteTiler::tuple({CuteTiler::of(cute("_4:_1"))});
  CHECK(*lp::decide_claims(op_compose(ir("(_12,_8):(_8,_1)"), t)).text == "(_4):(_8)");
  CHECK(*lp::decide_claims(op_divide(DivideKind::Logical, ir("(_12,_8):(_8,_1)"), t)).text == "((_4,_3),_8):((_8,_32),_1)");
}

TEST_CASE("composition: CuTe composes A(B(c)), not B(A(c))", "[algebra][examples]") {
  // Seed 003 writes C(i) = B(A(i)) and rejects <8:2> o <4:1> because cosize(A) > size(B). In CuTe
  // composition(A,B)(c) = A(B(c)); B's image {0..3} lies in A's domain, so it is legal: _4:_2.
  const algebra::Outcome o = lp::decide_claims(op_compose(ir("_8:_2"), ir("_4:_1")));
  CHECK(*o.text == "_4:_2");
  CHECK(o.check.verdict == algebra::Verdict::Legal);
  // Seed 003's hierarchical example is right: (4,2):(1,4) o (2,2):(1,2) = (2,2):(1,2).
  const algebra::Outcome h = lp::decide_claims(op_compose(ir("(_4,_2):(_1,_4)"), ir("(_2,_2):(_1,_2)")));
  CHECK(*h.text == "(_2,_2):(_1,_2)");
  CHECK(h.check.verdict == algebra::Verdict::Legal);
}

TEST_CASE("complement: complement(4:32, 256) is (_32,_2):(_1,_128), not <32:1>", "[algebra][examples]") {
  // Seed 003 claims <32:1> covering only 128 of 256; CuTe's complement covers the whole cotarget.
  const algebra::Outcome o = lp::decide_claims(op_complement(ir("_4:_32"), Int{256, true}));
  CHECK(*o.text == "(_32,_2):(_1,_128)");
  CHECK(o.check.verdict == algebra::Verdict::Legal);
}

TEST_CASE("divide and product", "[algebra][examples]") {
  // logical_divide(128:1, 32:1): the write-ups are right.
  CHECK(*lp::decide_claims(op_divide(DivideKind::Logical, ir("_128:_1"), CuteTiler::of(cute("_32:_1")))).text == "(_32,_4):(_1,_32)");
  // logical_product(128:1, 4:32): a common misreading says (4:128); CuTe computes complement(A, 128*cosize(B)=12416)
  // = 97:128, and 97:128 o 4:32 = 4:4096.
  const algebra::Outcome p = lp::decide_claims(op_logical_product(ir("_128:_1"), CuteTiler::of(cute("_4:_32"))));
  CHECK(*p.text == "(_128,_4):(_1,_4096)");
  CHECK(p.check.verdict == algebra::Verdict::Legal);
  // A common misreading calls B = <4:1> illegal (overlap); CuTe gives (_128,_4):(_1,_128), a bijection onto [0,512).
  const algebra::Outcome q = lp::decide_claims(op_logical_product(ir("_128:_1"), CuteTiler::of(cute("_4:_1"))));
  CHECK(*q.text == "(_128,_4):(_1,_128)");
  CHECK(q.check.verdict == algebra::Verdict::Legal);
}

TEST_CASE("coalesce and filter_zeros", "[algebra][examples]") {
  // A common misreading fuses (2,4):(4,1) into <8:1> reading it row-major. CuTe is colex (first mode fastest):
  // 2*4 != 1, nothing merges.
  CHECK(*lp::decide_claims(op_coalesce(ir("(_2,_4):(_4,_1)"))).text == "(_2,_4):(_4,_1)");
  CHECK(*lp::decide_claims(op_coalesce(ir("(_2,_4):(_8,_1)"))).text == "(_2,_4):(_8,_1)");
  CHECK(*lp::decide_claims(op_coalesce(ir("(_4,_2):(_1,_4)"))).text == "_8:_1");
  // A common misreading says filter_zeros((4,3):(1,0)) = <4:1>; CuTe's filter_zeros keeps the mode with extent 1,
  // and filter (which also coalesces) gives _4:_1.
  CHECK(*lp::decide_claims(op_filter_zeros(ir("(_4,_3):(_1,_0)"))).text == "(_4,_1):(_1,_0)");
  CHECK(*lp::decide_claims(op_filter(ir("(_4,_3):(_1,_0)"))).text == "_4:_1");
  CHECK(lp::decide_claims(op_filter(ir("(_4,_3):(_1,_0)"))).check.verdict == algebra::Verdict::Legal);
}

TEST_CASE("swizzle: its bit formula is not CuTe's", "[algebra][examples]") {
  // Seed 003 computes swizzle<3,4,3>(0x18) = 0x28 (XOR of bits [S,S+B) into [M,M+B)). CuTe's
  // Sw<3,4,3> XORs bits [7,10) into [4,7); 0x18 has none of bits 7-9 set, so it is unchanged.
  CHECK(Swizzle(3, 4, 3).apply(0x18) == 0x18);
  CHECK(Swizzle(3, 4, 3).apply(0x80) == 0x90);
}

TEST_CASE("swizzle compositions", "[algebra][swizzle]") {
  const algebra::Outcome s = lp::decide_claims(op_compose(Swizzle(3, 3, 3), ir("(_8,_64):(_64,_1)")));
  CHECK(*s.text == "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)");
  CHECK(s.check.verdict == algebra::Verdict::Legal);
  // CuTe rewrites A o Sw as Sw' o A with Sw' = make_swizzle<A(Y),A(Z)>.
  const algebra::Outcome l = lp::decide_claims(op_compose(ir("(_8,_64):(_64,_1)"), Swizzle(3, 3, 3)));
  CHECK(*l.text == "Sw<3,0,3> o _0 o (_8,_64):(_64,_1)");
  CHECK(l.check.verdict == algebra::Verdict::Legal);
  const algebra::Outcome merged = lp::decide_claims(op_compose(Swizzle(2, 3, 3), Swizzle(1, 5, 3)));
  CHECK(*merged.text == "Sw<3,3,3>");
  CHECK(merged.check.verdict == algebra::Verdict::Legal);
  const algebra::Outcome shifts = lp::decide_claims(op_compose(Swizzle(2, 3, 3), Swizzle(2, 3, 4)));
  CHECK_FALSE(shifts.text);
  CHECK_THAT(shifts.check.reason, Catch::Contains("same shift"));
}

TEST_CASE("inverses and max_common_vector", "[algebra]") {
  // Not injective: CuTe's left inverse _2:_2 inverts L on its image only (L(R(L(i))) == L(i)).
  const algebra::Outcome li = lp::decide_claims(op_left_inverse(ir("(_2,_2):(_1,_1)")));
  CHECK(*li.text == "_2:_2");
  CHECK(li.check.verdict == algebra::Verdict::Legal);
  REQUIRE(li.check.notes.size() == 2);
  CHECK(li.check.notes[0].kind == ContractNote::Kind::PseudoInverse);
  CHECK_THAT(li.check.notes[0].message, Catch::Contains("L is not injective"));
  CHECK(li.check.notes[1].kind == ContractNote::Kind::PastDomain);  // R(2): L takes 2, R's domain is [0, 2)
  // Injective with strides that do not nest: (3,2):(1,2) still inverts it on its image.
  const algebra::Outcome nn = lp::decide_claims(op_left_inverse(ir("(_2,_2):(_1,_3)")));
  CHECK(*nn.text == "(_3,_2):(_1,_2)");
  CHECK(nn.check.verdict == algebra::Verdict::Legal);
  CHECK(*lp::decide_claims(op_max_common_vector(ir("(_4,_8):(_1,_4)"), ir("(_4,_8):(_1,_4)"))).text == "_32");
  CHECK(*lp::decide_claims(op_max_common_vector(ir("(_4,_8):(_8,_1)"), ir("(_4,_8):(_1,_4)"))).text == "_1");
}

TEST_CASE("domains beyond the enumeration limit give unknown, never legal", "[algebra]") {
  const algebra::Outcome o = lp::decide_claims(op_coalesce(ir("(_4096,_2048):(_1,_4096)")));
  CHECK(*o.text == "_8388608:_1");
  CHECK(o.check.verdict == algebra::Verdict::Unknown);
  CHECK_THAT(o.check.reason, Catch::Contains("not decided"));
}

TEST_CASE("limits: a swizzle pair is decided on its bits, whatever their positions", "[algebra][swizzle][limits]") {
  // Sw<4,24,4> o Sw<4,24,4> touches bits up to 32 (2^32 patterns to enumerate), Sw<20,20,20> bits up
  // to 60: both are involutions, so the composition is the identity, decided on 63 single bits.
  for (const Swizzle& s : {Swizzle(4, 24, 4), Swizzle(20, 20, 20)}) {
    const algebra::Outcome o = lp::decide_claims(op_compose(s, s));
    CHECK(*o.text == "Sw<0,0,0>");
    CHECK(o.check.verdict == algebra::Verdict::Legal);
  }
  // Against brute force on every pair of small swizzles with one shift: the verdict and the
  // smallest differing x agree with enumerating every x below 2^10 (all bits these touch).
  for (int b1 = 0; b1 <= 3; ++b1)
    for (int m1 = 0; m1 <= 3; ++m1)
      for (int b2 = 0; b2 <= 3; ++b2)
        for (int m2 = 0; m2 <= 3; ++m2) {
          const Swizzle outer(b1, m1, 3), inner(b2, m2, 3);
          for (const Swizzle& claimed : {Swizzle(3, 3, 3), Swizzle(b1, m1, 3), Swizzle(2, 2, 3)}) {
            const Check c = check_swizzle_pair(outer, inner, claimed);
            std::optional<int64_t> first;
            for (int64_t x = 0; x < 1024 && !first; ++x)
              if (claimed.apply(x) != outer.apply(inner.apply(x))) first = x;
            INFO(b1 << m1 << b2 << m2);
            CHECK((c.verdict == algebra::Verdict::Legal) == !first);
            if (first) CHECK(c.witness->index == *first);
          }
        }
}

TEST_CASE("limits: a legality check the run's budget stops is unknown, never legal", "[algebra][limits][budget]") {
  lp::Budget spent;
  spent.deadline = lp::SteadyClock::now() - std::chrono::seconds(1);
  lp::BudgetScope scope(spent);
  // A 2048x2047 composition: millions of points to compare.
  const algebra::Outcome o = lp::decide_claims(op_compose(ir("(_2048,_2047):(_1,_2048)"), ir("(_2048,_2047):(_2047,_1)")));
  CHECK(o.check.verdict == algebra::Verdict::Unknown);
  CHECK_THAT(o.check.reason, Catch::Contains("time budget was spent"));
  const algebra::Outcome c = lp::decide_claims(op_coalesce(ir("(_1024,_1024):(_1,_1024)")));
  CHECK(c.check.verdict == algebra::Verdict::Unknown);
}

namespace {

// An outcome without a result (CuTe rejects it, or it is undecided), with its verdict and reason.
void check_no_result(const algebra::Outcome& o, algebra::Verdict verdict, const char* reason) {
  CHECK_FALSE(o.text);
  CHECK(o.check.verdict == verdict);
  CHECK_THAT(o.check.reason, Catch::Contains(reason));
}

}  // namespace

TEST_CASE("compositions with composed operands follow CuTe's layout_composed.hpp and swizzle_layout.hpp",
          "[algebra][examples]") {
  // Texts printed by CuTe 4.2.0 for the same expressions (a probe compiled against the headers).
  // composition(Sw1 o A, Sw2 o B) = Sw1 o _0 o (A o (Sw2 o B)) = Sw1 o _0 o Sw2' o _0 o (A o B).
  const algebra::Outcome o = lp::decide_claims(op_compose(ir("Sw<1,0,3> o _0 o (_8,_8):(_8,_1)"), ir("Sw<2,0,3> o _0 o (_8,_8):(_8,_1)")));
  CHECK(*o.text == "Sw<1,0,3> o _0 o Sw<2,0,-3> o _0 o (_8,_8):(_1,_8)");
  CHECK(o.check.verdict == algebra::Verdict::Legal);
  // composition(Layout, ComposedLayout) static_asserts a zero offset.
  check_no_result(lp::decide_claims(op_compose(ir("(_8,_8):(_8,_1)"), ir("Sw<3,0,3> o _2 o (_8,_8):(_8,_1)"))),
                  algebra::Verdict::Illegal, "requires the composed offset to be _0");
  // TileLang's pre-#455 int8 swizzle: CuTe cannot move Sw<4,4,4> through A (make_swizzle rejects the
  // masks A maps it to); only the three-argument composition(A, _0, Sw o B) builds it.
  check_no_result(lp::decide_claims(op_compose(ir("(_16,_16,_64):(_1,_16,_128)"), ir("Sw<4,4,4> o _0 o (_64,_128):(_256,_1)"))),
                  algebra::Verdict::Illegal, "make_swizzle");
  // A byte-address swizzle belongs to a pointer (smem_ptr), not to a layout CuTe composes with.
  check_no_result(lp::decide_claims(op_compose(ir("(_8,_8):(_8,_1)"), ir("Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_8):(_8,_1)"))),
                  algebra::Verdict::Unknown, "pointer's swizzle");
  // max_common_vector has overloads for a swizzle as the outer part only (swizzle_layout.hpp).
  check_no_result(lp::decide_claims(op_max_common_vector(ir("_64:_1 o _0 o _64:_1"), ir("_64:_1"))),
                  algebra::Verdict::Illegal, "CuTe rejects");
}

TEST_CASE("inverses of composed layouts are CuTe's composed inverses, or undecided where CuTe's has no shape",
          "[algebra][examples]") {
  // right_inverse(A o _3 o B) = right_inverse(B) o _-3 o right_inverse(A), as CuTe prints it. L(R(i))
  // evaluates B at -3 for i = 0: past its domain, as CuTe does.
  const algebra::Outcome o = lp::decide_claims(op_right_inverse(ir("(_4,_16):(_16,_1) o _3 o (_8,_8):(_1,_8)")));
  CHECK(*o.text == "_64:_1 o _-3 o (_16,_4):(_4,_1)");
  CHECK(o.check.verdict == algebra::Verdict::Legal);
  REQUIRE(o.check.notes.size() == 1);
  CHECK(o.check.notes[0].kind == algebra::ContractNote::Kind::PastDomain);
  // CuTe's inverse of Sw o O o L with O != 0 is inverse(L) o -O o Sw: its domain is a swizzle.
  check_no_result(lp::decide_claims(op_left_inverse(ir("Sw<2,0,3> o _4 o (_8,_8):(_8,_1)"))), algebra::Verdict::Unknown,
                  "has no shape");
}

TEST_CASE("TIRx operands are checked in CuTe's colex order, as the algebra computes on them", "[algebra][examples]") {
  // S[(4,8):(8,1)] is the row-major 4x8 tile: as a CuTe layout (4,8):(8,1), colex index r + 4c. Its
  // composition with 8:1 is CuTe's (_4,_2):(_8,_1), legal; judged in TIRx's row-major order it would
  // be wrong at 7 of 8 points.
  const algebra::Outcome o = lp::decide_claims(op_compose(ir("S[(4,8):(8,1)]"), ir("_8:_1")));
  CHECK(*o.text == "(_4,_2):(_8,_1)");
  CHECK(o.check.verdict == algebra::Verdict::Legal);
  for (const char* op : {"right", "left"}) {
    INFO(op);
    const algebra::Outcome inv = lp::decide_claims(std::string(op) == "right" ? op_right_inverse(ir("S[(4,8):(8,1)]"))
                                                                              : op_left_inverse(ir("S[(4,8):(8,1)]")));
    CHECK(*inv.text == "(_8,_4):(_4,_1)");
    CHECK(inv.check.verdict == algebra::Verdict::Legal);
    CHECK(inv.check.notes.empty());
  }
}
