// The term language against native integer arithmetic: every operation the evaluator builds,
// simplified or not, gives the bits C++'s fixed-width arithmetic gives, at random values.
#include <catch2/catch.hpp>

#include <random>

#include "analyzer/term/Term.h"

using lp::term::TermId;
using lp::term::TermPool;

TEST_CASE("terms: simplified terms evaluate like 32-bit machine arithmetic", "[ptx][terms]") {
  TermPool P;
  lp::term::VarInfo info;
  info.name = "x";
  const auto x = P.new_var(info);
  info.name = "y";
  const auto y = P.new_var(info);
  const TermId X = P.var_term(x), Y = P.var_term(y), L = P.lane();
  auto c = [&](uint64_t v) { return P.constant(v, 32); };
  struct Case {
    TermId t;
    std::function<uint32_t(uint32_t, uint32_t, uint32_t)> f;
  };
  const std::vector<Case> cases = {
      {P.sub(P.add(X, c(7)), X), [](uint32_t, uint32_t, uint32_t) { return 7u; }},
      {P.mul(P.add(X, Y), c(12)), [](uint32_t a, uint32_t b, uint32_t) { return (a + b) * 12u; }},
      {P.lshr(P.add(P.mul(X, c(32)), L), c(5)), [](uint32_t a, uint32_t, uint32_t l) { return (a * 32u + l) >> 5; }},
      {P.bit_and(P.add(P.mul(X, c(32)), L), c(31)), [](uint32_t a, uint32_t, uint32_t l) { return (a * 32u + l) & 31u; }},
      {P.ashr(X, c(3)), [](uint32_t a, uint32_t, uint32_t) { return static_cast<uint32_t>(static_cast<int32_t>(a) >> 3); }},
      {P.bit_xor(P.bit_xor(X, c(5)), c(5)), [](uint32_t a, uint32_t, uint32_t) { return a; }},
      {P.udiv(X, c(12)), [](uint32_t a, uint32_t, uint32_t) { return a / 12u; }},
      {P.srem(X, c(7)), [](uint32_t a, uint32_t, uint32_t) { return static_cast<uint32_t>(static_cast<int32_t>(a) % 7); }},
      {P.mulhi(X, Y, false), [](uint32_t a, uint32_t b, uint32_t) { return static_cast<uint32_t>((uint64_t{a} * b) >> 32); }},
      {P.mulhi(X, Y, true), [](uint32_t a, uint32_t b, uint32_t) {
         return static_cast<uint32_t>(static_cast<uint64_t>(int64_t{static_cast<int32_t>(a)} * static_cast<int32_t>(b)) >> 32); }},
      {P.ite(P.slt(X, Y), X, Y), [](uint32_t a, uint32_t b, uint32_t) { return static_cast<int32_t>(a) < static_cast<int32_t>(b) ? a : b; }},
      {P.trunc(P.lshr(P.add(P.zext(X, 64), P.zext(Y, 64)), P.constant(32, 64)), 32),
       [](uint32_t a, uint32_t b, uint32_t) { return static_cast<uint32_t>((uint64_t{a} + b) >> 32); }},
      {P.shl(X, Y), [](uint32_t a, uint32_t b, uint32_t) { return b >= 32 ? 0u : a << b; }},
      {P.lshr(X, P.bit_and(Y, c(63))), [](uint32_t a, uint32_t b, uint32_t) { return (b & 63u) >= 32 ? 0u : a >> (b & 63u); }},
      {P.substitute(P.add(L, X), {{P.lane_var(), P.bit_xor(L, c(1))}}), [](uint32_t a, uint32_t, uint32_t l) { return (l ^ 1u) + a; }},
  };
  std::mt19937 rng(7);
  lp::term::Evaluator ev(P);
  for (int k = 0; k < 2000; ++k) {
    const uint32_t a = rng() >> (rng() % 32), b = rng() >> (rng() % 32), l = rng() % 32;
    ev.set(x, a);
    ev.set(y, b);
    ev.set(P.lane_var(), l);
    for (size_t i = 0; i < cases.size(); ++i) {
      INFO("case " << i << " a=" << a << " b=" << b << " lane=" << l);
      CHECK(ev.eval(cases[i].t) == cases[i].f(a, b, l));
    }
  }
}

TEST_CASE("terms: the lane and warp parts of a thread index separate", "[ptx][terms]") {
  TermPool P;
  lp::term::VarInfo w;
  w.name = "warp";
  w.hi = 31;
  const TermId W = P.var_term(P.new_var(w));
  const TermId t = P.add(P.mul(W, P.constant(32, 32)), P.lane());
  CHECK(P.lshr(t, P.constant(5, 32)) == W);
  CHECK(P.bit_and(t, P.constant(31, 32)) == P.lane());
  CHECK(!P.lane_dependent(P.lshr(t, P.constant(5, 32))));
  CHECK(P.const_value(P.slt(P.constant(1023, 32), t)) == 0u);
}
