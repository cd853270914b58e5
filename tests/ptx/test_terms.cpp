// The term language against native integer arithmetic: every operation the evaluator builds,
// simplified or not, gives the bits C++'s fixed-width arithmetic gives, at random values.
#include <catch2/catch.hpp>

#include <map>
#include <random>

#include "frontend/term/LaneOrder.h"
#include "frontend/term/Term.h"
#include "solver/SymbolicAccess.h"

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

TEST_CASE("terms: truncating a term whose operands are shared visits each once", "[ptx][terms]") {
  // 64-bit arithmetic whose every level uses the level below twice (through a select and a sum):
  // a DAG of 3 nodes a level that has 2^60 paths. Its 32-bit truncation must stay as small (a PTX
  // loop of such updates once took the fuzzer past its time limit) and equal the native value.
  TermPool P;
  lp::term::VarInfo info;
  info.name = "x";
  info.width = 64;
  const auto x = P.new_var(info);
  const TermId X = P.var_term(x);
  constexpr int kLevels = 60;
  TermId t = X;
  for (int i = 0; i < kLevels; ++i)
    t = P.ite(P.ult(t, P.constant(1000 + i, 64)), P.add(t, P.constant(3, 64)), P.bit_xor(t, P.constant(5, 64)));
  const size_t before = P.size();
  const TermId low = P.trunc(t, 32);
  CHECK(P.size() - before < size_t{8} * kLevels);
  lp::term::Evaluator ev(P);
  std::mt19937_64 rng(11);
  for (int k = 0; k < 200; ++k) {
    uint64_t v = k < 100 ? rng() % 2000 : rng();
    ev.set(x, v);
    uint64_t native = v;
    for (int i = 0; i < kLevels; ++i) native = native < uint64_t(1000 + i) ? native + 3 : native ^ 5;
    CHECK(ev.eval(low) == (native & 0xffffffffu));
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

TEST_CASE("terms: Z3's encoding of random terms equals their exact evaluation", "[ptx][terms]") {
  // The decision and the re-check of every witness must read a term alike: Z3's encoding (which
  // narrows operations on operands known to be small) against term::Evaluator, on random DAGs over
  // variables with small and full ranges (divisors that may be 0 and that never are, and one
  // aligned to 32, which Z3 divides by shifting), at random values inside each range, at concrete
  // lanes; sums of a multiple of 32 and the lane are in the pool, as thread indices are.
  std::mt19937_64 rng(20261128);
  int compared = 0;
  for (int trial = 0; trial < 60; ++trial) {
    TermPool P;
    std::vector<lp::term::VarId> vars;
    std::vector<TermId> pool;
    for (int v = 0; v < 5; ++v) {
      lp::term::VarInfo info;
      info.name = "v" + std::to_string(v);
      info.width = v == 3 ? 64 : 32;
      switch (v) {
        case 0: info.lo = 1, info.hi = 1024; break;   // a block extent: never 0
        case 1: info.lo = 0, info.hi = 31; break;     // a warp
        case 2: info.lo = 0, info.hi = ~uint64_t{0}; break;
        case 3: info.lo = 0, info.hi = 4096; break;
        default: info.lo = 32, info.hi = 1024, info.align_log2 = 5; break;  // a whole-warp extent
      }
      vars.push_back(P.new_var(info));
      pool.push_back(P.var_term(vars.back()));
    }
    pool.push_back(P.lane());
    pool.push_back(P.add(P.mul(pool[1], P.constant(32, 32)), P.lane()));
    pool.push_back(P.add(P.mul(pool[4], pool[1]), P.lane()));
    for (uint64_t c : {0ull, 1ull, 32ull, 0x7fffffffull}) pool.push_back(P.constant(c, 32));
    auto pick = [&] { return pool[rng() % pool.size()]; };
    auto same_width = [&](TermId a, TermId b) {
      return P.width(a) == P.width(b) ? b : P.resize(b, P.width(a));
    };
    for (int step = 0; step < 12; ++step) {
      const TermId a = pick(), b0 = pick(), b = same_width(a, b0);
      TermId t;
      switch (rng() % 16) {
        case 0: t = P.add(a, b); break;
        case 1: t = P.mul(a, b); break;
        case 2: t = P.udiv(a, b); break;
        case 3: t = P.urem(a, b); break;
        case 4: t = P.sdiv(a, b); break;
        case 5: t = P.srem(a, b); break;
        case 6: t = P.shl(a, P.bit_and(b, P.constant(31, P.width(b)))); break;
        case 7: t = P.lshr(a, b); break;
        case 8: t = P.bit_xor(a, b); break;
        case 9: t = P.bit_and(a, b); break;
        case 10: t = P.mulhi(a, b, rng() % 2 == 0); break;
        case 11: t = P.ite(P.ult(a, b), a, b); break;
        case 12: t = P.zext(P.trunc(a, 16), 32); break;
        case 13: t = P.sext(P.trunc(a, 8), P.width(a)); break;
        case 14: t = P.sub(a, b); break;
        default: t = P.resize(P.add(P.zext(a, 64), P.zext(b, 64)), 32); break;
      }
      pool.push_back(t);
    }
    for (int sample = 0; sample < 4; ++sample) {
      std::map<lp::term::VarId, uint64_t> values;
      lp::term::Evaluator ev(P);
      for (lp::term::VarId v : vars) {
        const auto& info = P.var(v);
        const uint64_t span = info.hi - info.lo;
        const uint64_t x = (info.lo + (span == ~uint64_t{0} ? rng() : rng() % (span + 1))) >> info.align_log2 << info.align_log2;
        values[v] = x;
        ev.set(v, x);
      }
      const int lane = static_cast<int>(rng() % 32);
      ev.set(P.lane_var(), static_cast<uint64_t>(lane));
      for (size_t k = pool.size() - 6; k < pool.size(); ++k) {
        const auto z = lp::z3_encoded_value(P, pool[k], lane, values);
        INFO("trial " << trial << " term " << P.print(pool[k]) << " lane " << lane);
        REQUIRE(z.has_value());
        CHECK(*z == ev.eval(pool[k]));
        ++compared;
      }
    }
  }
  CHECK(compared == 60 * 4 * 6);
}

TEST_CASE("terms: an evaluator kept across lanes and values gives what a fresh one gives", "[ptx][terms]") {
  // The evaluator keeps a lane-free term's value while only the lane changes, and ignores a set
  // that changes nothing: random DAGs over a lane, uniform unknowns and a per-lane opaque value,
  // evaluated through long sequences of sets (mostly lanes, as a warp is evaluated), each value
  // compared with a fresh evaluator's (which has nothing cached).
  std::mt19937_64 rng(20261129);
  for (int trial = 0; trial < 40; ++trial) {
    TermPool P;
    std::vector<lp::term::VarId> vars;
    std::vector<TermId> pool;
    for (int v = 0; v < 4; ++v) {
      lp::term::VarInfo info;
      info.name = "v" + std::to_string(v);
      info.kind = v == 3 ? lp::term::VarKind::Opaque : lp::term::VarKind::Uniform;
      vars.push_back(P.new_var(info));
      pool.push_back(P.var_term(vars.back()));
    }
    vars.push_back(P.lane_var());
    pool.push_back(P.lane());
    pool.push_back(P.constant(32, 32));
    for (int step = 0; step < 40; ++step) {
      const TermId a = pool[rng() % pool.size()], b = pool[rng() % pool.size()];
      switch (rng() % 7) {
        case 0: pool.push_back(P.add(a, b)); break;
        case 1: pool.push_back(P.mul(a, b)); break;
        case 2: pool.push_back(P.bit_xor(a, b)); break;
        case 3: pool.push_back(P.lshr(a, P.bit_and(b, P.constant(31, 32)))); break;
        case 4: pool.push_back(P.urem(a, b)); break;
        case 5: pool.push_back(P.ite(P.ult(a, b), a, b)); break;
        default: pool.push_back(P.sub(a, b)); break;
      }
    }
    lp::term::Evaluator kept(P);
    std::vector<uint64_t> values(vars.size(), 0);
    for (int set = 0; set < 300; ++set) {
      // Lanes most of the time, the same value again sometimes, another unknown otherwise.
      const size_t k = rng() % 4 != 0 ? vars.size() - 1 : rng() % vars.size();
      const uint64_t x = rng() % 3 == 0 ? values[k] : (k == vars.size() - 1 ? rng() % 32 : rng() >> (rng() % 32));
      values[k] = x & 0xffffffffu;
      kept.set(vars[k], x);
      lp::term::Evaluator fresh(P);
      for (size_t j = 0; j < vars.size(); ++j) fresh.set(vars[j], values[j]);
      for (size_t t = 0; t < pool.size(); t += 1 + rng() % 3) {
        INFO("trial " << trial << ", set " << set << ", term " << P.print(pool[t]));
        CHECK(kept.eval(pool[t]) == fresh.eval(pool[t]));
      }
    }
  }
}

TEST_CASE("terms: what the lane order and one-run shapes claim holds at every lane of random values", "[ptx][terms]") {
  // Random terms over the lane, a warp, a block extent and full-range unknowns, built as thread
  // indices and their thresholds are (sums, products, shifts, divisions, selections, wrap-around
  // included); each claim of lane_order and one_run_by_shape is checked on all 32 lanes at random
  // values of the others. The claims must be made often enough to matter.
  std::mt19937_64 rng(20261129);
  int ordered = 0, increasing = 0, runs = 0, refused = 0;
  for (int trial = 0; trial < 300; ++trial) {
    TermPool P;
    std::vector<lp::term::VarId> vars;
    for (auto [lo, hi] : {std::pair<uint64_t, uint64_t>{1, 1024}, {0, 31}, {0, 0xffffffffull}, {0, 64}}) {
      lp::term::VarInfo info;
      info.name = "v" + std::to_string(vars.size());
      info.lo = lo, info.hi = hi;
      vars.push_back(P.new_var(info));
    }
    auto var = [&](size_t k) { return P.var_term(vars[k]); };
    std::vector<TermId> pool = {P.lane(), P.add(P.mul(var(1), P.constant(32, 32)), P.lane()), var(0), var(1), var(2), var(3),
                                P.constant(8, 32), P.constant(0, 32), P.constant(3, 32)};
    auto pick = [&] { return pool[rng() % pool.size()]; };
    for (int step = 0; step < 8; ++step) {
      const TermId a = pick(), b = pick();
      switch (rng() % 9) {
        case 0: pool.push_back(P.add(a, b)); break;
        case 1: pool.push_back(P.mul(a, b)); break;
        case 2: pool.push_back(P.shl(a, P.constant(rng() % 6, 32))); break;
        case 3: pool.push_back(P.lshr(a, b)); break;
        case 4: pool.push_back(P.udiv(a, b)); break;
        case 5: pool.push_back(P.urem(a, b)); break;
        case 6: pool.push_back(P.ite(P.ult(var(3), P.constant(9, 32)), a, b)); break;
        case 7: pool.push_back(P.sub(a, b)); break;
        default: pool.push_back(P.bit_xor(a, b)); break;
      }
    }
    std::vector<TermId> conds;
    for (int k = 0; k < 6; ++k) {
      const TermId a = pick(), b = pick();
      TermId c = rng() % 2 ? P.ult(a, b) : P.slt(a, b);
      if (rng() % 3 == 0) c = P.bit_not(c);
      conds.push_back(c);
    }
    conds.push_back(P.bit_and(conds[0], conds[1]));
    for (int sample = 0; sample < 8; ++sample) {
      lp::term::Evaluator ev(P);
      for (lp::term::VarId v : vars) {
        const auto& info = P.var(v);
        ev.set(v, info.lo + (rng() % 4 == 0 ? (rng() % 2 ? 0 : info.hi - info.lo) : rng() % (info.hi - info.lo + 1)));
      }
      auto at = [&](TermId t, int lane) {
        ev.set(P.lane_var(), static_cast<uint64_t>(lane));
        return ev.eval(t);
      };
      for (TermId t : pool) {
        const lp::term::LaneOrder o = lp::term::lane_order(P, t);
        if (o == lp::term::LaneOrder::Unknown) continue;
        INFO("term " << P.print(t));
        for (int lane = 0; lane + 1 < 32; ++lane) {
          const uint64_t x = at(t, lane), y = at(t, lane + 1);
          if (o == lp::term::LaneOrder::Constant) CHECK(x == y);
          if (o == lp::term::LaneOrder::NonDecreasing) CHECK(x <= y);
          if (o == lp::term::LaneOrder::Increasing) CHECK(x < y);
        }
        ordered += o != lp::term::LaneOrder::Constant;
        increasing += o == lp::term::LaneOrder::Increasing;
      }
      for (TermId c : conds) {
        if (!lp::term::one_run_by_shape(P, c)) {
          ++refused;
          continue;
        }
        INFO("condition " << P.print(c));
        int first = -1, last = -1, count = 0;
        for (int lane = 0; lane < 32; ++lane)
          if (at(c, lane)) {
            if (first < 0) first = lane;
            last = lane;
            ++count;
          }
        CHECK((count == 0 || count == last - first + 1));
        runs += P.lane_dependent(c);
      }
    }
  }
  CHECK(ordered > 500);
  CHECK(increasing > 200);
  CHECK(runs > 200);
  CHECK(refused > 200);
}
