// Brute-force property tests on thousands of seeded random layouts per operation. The oracle is
// evaluation through lp::Layout written out here, not the legality code under test: a legal
// verdict must mean the property holds at every point; an illegal one must come with a point
// (or a reason) that really breaks it; the operations CuTe guarantees must come out legal.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "RandomLayouts.h"
#include "TestSupport.h"
#include "solver/AlgebraClaims.h"
#include "analyzer/algebra/Operations.h"

using namespace lp;
using namespace lp::algebra;
using namespace lp::algebra::testing;

namespace {

constexpr int kCases = 2000;

std::vector<int64_t> values(const CuteLayout& l) {
  const Evaluator e(to_ir(l));
  std::vector<int64_t> out;
  for (int64_t i = 0; i < e.size(); ++i) {
    int64_t v = 0;
    REQUIRE(as_integer(e.at(i), v));
    out.push_back(v);
  }
  return out;
}

bool injective(const std::vector<int64_t>& v) { return std::set<int64_t>(v.begin(), v.end()).size() == v.size(); }

bool has_note(const Check& c, ContractNote::Kind kind) {
  return std::any_of(c.notes.begin(), c.notes.end(), [kind](const ContractNote& n) { return n.kind == kind; });
}

}  // namespace

TEST_CASE("coalesce and filter keep the function, always legal", "[algebra][property]") {
  LayoutGen g(101);
  g.allow_dynamic = true;
  g.allow_negative = true;
  for (int n = 0; n < kCases; ++n) {
    const CuteLayout l = g.any();
    INFO(cute_text(l));
    const algebra::Outcome c = lp::decide_claims(op_coalesce(to_ir(l)));
    REQUIRE(c.check.verdict == algebra::Verdict::Legal);
    CHECK(values(*c.layout) == values(l));
    CHECK(c.layout->leaves().size() <= l.leaves().size());
    // filter: L's values with the static stride-0 modes skipped, in L's order.
    const algebra::Outcome f = lp::decide_claims(op_filter(to_ir(l)));
    REQUIRE(f.check.verdict == algebra::Verdict::Legal);
    std::vector<int64_t> kept;
    const std::vector<int64_t> all = values(l);
    const std::vector<CuteLayout> leaves = l.leaves();
    for (int64_t i = 0; i < static_cast<int64_t>(all.size()); ++i) {
      int64_t rest = i;
      bool zero_coord_on_zero_modes = true;
      for (const CuteLayout& leaf : leaves) {
        if (leaf.stride.is_zero() && leaf.stride.is_static && rest % leaf.shape.value != 0) zero_coord_on_zero_modes = false;
        rest /= leaf.shape.value;
      }
      if (zero_coord_on_zero_modes) kept.push_back(all[static_cast<size_t>(i)]);
    }
    CHECK(values(*f.layout) == kept);
  }
}

TEST_CASE("composition: legal means R = A o B with A extended as CuTe evaluates it, leaving A's domain is a note, "
          "illegal witnesses are real", "[algebra][property]") {
  LayoutGen g(202);
  int legal = 0, illegal = 0, past = 0;
  for (int n = 0; n < kCases; ++n) {
    g.allow_dynamic = n % 3 == 0;
    g.allow_negative = n % 4 == 0;
    const CuteLayout a = g.chance(0.5) ? g.compact() : g.any();
    g.allow_negative = false;
    const CuteLayout b = g.any(2);
    INFO(cute_text(a) << " o " << cute_text(b));
    const algebra::Outcome o = lp::decide_claims(op_compose(to_ir(a), to_ir(b)));
    if (!o.text) {
      CHECK(o.check.verdict == algebra::Verdict::Illegal);  // CuTe rejects it
      continue;
    }
    const std::vector<int64_t> av = values(a), bv = values(b);
    const Evaluator r(to_ir(*o.layout));
    // CuTe's contract (composition.cpp): R(c) == A(B(c)) for c < size(B), A evaluated past its
    // domain by its strides.
    bool holds = r.size() == static_cast<int64_t>(bv.size()), outside = false;
    for (size_t c = 0; c < bv.size(); ++c) {
      int64_t rc = 0;
      as_integer(r.at_extended(static_cast<int64_t>(c)), rc);
      holds = holds && rc == value_at(a, bv[c]);
      outside = outside || bv[c] < 0 || bv[c] >= static_cast<int64_t>(av.size());
    }
    CHECK((o.check.verdict == algebra::Verdict::Legal) == holds);
    if (holds) CHECK(has_note(o.check, ContractNote::Kind::PastDomain) == outside);
    if (o.check.verdict == algebra::Verdict::Illegal && o.check.witness && o.check.witness->index) {
      const size_t c = static_cast<size_t>(*o.check.witness->index);
      CHECK((r.size() != static_cast<int64_t>(bv.size()) ||
             value_at(*o.layout, static_cast<int64_t>(c)) != value_at(a, bv[c])));
    }
    (holds ? legal : illegal)++;
    past += holds && outside;
  }
  // Each verdict, and the note, occur often enough for the property to mean something.
  CHECK(legal > kCases / 10);
  CHECK(illegal > kCases / 20);
  CHECK(past > kCases / 50);
}

TEST_CASE("complement: legal means CuTe's contract holds, holes are notes, never illegal",
          "[algebra][property]") {
  LayoutGen g(303);
  int legal = 0, holes = 0;
  for (int n = 0; n < kCases; ++n) {
    const CuteLayout l = g.chance(0.5) ? g.compact() : g.any();
    const int64_t m = g.pick({1, 8, 16, 32, 48, 64, 128});
    INFO(cute_text(l) << " , " << m);
    const algebra::Outcome o = lp::decide_claims(op_complement(to_ir(l), Int{m, true}));
    if (!o.text) continue;
    const std::vector<int64_t> all = values(l), lv = values(filter(l)), rv = values(*o.layout);
    // CuTe's contract (test/unit/cute/core/complement.cpp): the completed layout reaches the
    // cotarget, R is ordered, R is disjoint from L, and R is at least size(M)/size(filter(L)) long.
    bool contract = *std::max_element(all.begin(), all.end()) + *std::max_element(rv.begin(), rv.end()) + 1 >= m;
    const std::set<int64_t> l_set(all.begin(), all.end());
    for (size_t i = 1; i < rv.size(); ++i) contract = contract && rv[i - 1] < rv[i] && !l_set.count(rv[i]);
    contract = contract && static_cast<int64_t>(rv.size()) >= m / static_cast<int64_t>(lv.size());
    CHECK((o.check.verdict == algebra::Verdict::Legal) == contract);
    if (o.check.verdict != algebra::Verdict::Legal) continue;
    std::vector<int64_t> combined;
    for (int64_t r : rv)
      for (int64_t x : lv) combined.push_back(x + r);
    const std::set<int64_t> hit(combined.begin(), combined.end());
    bool covers = true;
    for (int64_t v = 0; v < m; ++v) covers = covers && hit.count(v);
    CHECK(has_note(o.check, ContractNote::Kind::ComplementHole) == !covers);
    CHECK(injective(combined));  // CuTe's floored strides never overlap L (LayoutProof relies on it)
    ++legal;
    holes += !covers;
  }
  CHECK(legal > kCases / 4);
  CHECK(holes > kCases / 100);  // the note occurs often enough to mean something
}

TEST_CASE("compact layouts: complement, divide, product and inverses are legal", "[algebra][property]") {
  LayoutGen g(404);
  for (int n = 0; n < kCases; ++n) {
    const CuteLayout l = g.compact();
    INFO(cute_text(l));
    CHECK(lp::decide_claims(op_complement(to_ir(l), std::nullopt)).check.verdict == algebra::Verdict::Legal);
    CHECK(lp::decide_claims(op_right_inverse(to_ir(l))).check.verdict == algebra::Verdict::Legal);
    const algebra::Outcome li = lp::decide_claims(op_left_inverse(to_ir(l)));
    CHECK(li.check.verdict == algebra::Verdict::Legal);
    // A compact tile k:1 that divides the layout's shape mode by mode (k splits across the
    // leading modes as CuTe's shape_div requires): the divide must be legal.
    const int64_t size = l.size().value;
    const int64_t tile = g.pick({1, 2, 4, 6});
    int64_t rem = tile;
    bool divides = true;
    for (const CuteLayout& leaf : l.leaves()) {
      if (rem == 1) break;
      if (rem % leaf.shape.value == 0) rem /= leaf.shape.value;
      else if (leaf.shape.value % rem == 0) rem = 1;
      else divides = false;
    }
    if (divides && rem == 1) {
      const algebra::Outcome d = lp::decide_claims(op_divide(DivideKind::Logical, to_ir(l), CuteTiler::of(CuteLayout::leaf(Int{tile, true}, Int{1, true}))));
      CHECK(d.check.verdict == algebra::Verdict::Legal);
      CHECK(values(*d.layout).size() == static_cast<size_t>(size));
    }
    const CuteLayout b = g.compact(2);
    const algebra::Outcome p = lp::decide_claims(op_logical_product(to_ir(l), CuteTiler::of(b)));
    CHECK(p.check.verdict == algebra::Verdict::Legal);
    const std::vector<int64_t> pv = values(*p.layout);
    CHECK(injective(pv));
    CHECK(*std::max_element(pv.begin(), pv.end()) + 1 == static_cast<int64_t>(pv.size()));
    CHECK(lp::decide_claims(op_blocked_product(to_ir(l), to_ir(b))).check.verdict == algebra::Verdict::Legal);
    CHECK(lp::decide_claims(op_raked_product(to_ir(l), to_ir(b))).check.verdict == algebra::Verdict::Legal);
  }
}

TEST_CASE("inverses: legal means CuTe's inverse identity holds at every point, pseudo-inverses and points past a "
          "domain are notes", "[algebra][property]") {
  LayoutGen g(505);
  int pseudo = 0, past = 0;
  for (int n = 0; n < kCases; ++n) {
    const CuteLayout l = g.any();
    INFO(cute_text(l));
    const std::vector<int64_t> lv = values(l);
    const int64_t size_l = static_cast<int64_t>(lv.size());
    auto outside = [](int64_t x, int64_t size) { return x < 0 || x >= size; };
    const algebra::Outcome r = lp::decide_claims(op_right_inverse(to_ir(l)));
    if (r.text) {
      // inverse_right.cpp: L(R(i)) == i for i < size(R), L evaluated as CuTe evaluates it.
      const std::vector<int64_t> rv = values(*r.layout);
      bool holds = true, beyond = false;
      for (size_t i = 0; i < rv.size(); ++i) {
        holds = holds && value_at(l, rv[i]) == static_cast<int64_t>(i);
        beyond = beyond || outside(rv[i], size_l);
      }
      CHECK((r.check.verdict == algebra::Verdict::Legal) == holds);
      if (holds) CHECK(has_note(r.check, ContractNote::Kind::PastDomain) == beyond);
    }
    const algebra::Outcome li = lp::decide_claims(op_left_inverse(to_ir(l)));
    if (li.text) {
      // inverse_left.cpp: L(R(L(i))) == L(i) for i < size(L), both evaluated as CuTe evaluates them.
      const int64_t size_r = li.layout->size().value;
      bool holds = true, beyond = false, inverts = true;
      for (int64_t i = 0; i < size_l; ++i) {
        const int64_t back = value_at(*li.layout, lv[static_cast<size_t>(i)]);
        holds = holds && value_at(l, back) == lv[static_cast<size_t>(i)];
        beyond = beyond || outside(lv[static_cast<size_t>(i)], size_r) || outside(back, size_l);
        inverts = inverts && back == i;
      }
      CHECK((li.check.verdict == algebra::Verdict::Legal) == holds);
      if (holds) {
        CHECK(has_note(li.check, ContractNote::Kind::PastDomain) == beyond);
        CHECK(has_note(li.check, ContractNote::Kind::PseudoInverse) == !inverts);
        CHECK((inverts || !injective(lv)));  // R fails to invert L only where L is not injective
        pseudo += !inverts;
        past += beyond;
      }
    }
  }
  CHECK(pseudo > kCases / 20);
  CHECK(past > 0);
}

TEST_CASE("divide: legal means each tile is L at the tiler's points, L extended as CuTe evaluates it, a tile past L's "
          "domain is a note", "[algebra][property]") {
  LayoutGen g(606);
  for (int n = 0; n < kCases; ++n) {
    const CuteLayout l = g.compact();
    const CuteLayout t = g.any(2);
    INFO(cute_text(l) << " / " << cute_text(t));
    const algebra::Outcome d = lp::decide_claims(op_divide(DivideKind::Zipped, to_ir(l), CuteTiler::tuple({CuteTiler::of(t)})));
    if (!d.text) continue;
    if (d.check.verdict == algebra::Verdict::Legal) {
      // Each mode-0 tile is T, so the values on the tile equal L at T's points.
      const std::vector<int64_t> tv = values(t);
      const std::vector<int64_t> dv = values(d.layout->mode(0).mode(0));
      REQUIRE(dv.size() == tv.size());
      bool outside = false;
      for (size_t i = 0; i < tv.size(); ++i) {
        CHECK(dv[i] == value_at(l.mode(0), tv[i]));
        outside = outside || tv[i] < 0 || tv[i] >= l.mode(0).size().value;
      }
      if (outside) CHECK(has_note(d.check, ContractNote::Kind::PastDomain));
    }
  }
}
