// The pool's operations other than sums (add, sub, neg and mul are in Term.cpp): each folds constants
// and the identities it knows before it makes a node; commutative() makes one, operands in one order.
#include "frontend/term/Term.h"
#include "frontend/term/WideInt.h"

#include <algorithm>
#include <utility>

namespace lp::term {

namespace {

using detail::Int128;
using detail::UInt128;

bool commutative_op(Op op) {
  return op == Op::Add || op == Op::Mul || op == Op::And || op == Op::Or || op == Op::Xor || op == Op::Eq ||
         op == Op::MulHiU || op == Op::MulHiS;
}

}  // namespace

TermId TermPool::commutative(Op op, TermId a, TermId b) {
  if (commutative_op(op) && (a > b) && !is_const(a)) std::swap(a, b);
  if (commutative_op(op) && is_const(a) && !is_const(b)) std::swap(a, b);
  Node n;
  n.op = op;
  n.width = static_cast<uint8_t>(op == Op::Eq || op == Op::Ult || op == Op::Slt ? 1 : width(a));
  n.a = a;
  n.b = b;
  return make(n);
}

TermId TermPool::mulhi(TermId a, TermId b, bool is_signed) {
  const int w = width(a);
  if (auto ca = const_value(a))
    if (auto cb = const_value(b)) {
      if (is_signed) {
        const Int128 p = static_cast<Int128>(to_signed(*ca, w)) * to_signed(*cb, w);
        return constant(static_cast<uint64_t>(p >> w), w);
      }
      const UInt128 p = static_cast<UInt128>(*ca) * *cb;
      return constant(static_cast<uint64_t>(p >> w), w);
    }
  return commutative(is_signed ? Op::MulHiS : Op::MulHiU, a, b);
}

TermId TermPool::udiv(TermId a, TermId b) {
  const int w = width(a);
  if (auto cb = const_value(b)) {
    if (auto ca = const_value(a)) return constant(*cb == 0 ? mask_of(w) : *ca / *cb, w);
    if (*cb == 1) return a;
    if (*cb != 0 && (*cb & (*cb - 1)) == 0) return lshr(a, constant(static_cast<uint64_t>(__builtin_ctzll(*cb)), w));
  }
  return commutative(Op::UDiv, a, b);
}

TermId TermPool::urem(TermId a, TermId b) {
  const int w = width(a);
  if (auto cb = const_value(b)) {
    if (auto ca = const_value(a)) return constant(*cb == 0 ? *ca : *ca % *cb, w);
    if (*cb == 1) return constant(0, w);
    if (*cb != 0 && (*cb & (*cb - 1)) == 0) return bit_and(a, constant(*cb - 1, w));
  }
  return commutative(Op::URem, a, b);
}

TermId TermPool::sdiv(TermId a, TermId b) {
  const int w = width(a);
  if (auto ca = const_value(a))
    if (auto cb = const_value(b)) {
      const int64_t x = to_signed(*ca, w), y = to_signed(*cb, w);
      if (y == 0) return constant(x < 0 ? 1 : mask_of(w), w);
      if (y == -1) return constant(0 - static_cast<uint64_t>(x), w);  // INT_MIN / -1 wraps
      return constant(static_cast<uint64_t>(x / y), w);
    }
  if (const_value(b) == 1) return a;
  return commutative(Op::SDiv, a, b);
}

TermId TermPool::srem(TermId a, TermId b) {
  const int w = width(a);
  if (auto ca = const_value(a))
    if (auto cb = const_value(b)) {
      const int64_t x = to_signed(*ca, w), y = to_signed(*cb, w);
      if (y == 0) return a;
      if (y == -1) return constant(0, w);
      return constant(static_cast<uint64_t>(x % y), w);
    }
  if (const_value(b) == 1) return constant(0, w);
  return commutative(Op::SRem, a, b);
}

TermId TermPool::shift(Op op, TermId a, TermId amount) {
  const int w = width(a);
  amount = resize(amount, w);
  if (auto k = const_value(amount)) {
    if (*k == 0) return a;
    if (*k >= static_cast<uint64_t>(w)) {
      if (op == Op::AShr) return ashr(a, constant(static_cast<uint64_t>(w - 1), w));
      return constant(0, w);
    }
    if (auto ca = const_value(a)) {
      if (op == Op::Shl) return constant(*ca << *k, w);
      if (op == Op::LShr) return constant(*ca >> *k, w);
      return constant(static_cast<uint64_t>(to_signed(*ca, w) >> *k), w);
    }
    if (op == Op::Shl) return mul(a, constant(uint64_t{1} << *k, w));
    if (op == Op::LShr && (nodes_[a].umax >> *k) == 0) return constant(0, w);
    if (op == Op::LShr && nodes_[a].op == Op::Add)
      if (auto split = split_at_bit(a, static_cast<int>(*k))) return split->first;
    // (x >> j) >> k = x >> (j + k) for logical shifts by constants.
    const Node n = nodes_[a];
    if (op == Op::LShr && n.op == Op::LShr && is_const(n.b)) {
      const uint64_t total = nodes_[n.b].value + *k;
      return lshr(n.a, constant(std::min<uint64_t>(total, static_cast<uint64_t>(w)), w));
    }
  }
  Node n;
  n.op = op;
  n.width = static_cast<uint8_t>(w);
  n.a = a;
  n.b = amount;
  return make(n);
}

TermId TermPool::shl(TermId a, TermId amount) { return shift(Op::Shl, a, amount); }
TermId TermPool::lshr(TermId a, TermId amount) { return shift(Op::LShr, a, amount); }
TermId TermPool::ashr(TermId a, TermId amount) {
  // A value whose sign bit is never set shifts the same either way.
  if (nodes_[a].umax < (uint64_t{1} << (width(a) - 1))) return shift(Op::LShr, a, amount);
  return shift(Op::AShr, a, amount);
}

TermId TermPool::bit_and(TermId a, TermId b) {
  const int w = width(a);
  if (is_const(a)) std::swap(a, b);
  if (auto cb = const_value(b)) {
    if (auto ca = const_value(a)) return constant(*ca & *cb, w);
    if (*cb == 0) return b;
    if (*cb == mask_of(w)) return a;
    const Node n = nodes_[a];
    if (n.op == Op::And && is_const(n.b)) return bit_and(n.a, constant(nodes_[n.b].value & *cb, w));
    // x & c where c keeps every bit x can have
    uint64_t fill = 0;
    while (fill < n.umax) fill = (fill << 1) | 1;
    if ((*cb & fill) == fill) return a;
    // (h + l) & (2^k - 1) = l when h is a multiple of 2^k and l < 2^k
    if (n.op == Op::Add && (*cb & (*cb + 1)) == 0)
      if (auto split = split_at_bit(a, __builtin_ctzll(~*cb))) return split->second;
  }
  if (a == b) return a;
  if (w == 1) {
    // x & !x = 0
    if ((nodes_[a].op == Op::Not && nodes_[a].a == b) || (nodes_[b].op == Op::Not && nodes_[b].a == a)) return constant(0, 1);
  }
  return commutative(Op::And, a, b);
}

TermId TermPool::bit_or(TermId a, TermId b) {
  const int w = width(a);
  if (is_const(a)) std::swap(a, b);
  if (auto cb = const_value(b)) {
    if (auto ca = const_value(a)) return constant(*ca | *cb, w);
    if (*cb == 0) return a;
    if (*cb == mask_of(w)) return b;
  }
  if (a == b) return a;
  if (w == 1) {
    const Node x = nodes_[a];
    const Node y = nodes_[b];
    if ((x.op == Op::Not && x.a == b) || (y.op == Op::Not && y.a == a)) return constant(1, 1);
    // (p & c) | (p & !c) = p: the two sides of a branch join again.
    if (x.op == Op::And && y.op == Op::And) {
      for (auto [p1, c1] : {std::pair{x.a, x.b}, std::pair{x.b, x.a}})
        for (auto [p2, c2] : {std::pair{y.a, y.b}, std::pair{y.b, y.a}})
          if (p1 == p2 && ((nodes_[c1].op == Op::Not && nodes_[c1].a == c2) || (nodes_[c2].op == Op::Not && nodes_[c2].a == c1)))
            return p1;
    }
  }
  return commutative(Op::Or, a, b);
}

TermId TermPool::bit_xor(TermId a, TermId b) {
  const int w = width(a);
  if (is_const(a)) std::swap(a, b);
  if (auto cb = const_value(b)) {
    if (auto ca = const_value(a)) return constant(*ca ^ *cb, w);
    if (*cb == 0) return a;
    const Node n = nodes_[a];
    if (n.op == Op::Xor && is_const(n.b)) return bit_xor(n.a, constant(nodes_[n.b].value ^ *cb, w));
    if (*cb == mask_of(w)) return bit_not(a);
  }
  if (a == b) return constant(0, w);
  return commutative(Op::Xor, a, b);
}

TermId TermPool::bit_not(TermId a) {
  const int w = width(a);
  if (auto ca = const_value(a)) return constant(~*ca, w);
  const Node n = nodes_[a];
  if (n.op == Op::Not) return n.a;
  Node x;
  x.op = Op::Not;
  x.width = static_cast<uint8_t>(w);
  x.a = a;
  return make(x);
}

TermId TermPool::zext(TermId a, int w) {
  const int from = width(a);
  if (w == from) return a;
  if (w < from) return trunc(a, w);
  if (auto ca = const_value(a)) return constant(*ca, w);
  if (nodes_[a].op == Op::ZExt) return zext(nodes_[a].a, w);
  Node n;
  n.op = Op::ZExt;
  n.width = static_cast<uint8_t>(w);
  n.a = a;
  return make(n);
}

TermId TermPool::sext(TermId a, int w) {
  const int from = width(a);
  if (w == from) return a;
  if (w < from) return trunc(a, w);
  if (auto ca = const_value(a)) return constant(static_cast<uint64_t>(to_signed(*ca, from)), w);
  Node n;
  n.op = Op::SExt;
  n.width = static_cast<uint8_t>(w);
  n.a = a;
  return make(n);
}

TermId TermPool::trunc(TermId a, int w) {
  const int from = width(a);
  if (w == from) return a;
  if (w > from) return zext(a, w);
  if (auto ca = const_value(a)) return constant(*ca, w);
  const Node n = nodes_[a];
  if ((n.op == Op::ZExt || n.op == Op::SExt) && width(n.a) == w) return n.a;
  if ((n.op == Op::ZExt || n.op == Op::SExt || n.op == Op::Trunc) && width(n.a) > w) return trunc(n.a, w);
  const uint64_t key = (uint64_t{a} << 8) | static_cast<uint64_t>(w);
  if (auto done = truncated_.find(key); done != truncated_.end()) return done->second;
  TermId out;
  // The low bits of a sum, product or bitwise operation are those of the operation on the
  // low bits: truncate through them (keeps 64-bit address arithmetic in 32-bit form).
  if (n.op == Op::Add || n.op == Op::Mul || n.op == Op::And || n.op == Op::Or || n.op == Op::Xor) {
    const TermId x = trunc(n.a, w), y = trunc(n.b, w);
    switch (n.op) {
      case Op::Add: out = add(x, y); break;
      case Op::Mul: out = mul(x, y); break;
      case Op::And: out = bit_and(x, y); break;
      case Op::Or: out = bit_or(x, y); break;
      default: out = bit_xor(x, y); break;
    }
  } else if (n.op == Op::Not) {
    out = bit_not(trunc(n.a, w));
  } else if (n.op == Op::Ite) {
    out = ite(n.a, trunc(n.b, w), trunc(n.c, w));
  } else {
    Node x;
    x.op = Op::Trunc;
    x.width = static_cast<uint8_t>(w);
    x.a = a;
    out = make(x);
  }
  truncated_.emplace(key, out);
  return out;
}

TermId TermPool::resize(TermId a, int w) { return width(a) < w ? zext(a, w) : trunc(a, w); }

TermId TermPool::ite(TermId cond, TermId then_t, TermId else_t) {
  if (auto c = const_value(cond)) return *c ? then_t : else_t;
  if (then_t == else_t) return then_t;
  if (nodes_[cond].op == Op::Not) return ite(nodes_[cond].a, else_t, then_t);
  if (width(then_t) == 1 && is_const(then_t) && is_const(else_t))
    return nodes_[then_t].value ? cond : bit_not(cond);
  Node n;
  n.op = Op::Ite;
  n.width = static_cast<uint8_t>(width(then_t));
  n.a = cond;
  n.b = then_t;
  n.c = else_t;
  return make(n);
}

TermId TermPool::eq(TermId a, TermId b) {
  if (a == b) return boolean(true);
  if (auto ca = const_value(a))
    if (auto cb = const_value(b)) return boolean(*ca == *cb);
  // x + c1 == c2  <=>  x == c2 - c1
  if (is_const(a)) std::swap(a, b);
  if (auto cb = const_value(b)) {
    const Node n = nodes_[a];
    if (n.op == Op::Add && is_const(n.b)) return eq(n.a, constant(*cb - nodes_[n.b].value, width(a)));
  }
  return commutative(Op::Eq, a, b);
}

TermId TermPool::ult(TermId a, TermId b) {
  if (a == b) return boolean(false);
  if (auto ca = const_value(a))
    if (auto cb = const_value(b)) return boolean(*ca < *cb);
  if (const_value(b) == 0) return boolean(false);
  if (auto cb = const_value(b); cb && nodes_[a].umax < *cb) return boolean(true);
  if (auto ca = const_value(a); ca && nodes_[b].umax <= *ca) return boolean(false);
  return commutative(Op::Ult, a, b);
}

TermId TermPool::slt(TermId a, TermId b) {
  const int w = width(a);
  if (a == b) return boolean(false);
  if (auto ca = const_value(a))
    if (auto cb = const_value(b)) return boolean(to_signed(*ca, w) < to_signed(*cb, w));
  // Both never negative: the signed order is the unsigned one.
  const uint64_t sign = uint64_t{1} << (w - 1);
  if (nodes_[a].umax < sign && nodes_[b].umax < sign) return ult(a, b);
  return commutative(Op::Slt, a, b);
}

}  // namespace lp::term
