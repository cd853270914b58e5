#include "frontend/term/LaneOrder.h"

namespace lp::term {

namespace {

// Subterms visited before the shape test gives up (a DAG may share them).
constexpr int kShapeVisits = 4096;

bool ordered(LaneOrder o) { return o == LaneOrder::NonDecreasing || o == LaneOrder::Increasing; }

LaneOrder order_of(const TermPool& P, TermId t, int& visits) {
  if (!P.lane_dependent(t)) return LaneOrder::Constant;
  if (t == P.lane()) return LaneOrder::Increasing;
  if (--visits < 0) return LaneOrder::Unknown;
  const Node& n = P.node(t);
  const uint64_t m = mask_of(n.width);
  switch (n.op) {
    case Op::Add: {
      if (P.max_value(n.a) > m - P.max_value(n.b)) return LaneOrder::Unknown;  // may wrap
      const LaneOrder a = order_of(P, n.a, visits), b = order_of(P, n.b, visits);
      if (a == LaneOrder::Unknown || b == LaneOrder::Unknown) return LaneOrder::Unknown;
      return a == LaneOrder::Increasing || b == LaneOrder::Increasing ? LaneOrder::Increasing : LaneOrder::NonDecreasing;
    }
    case Op::Mul: {
      if (P.lane_dependent(n.a) && P.lane_dependent(n.b)) return LaneOrder::Unknown;
      const uint64_t a = P.max_value(n.a), b = P.max_value(n.b);
      if (a != 0 && b > m / a) return LaneOrder::Unknown;  // may wrap
      const TermId varying = P.lane_dependent(n.a) ? n.a : n.b, factor = varying == n.a ? n.b : n.a;
      const LaneOrder o = order_of(P, varying, visits);
      if (!ordered(o)) return LaneOrder::Unknown;
      return o == LaneOrder::Increasing && P.node(factor).umin >= 1 ? LaneOrder::Increasing : LaneOrder::NonDecreasing;
    }
    case Op::Shl: {
      const auto k = P.const_value(n.b);
      if (!k || *k >= static_cast<uint64_t>(n.width) || P.max_value(n.a) > (m >> *k)) return LaneOrder::Unknown;
      return order_of(P, n.a, visits);
    }
    case Op::LShr: case Op::UDiv:  // a lane-free divisor of 0 gives all ones, the same at every lane
      if (P.lane_dependent(n.b) || !ordered(order_of(P, n.a, visits))) return LaneOrder::Unknown;
      return LaneOrder::NonDecreasing;
    case Op::ZExt: return order_of(P, n.a, visits);
    case Op::Ite: {
      if (P.lane_dependent(n.a)) return LaneOrder::Unknown;
      const LaneOrder b = order_of(P, n.b, visits), c = order_of(P, n.c, visits);
      if (b == LaneOrder::Unknown || c == LaneOrder::Unknown) return LaneOrder::Unknown;
      return b == LaneOrder::Increasing && c == LaneOrder::Increasing ? LaneOrder::Increasing : LaneOrder::NonDecreasing;
    }
    default: return LaneOrder::Unknown;
  }
}

bool one_run(const TermPool& P, TermId c, int& visits) {
  if (!P.lane_dependent(c)) return true;
  const Node& n = P.node(c);
  if (n.op == Op::And) return one_run(P, n.a, visits) && one_run(P, n.b, visits);
  const Node& cmp = n.op == Op::Not ? P.node(n.a) : n;
  if (cmp.op != Op::Ult && cmp.op != Op::Slt) return false;
  if (P.lane_dependent(cmp.a) == P.lane_dependent(cmp.b)) return false;
  const TermId side = P.lane_dependent(cmp.a) ? cmp.a : cmp.b;
  if (cmp.op == Op::Slt && P.max_value(side) >> (P.width(side) - 1) != 0) return false;
  return ordered(order_of(P, side, visits));
}

}  // namespace

LaneOrder lane_order(const TermPool& P, TermId t) {
  int visits = kShapeVisits;
  return order_of(P, t, visits);
}

bool one_run_by_shape(const TermPool& P, TermId c) {
  int visits = kShapeVisits;
  return one_run(P, c, visits);
}

}  // namespace lp::term
