// The cases of CuTe's own core unit tests (NVIDIA/cutlass test/unit/cute/core/composition.cpp and
// the complement/inverse/coalesce tests), with CuTe's own assertions re-checked by brute force:
// composition R(c) == A(B(c)) for all c in B (A evaluated as CuTe does, past its domain too).
// Where B's image leaves A's domain LayoutProof must say illegal, with that reason.
#include <algorithm>
#include <catch2/catch.hpp>

#include "TestSupport.h"
#include "solver/AlgebraClaims.h"
#include "analyzer/algebra/Operations.h"

using namespace lp;
using namespace lp::algebra;
using namespace lp::algebra::testing;

namespace {

struct CompositionCase {
  const char* a;
  const char* b;
  bool b_inside_a;  // B's image lies in A's domain (else CuTe relies on extending A)
};

const CompositionCase kCompositionCases[] = {
    {"_1:_0", "_1:_0", true},           {"_1:_0", "_1:_1", true},           {"_1:_1", "_1:_0", true},
    {"_1:_1", "_1:_1", true},           {"_4:_1", "_4:_1", true},           {"_4:_2", "_4:_1", true},
    {"_4:_0", "_4:_1", true},           {"_4:_1", "_4:_0", true},           {"_4:_1", "_1:_0", true},
    {"_4:_1", "_2:_1", true},           {"_4:_2", "_2:_1", true},           {"_4:_1", "_2:_2", true},
    {"_4:_2", "_2:_2", true},           {"(_4,_3):(_1,_4)", "_12:_1", true}, {"_12:_1", "(_4,_3):(_1,_4)", true},
    {"_12:_2", "(_4,_3):(_1,_4)", true}, {"_12:_1", "(_4,_3):(_3,_1)", true}, {"_12:_2", "(_4,_3):(_3,_1)", true},
    {"_12:_1", "(_2,_3):(_2,_4)", true}, {"(_4,_3):(_1,_4)", "(_4,_3):(_1,_4)", true},
    {"(_4,_3):(_1,_4)", "_6:_1", true}, {"(_4,_3):(_1,_4)", "_6:_2", true},
    {"(_4,_3):(_1,_4)", "(_6,_2):(_2,_1)", true}, {"(_4,_3):(_1,_4)", "(_4,_3):(_3,_1)", true},
    {"(_4,_3):(_3,_1)", "(_4,_3):(_1,_4)", true}, {"(_4,_3):(_3,_1)", "_12:_1", true},
    {"(_4,_3):(_3,_1)", "_6:_2", true}, {"(_4,_3):(_3,_1)", "(_6,_2):(_2,_1)", true},
    {"(_8,_8):(_1,_8)", "((_2,_2,_2),(_2,_2,_2)):((_1,_16,_4),(_8,_2,_32))", true},
    {"(_8,_8):(_8,_1)", "((_2,_2,_2),(_2,_2,_2)):((_1,_16,_4),(_8,_2,_32))", true},
    {"((_4,_2)):((_1,_16))", "(_4,_2):(_2,_1)", true}, {"(_2,_2):(_2,_1)", "(_2,_2):(_2,_1)", true},
    {"(_4,_8,_2):(_1,_4,_32)", "(_2,_2,_2):(_2,_8,_1)", true},
    {"(_4,_8,_2):(_2,_8,_1)", "(_2,_2,_2):(_1,_8,_2)", true},
    {"(_4,_8,_2):(_2,_8,_1)", "(_4,_2,_2):(_2,_8,_1)", true},
    // Dynamic shapes/strides
    {"12:1", "_4:_1", true}, {"12:1", "_4:1", true}, {"12:_1", "_4:1", true}, {"12:_1", "_4:_1", true},
    {"(12,3):(1,24)", "_4:_1", true}, {"16:2", "4:2", true}, {"(128,24,5):(1,128,3072)", "64:2", true},
    {"(128,24,5):(1,128,3072)", "480:_32", true},
    // cosize(b) > size(a): CuTe extends A past its domain; by LayoutProof's rule that is illegal.
    {"_1:_0", "_4:_1", false}, {"_1:_1", "_4:_1", false}, {"_4:_1", "_4:_2", false},
    {"(_4,_3):(_3,_1)", "_24:_1", false}, {"(_4,_3):(_3,_1)", "_8:_1", true},
    {"(_4,_3,_1):(_3,_1,_0)", "_24:_1", false}, {"3:_1", "_4:_1", false}, {"(48,24,5):(_1,128,3072)", "32:_1", true},
    // Negative strides
    {"_4:_-1", "_4:_1", true}, {"_4:_1", "_4:_-1", false}, {"_4:_-1", "_4:_-1", false}, {"_4:_1", "_4:_-2", false},
    {"(_4,_4):(_-1,_1)", "(_2,_4,_2):(_1,_2,_8)", true}, {"(_4,_4):(_-1,_1)", "(_2,_4,_2):(_1,_4,_2)", true},
    {"(_1,(_2,_4)):(_0,(_-1,_512))", "_2:_-1", false}, {"(_1,(_2,_4)):(_0,(_-1,_512))", "_4:_-1", false},
    // Tuple (scaled-basis) strides
    {"(_4,_4):(_4,_1)", "(_4,_4):(_1@1,_1@0)", true}, {"(_4,(_2,_3)):(_6,(_3,_1))", "(_2,_4):(_1@1@1,_1@0)", true},
};

}  // namespace

TEST_CASE("CuTe composition unit cases: R(c) == A(B(c)) as CuTe asserts, legal, leaving A's domain a note", "[algebra][cute-unit]") {
  for (const CompositionCase& k : kCompositionCases) {
    INFO(k.a << " o " << k.b);
    const Layout a = ir(k.a);
    const CuteLayout ca = cute(k.a), cb = cute(k.b);
    const algebra::Outcome o = lp::decide_claims(op_compose(a, ir(k.b)));
    REQUIRE(o.layout);
    const bool basis = !cb.leaves().empty() && cb.leaves()[0].stride.is_single_basis();
    if (!basis) {
      // CuTe's assertion, by independent evaluation (A past its domain as CuTe evaluates it).
      const Evaluator eb(to_ir(cb));
      for (int64_t c = 0; c < eb.size(); ++c) {
        int64_t bc = 0;
        REQUIRE(as_integer(eb.at(c), bc));
        CHECK(value_at(*o.layout, c) == value_at(ca, bc));
      }
    }
    // CuTe's contract holds for every case (its test asserts it): legal. Where B leaves A's domain
    // the result stands on A extended by its strides: a past-domain note.
    CHECK(o.check.verdict == algebra::Verdict::Legal);
    const bool past = std::any_of(o.check.notes.begin(), o.check.notes.end(), [](const ContractNote& n) {
      return n.kind == ContractNote::Kind::PastDomain && n.message.find("leaves A's domain") != std::string::npos;
    });
    CHECK(past == !k.b_inside_a);
  }
}

TEST_CASE("CuTe composition unit case with swizzled B: CuTe's Sw' o (A o B), checked as A(Sw(B(c)))", "[algebra][cute-unit]") {
  // layout_composed.hpp: composition(A, Sw o _0 o B) = composition(composition(A, Sw), B), and
  // composition(A, Sw) is the rewrite Sw' o A. CuTe 4.2.0 prints Sw<2,0,3> o _0 o (_8,_8):(_1,_8).
  const Layout a = ir("(_8,_8):(_8,_1)"), b = ir("Sw<2,0,-3> o _0 o (_8,_8):(_8,_1)");
  const algebra::Outcome o = lp::decide_claims(op_compose(a, b));
  REQUIRE(o.text);
  CHECK(*o.text == "Sw<2,0,3> o _0 o (_8,_8):(_1,_8)");
  CHECK(o.check.verdict == algebra::Verdict::Legal);
  // By brute force: R(c) == A(Sw(B(c))) at every c.
  const Evaluator ea(a), eb(b), er(*o.composed);
  for (int64_t c = 0; c < eb.size(); ++c) {
    int64_t x = 0;
    REQUIRE(as_integer(eb.at(c), x));
    CHECK(er.at(c) == ea.at(x));
  }
}

TEST_CASE("CuTe composition unit case results print as CuTe prints them", "[algebra][cute-unit]") {
  // Printed by CuTe 4.2.0 (the differential suite re-derives these for thousands of cases).
  CHECK(*lp::decide_claims(op_compose(ir("(_4,_3):(_3,_1)"), ir("_6:_2"))).text == "(_2,_3):(_6,_1)");
  CHECK(*lp::decide_claims(op_compose(ir("_12:_2"), ir("(_4,_3):(_3,_1)"))).text == "(_4,_3):(_6,_2)");
  CHECK(*lp::decide_claims(op_compose(ir("(_4,_4):(_4,_1)"), ir("(_4,_4):(_1@1,_1@0)"))).text == "(_4,_4):(_1,_4)");
}

TEST_CASE("CuTe complement, inverse and coalesce unit cases are legal", "[algebra][cute-unit]") {
  for (const char* l : {"_1:_0", "_1:_1", "_4:_0", "_4:_1", "_4:_2", "(_2,_4):(_1,_2)", "(_2,_3):(_1,_2)",
                        "(_2,_4):(_1,_6)", "(_2,_4,_8):(_8,_1,_64)", "((_2,_2),(_2,_2)):((_1,_4),(_8,_32))",
                        "(_2,(_3,_4)):(_3,(_1,_6))"}) {
    INFO(l);
    const Layout x = ir(l);
    CHECK(lp::decide_claims(op_coalesce(x)).check.verdict == algebra::Verdict::Legal);
    CHECK(lp::decide_claims(op_right_inverse(x)).check.verdict == algebra::Verdict::Legal);
    const algebra::Outcome c = lp::decide_claims(op_complement(x, std::nullopt));
    CHECK(c.check.verdict == algebra::Verdict::Legal);
  }
  CHECK(*lp::decide_claims(op_complement(ir("(_2,_4):(_1,_6)"), std::nullopt)).text == "_3:_2");
  // Strides that do not nest: CuTe floors the stride ratio and leaves offsets uncovered, which its
  // contract allows: legal, the hole a note.
  for (const char* l : {"(_4,_6):(_1,_6)", "(_4,_10):(_1,_10)"}) {
    INFO(l);
    const algebra::Outcome c = lp::decide_claims(op_complement(ir(l), std::nullopt));
    CHECK(c.check.verdict == algebra::Verdict::Legal);
    REQUIRE(c.check.notes.size() == 1);
    CHECK_THAT(c.check.notes[0].message, Catch::Contains("leaves a hole"));
  }
  CHECK(*lp::decide_claims(op_right_inverse(ir("(_4,_8):(_8,_1)"))).text == "(_8,_4):(_4,_1)");
  CHECK(*lp::decide_claims(op_left_inverse(ir("(_4,_8):(_8,_1)"))).text == "(_8,_4):(_4,_1)");
}
