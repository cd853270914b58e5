#include "frontend/term/Term.h"
#include "frontend/term/WideInt.h"

#include "analyzer/support/Governor.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace lp::term {

namespace {

using detail::Int128;
using detail::UInt128;

constexpr size_t kMaxLinearAtoms = 256;  // larger sums are kept as built (no canonical form)

uint64_t hash_mix(uint64_t h, uint64_t v) { return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)); }

}  // namespace

int64_t to_signed(uint64_t bits, int width) {
  if (width >= 64) return static_cast<int64_t>(bits);
  const uint64_t sign = uint64_t{1} << (width - 1);
  bits &= mask_of(width);
  return static_cast<int64_t>((bits ^ sign) - sign);
}

size_t TermPool::NodeHash::operator()(const Node& n) const {
  uint64_t h = static_cast<uint64_t>(n.op) * 131 + n.width;
  h = hash_mix(h, n.a);
  h = hash_mix(h, n.b);
  h = hash_mix(h, n.c);
  h = hash_mix(h, n.value);
  return static_cast<size_t>(h);
}

bool TermPool::NodeEq::operator()(const Node& x, const Node& y) const {
  return x.op == y.op && x.width == y.width && x.a == y.a && x.b == y.b && x.c == y.c && x.value == y.value;
}

TermPool::TermPool() {
  VarInfo lane;
  lane.name = "lane";
  lane.kind = VarKind::Lane;
  lane.width = 32;
  lane.lo = 0;
  lane.hi = 31;
  lane_var_ = new_var(lane);
  lane_term_ = var_term(lane_var_);
}

VarId TermPool::new_var(VarInfo info) {
  if (vars_.size() >= kMaxNodes) throw TermLimitError("too many variables");
  if (info.width < 1 || info.width > 64) throw TermLimitError("variable width outside 1..64");
  info.hi = std::min(info.hi, mask_of(info.width));
  if (info.lo > info.hi) throw TermLimitError("a variable with an empty range");
  vars_.push_back(std::move(info));
  var_terms_.push_back(0);
  const VarId v = static_cast<VarId>(vars_.size() - 1);
  Node n;
  n.op = Op::Var;
  n.width = static_cast<uint8_t>(vars_[v].width);
  n.value = v;
  switch (vars_[v].kind) {
    case VarKind::Lane: n.flags = kLaneDep; break;
    case VarKind::Opaque: n.flags = kOpaqueDep | kLaneDep; break;
    case VarKind::Probe: n.flags = kProbeDep; break;
    case VarKind::Uniform: n.flags = 0; break;
  }
  if (vars_[v].over_approximated) n.flags |= kApproxDep;
  n.umax = std::min(vars_[v].hi, mask_of(vars_[v].width));
  n.umin = vars_[v].lo;
  var_terms_[v] = make(n);
  return v;
}

VarId TermPool::keyed_var(const std::string& key, const VarInfo& info) {
  auto it = keyed_.find(key);
  if (it != keyed_.end()) return it->second;
  const VarId v = new_var(info);
  keyed_.emplace(key, v);
  return v;
}


TermId TermPool::make(Node n) {
  auto it = index_.find(n);
  if (it != index_.end()) return it->second;
  if (nodes_.size() >= kMaxNodes) throw TermLimitError("more than " + std::to_string(kMaxNodes) + " term nodes");
  if ((nodes_.size() & 0xfff) == 0) check_budget();  // a growing DAG is the front end's memory
  if (n.op != Op::Const && n.op != Op::Var) {
    int depth = 0;
    uint8_t flags = 0;
    const int arity = n.op == Op::Ite ? 3 : (n.op == Op::Not || n.op == Op::ZExt || n.op == Op::SExt || n.op == Op::Trunc) ? 1 : 2;
    for (int k = 0; k < arity; ++k) {
      const Node child = nodes_[k == 0 ? n.a : k == 1 ? n.b : n.c];
      depth = std::max<int>(depth, child.depth);
      flags |= child.flags;
    }
    if (depth + 1 > kMaxDepth) throw TermLimitError("an expression nested more than " + std::to_string(kMaxDepth) + " operations deep");
    n.depth = static_cast<uint16_t>(depth + 1);
    n.flags = flags;
    n.umax = bound_of(n);
    n.umin = std::min(lower_bound_of(n), n.umax);
  } else if (n.op == Op::Const) {
    n.umax = n.umin = n.value;
  }
  const TermId id = static_cast<TermId>(nodes_.size());
  nodes_.push_back(n);
  index_.emplace(n, id);
  return id;
}

uint64_t TermPool::bound_of(const Node& n) const {
  const int w = n.width;
  const uint64_t m = mask_of(w);
  auto mx = [&](TermId t) { return nodes_[t].umax; };
  auto fill = [](uint64_t x) {  // the smallest 2^j - 1 >= x
    uint64_t f = 0;
    while (f < x) f = (f << 1) | 1;
    return f;
  };
  uint64_t r = m;
  switch (n.op) {
    case Op::Add: {
      const uint64_t a = mx(n.a), b = mx(n.b);
      if (a <= m - std::min(m, b)) r = a + b;
      break;
    }
    case Op::Mul: {
      const uint64_t a = mx(n.a), b = mx(n.b);
      if (a == 0 || b <= m / a) r = a * b;
      break;
    }
    case Op::And: r = std::min(mx(n.a), mx(n.b)); break;
    case Op::Or: case Op::Xor: r = fill(std::max(mx(n.a), mx(n.b))); break;
    case Op::LShr: r = nodes_[n.b].op == Op::Const ? mx(n.a) >> std::min<uint64_t>(nodes_[n.b].value, 63) : mx(n.a); break;
    // A divisor that may be 0 gives all ones (PTX's and Z3's answer); one that is never 0 gives at
    // most the dividend over the divisor's least value.
    case Op::UDiv: r = nodes_[n.b].umin > 0 ? mx(n.a) / nodes_[n.b].umin : m; break;
    case Op::URem: r = nodes_[n.b].umin > 0 ? std::min(mx(n.a), mx(n.b) - 1) : mx(n.a); break;
    case Op::ZExt: r = mx(n.a); break;
    case Op::SExt: r = mx(n.a) < (uint64_t{1} << (nodes_[n.a].width - 1)) ? mx(n.a) : m; break;
    case Op::Trunc: r = std::min(mx(n.a), m); break;
    case Op::Ite: r = std::max(mx(n.b), mx(n.c)); break;
    case Op::Eq: case Op::Ult: case Op::Slt: r = 1; break;
    default: break;
  }
  return std::min(r, m);
}

uint64_t TermPool::lower_bound_of(const Node& n) const {
  const uint64_t m = mask_of(n.width);
  const Node &a = nodes_[n.a], &b = nodes_[n.b];
  switch (n.op) {
    case Op::Add: return a.umax <= m - std::min(m, b.umax) ? a.umin + b.umin : 0;  // no wrap-around
    case Op::Mul: return a.umax == 0 || b.umax <= m / a.umax ? a.umin * b.umin : 0;
    case Op::ZExt: return a.umin;
    case Op::Or: return std::max(a.umin, b.umin);
    case Op::Ite: return std::min(b.umin, nodes_[n.c].umin);
    default: return 0;
  }
}

std::optional<std::pair<TermId, TermId>> TermPool::split_at_bit(TermId t, int k) {
  const int w = width(t);
  if (k <= 0 || k >= w) return std::nullopt;
  std::vector<std::pair<TermId, uint64_t>> atoms;
  uint64_t c = 0;
  size_t budget = kMaxLinearAtoms;
  linear_form(t, 1, atoms, c, budget);
  const uint64_t m = mask_of(w);
  c &= m;
  std::vector<std::pair<TermId, uint64_t>> high, low;
  uint64_t high_max = 0, low_max = c & ((uint64_t{1} << k) - 1);
  uint64_t high_c = c >> k << k;
  auto add_bound = [&](uint64_t& acc, uint64_t coef, uint64_t x) {
    if (x != 0 && coef > m / x) return false;
    if (coef * x > m - acc) return false;
    acc += coef * x;
    return true;
  };
  if (!add_bound(high_max, 1, high_c)) return std::nullopt;
  for (auto [atom, coef] : atoms) {
    coef &= m;
    if (coef == 0) continue;
    const int tz = std::min(w, trailing_zeros(atom) + __builtin_ctzll(coef));
    if (tz >= k) {
      if (!add_bound(high_max, coef, nodes_[atom].umax)) return std::nullopt;
      high.emplace_back(atom, coef);
    } else {
      if (!add_bound(low_max, coef, nodes_[atom].umax)) return std::nullopt;
      low.emplace_back(atom, coef);
    }
  }
  if (high.empty() && high_c == 0) return std::nullopt;   // nothing to split off
  if (low_max >> k != 0 || high_max > m - low_max) return std::nullopt;  // a carry or a wrap
  // h >> k: every coefficient (times the atom's known zeros) is a multiple of 2^k.
  std::vector<std::pair<TermId, uint64_t>> shifted;
  TermId hi = add_linear({}, high_c >> k, w);
  for (auto [atom, coef] : high) {
    const int ctz = __builtin_ctzll(coef);
    if (ctz >= k) shifted.emplace_back(atom, coef >> k);
    else hi = add(hi, mul(lshr(atom, constant(static_cast<uint64_t>(k - ctz), w)), constant(coef >> ctz, w)));
  }
  hi = add(hi, add_linear(shifted, 0, w));
  return std::pair{hi, add_linear(low, c & ((uint64_t{1} << k) - 1), w)};
}

TermId TermPool::constant(uint64_t value, int width) {
  Node n;
  n.op = Op::Const;
  n.width = static_cast<uint8_t>(width);
  n.value = value & mask_of(width);
  return make(n);
}

// ---- sums: kept in one canonical form (atoms ordered by id, each with its coefficient, the
// constant last), so equal sums are equal terms and x + c - x folds to c.

void TermPool::linear_form(TermId t, uint64_t scale, std::vector<std::pair<TermId, uint64_t>>& atoms,
                           uint64_t& constant, size_t& budget) const {
  const Node n = nodes_[t];
  if (n.op == Op::Const) {
    constant += scale * n.value;
    return;
  }
  if (n.op == Op::Add && budget > 0) {
    --budget;
    linear_form(n.a, scale, atoms, constant, budget);
    linear_form(n.b, scale, atoms, constant, budget);
    return;
  }
  if (n.op == Op::Mul && nodes_[n.b].op == Op::Const) {
    linear_form(n.a, scale * nodes_[n.b].value, atoms, constant, budget);
    return;
  }
  atoms.emplace_back(t, scale);
}

// Euclid's identity in a sum: k*(a % b) + k*(b * (a / b)) is k*a, exactly, for unsigned bit-vectors
// (b * (a / b) <= a cannot wrap; b = 0 gives a + 0). A thread's linear index written back from its
// coordinates (`tid.x + ntid.x * (tid.y + ntid.y * tid.z)`, cooperative groups' thread_rank) folds
// to the index itself instead of a product of divisions by unknowns.
void TermPool::fold_euclid(std::map<TermId, uint64_t>& merged, uint64_t& constant, uint64_t m) const {
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& [product, k] : merged) {
      const Node& p = nodes_[product];
      if (p.op != Op::Mul || (k & m) == 0) continue;
      for (auto [quotient, divisor] : {std::pair{p.a, p.b}, std::pair{p.b, p.a}}) {
        const Node& q = nodes_[quotient];
        if (q.op != Op::UDiv || q.b != divisor) continue;
        Node r;
        r.op = Op::URem;
        r.width = q.width;
        r.a = q.a;
        r.b = q.b;
        auto rem = index_.find(r);
        if (rem == index_.end()) continue;
        auto it = merged.find(rem->second);
        if (it == merged.end() || ((it->second - k) & m) != 0) continue;
        const uint64_t coef = k;
        const TermId dividend = q.a;
        merged.erase(it);
        merged.erase(product);
        std::vector<std::pair<TermId, uint64_t>> atoms;
        size_t budget = kMaxLinearAtoms;
        linear_form(dividend, coef, atoms, constant, budget);
        for (const auto& [atom, c] : atoms) merged[atom] += c;
        changed = true;
        break;
      }
      if (changed) break;
    }
  }
}

TermId TermPool::add_linear(const std::vector<std::pair<TermId, uint64_t>>& raw, uint64_t constant, int width) {
  const uint64_t m = mask_of(width);
  std::map<TermId, uint64_t> merged;
  for (const auto& [atom, coef] : raw) merged[atom] += coef;
  fold_euclid(merged, constant, m);
  std::optional<TermId> sum;
  for (const auto& [atom, coef] : merged) {
    if ((coef & m) == 0) continue;
    TermId term = atom;
    if ((coef & m) != 1) {
      Node n;
      n.op = Op::Mul;
      n.width = static_cast<uint8_t>(width);
      n.a = atom;
      n.b = this->constant(coef, width);
      term = make(n);
    }
    if (!sum) {
      sum = term;
    } else {
      Node n;
      n.op = Op::Add;
      n.width = static_cast<uint8_t>(width);
      n.a = *sum;
      n.b = term;
      sum = make(n);
    }
  }
  const TermId c = this->constant(constant, width);
  if (!sum) return c;
  if ((constant & m) == 0) return *sum;
  Node n;
  n.op = Op::Add;
  n.width = static_cast<uint8_t>(width);
  n.a = *sum;
  n.b = c;
  return make(n);
}

TermPool::Sum TermPool::sum_of(TermId t) const {
  Sum s;
  size_t budget = kMaxLinearAtoms;
  linear_form(t, 1, s.atoms, s.constant, budget);
  const uint64_t m = mask_of(width(t));
  s.constant &= m;
  for (auto& [atom, coef] : s.atoms) coef &= m;
  return s;
}

TermId TermPool::add(TermId a, TermId b) {
  const int w = width(a);
  std::vector<std::pair<TermId, uint64_t>> atoms;
  uint64_t c = 0;
  size_t budget = kMaxLinearAtoms;
  linear_form(a, 1, atoms, c, budget);
  linear_form(b, 1, atoms, c, budget);
  if (atoms.size() > kMaxLinearAtoms) return commutative(Op::Add, a, b);
  return add_linear(atoms, c, w);
}

TermId TermPool::sub(TermId a, TermId b) { return add(a, neg(b)); }

TermId TermPool::neg(TermId a) { return mul(a, constant(mask_of(width(a)), width(a))); }

TermId TermPool::mul(TermId a, TermId b) {
  const int w = width(a);
  if (is_const(a)) std::swap(a, b);
  if (auto cb = const_value(b)) {
    if (auto ca = const_value(a)) return constant(*ca * *cb, w);
    if (*cb == 0) return constant(0, w);
    if (*cb == 1) return a;
    std::vector<std::pair<TermId, uint64_t>> atoms;
    uint64_t c = 0;
    size_t budget = kMaxLinearAtoms;
    linear_form(a, *cb, atoms, c, budget);
    if (atoms.size() <= kMaxLinearAtoms) return add_linear(atoms, c, w);
  }
  return commutative(Op::Mul, a, b);
}

// ---- the other operations (bitwise, shifts, division, extensions, comparisons): TermOperations.cpp

// ---- inspection ----

std::vector<VarId> TermPool::vars_of(TermId t) const {
  std::set<VarId> out;
  std::set<TermId> seen;
  std::vector<TermId> stack{t};
  while (!stack.empty()) {
    const TermId x = stack.back();
    stack.pop_back();
    if (!seen.insert(x).second) continue;
    const Node n = nodes_[x];
    switch (n.op) {
      case Op::Const: break;
      case Op::Var: out.insert(static_cast<VarId>(n.value)); break;
      case Op::Ite: stack.push_back(n.c); [[fallthrough]];
      case Op::Add: case Op::Mul: case Op::MulHiU: case Op::MulHiS: case Op::UDiv: case Op::SDiv: case Op::URem:
      case Op::SRem: case Op::Shl: case Op::LShr: case Op::AShr: case Op::And: case Op::Or: case Op::Xor:
      case Op::Eq: case Op::Ult: case Op::Slt:
        stack.push_back(n.b);
        [[fallthrough]];
      case Op::Not: case Op::ZExt: case Op::SExt: case Op::Trunc: stack.push_back(n.a); break;
    }
  }
  return {out.begin(), out.end()};
}

bool TermPool::only_loaded_data(TermId t) const {
  if (!opaque(t)) return false;
  for (VarId v : vars_of(t))
    if (vars_[v].kind == VarKind::Opaque && !vars_[v].loaded_data) return false;
  return true;
}

std::string TermPool::opaque_reason(TermId t) const {
  if (!opaque(t)) return {};
  for (VarId v : vars_of(t))
    if (vars_[v].kind == VarKind::Opaque) return vars_[v].reason;
  return {};
}

int TermPool::trailing_zeros(TermId t) const {
  // Memoized: terms share operands (the pool is a DAG), and a walk without it would visit a shared
  // operand once per path to it.
  std::unordered_map<TermId, int> memo;
  std::function<int(TermId)> tz = [&](TermId x) -> int {
    if (auto it = memo.find(x); it != memo.end()) return it->second;
    const Node& n = nodes_[x];
    const int w = n.width;
    int r = 0;
    switch (n.op) {
      case Op::Const: r = n.value == 0 ? w : __builtin_ctzll(n.value); break;
      case Op::Var: r = std::min(vars_[n.value].align_log2, w); break;
      case Op::Add: r = std::min(tz(n.a), tz(n.b)); break;
      case Op::Mul: r = std::min(w, tz(n.a) + tz(n.b)); break;
      case Op::And: r = std::max(tz(n.a), tz(n.b)); break;
      case Op::Or: case Op::Xor: r = std::min(tz(n.a), tz(n.b)); break;
      case Op::Shl:
        r = is_const(n.b) ? static_cast<int>(std::min<uint64_t>(w, tz(n.a) + nodes_[n.b].value)) : tz(n.a);
        break;
      case Op::Ite: r = std::min(tz(n.b), tz(n.c)); break;
      case Op::ZExt: case Op::SExt: r = tz(n.a); break;
      case Op::Trunc: r = std::min(w, tz(n.a)); break;
      default: r = 0; break;
    }
    memo.emplace(x, r);
    return r;
  };
  return tz(t);
}

TermId TermPool::substitute(TermId t, const std::unordered_map<VarId, TermId>& with) {
  std::unordered_map<TermId, TermId> memo;
  std::function<TermId(TermId)> go = [&](TermId x) -> TermId {
    const Node n = nodes_[x];
    if (n.op == Op::Const) return x;
    if (n.op == Op::Var) {
      auto it = with.find(static_cast<VarId>(n.value));
      return it == with.end() ? x : it->second;
    }
    auto m = memo.find(x);
    if (m != memo.end()) return m->second;
    TermId r = x;
    switch (n.op) {
      case Op::Add: r = add(go(n.a), go(n.b)); break;
      case Op::Mul: r = mul(go(n.a), go(n.b)); break;
      case Op::MulHiU: r = mulhi(go(n.a), go(n.b), false); break;
      case Op::MulHiS: r = mulhi(go(n.a), go(n.b), true); break;
      case Op::UDiv: r = udiv(go(n.a), go(n.b)); break;
      case Op::SDiv: r = sdiv(go(n.a), go(n.b)); break;
      case Op::URem: r = urem(go(n.a), go(n.b)); break;
      case Op::SRem: r = srem(go(n.a), go(n.b)); break;
      case Op::Shl: r = shl(go(n.a), go(n.b)); break;
      case Op::LShr: r = lshr(go(n.a), go(n.b)); break;
      case Op::AShr: r = ashr(go(n.a), go(n.b)); break;
      case Op::And: r = bit_and(go(n.a), go(n.b)); break;
      case Op::Or: r = bit_or(go(n.a), go(n.b)); break;
      case Op::Xor: r = bit_xor(go(n.a), go(n.b)); break;
      case Op::Not: r = bit_not(go(n.a)); break;
      case Op::ZExt: r = zext(go(n.a), n.width); break;
      case Op::SExt: r = sext(go(n.a), n.width); break;
      case Op::Trunc: r = trunc(go(n.a), n.width); break;
      case Op::Ite: r = ite(go(n.a), go(n.b), go(n.c)); break;
      case Op::Eq: r = eq(go(n.a), go(n.b)); break;
      case Op::Ult: r = ult(go(n.a), go(n.b)); break;
      case Op::Slt: r = slt(go(n.a), go(n.b)); break;
      case Op::Const: case Op::Var: break;
    }
    memo.emplace(x, r);
    return r;
  };
  return go(t);
}

void TermPool::print_into(TermId t, std::string& out, size_t max_chars) const {
  if (out.size() > max_chars) return;
  const Node n = nodes_[t];
  auto bin = [&](const char* op) {
    out += '(';
    print_into(n.a, out, max_chars);
    out += op;
    print_into(n.b, out, max_chars);
    out += ')';
  };
  switch (n.op) {
    case Op::Const: out += n.width == 1 ? (n.value ? "true" : "false") : std::to_string(to_signed(n.value, n.width)); break;
    case Op::Var: out += vars_[n.value].name; break;
    case Op::Add: bin(" + "); break;
    case Op::Mul: bin("*"); break;
    case Op::MulHiU: case Op::MulHiS: bin(" *hi "); break;
    case Op::UDiv: case Op::SDiv: bin(" / "); break;
    case Op::URem: case Op::SRem: bin(" % "); break;
    case Op::Shl: bin(" << "); break;
    case Op::LShr: case Op::AShr: bin(" >> "); break;
    case Op::And: bin(n.width == 1 ? " && " : " & "); break;
    case Op::Or: bin(n.width == 1 ? " || " : " | "); break;
    case Op::Xor: bin(" ^ "); break;
    case Op::Eq: bin(" == "); break;
    case Op::Ult: case Op::Slt: bin(" < "); break;
    case Op::Not: out += n.width == 1 ? "!" : "~"; print_into(n.a, out, max_chars); break;
    case Op::ZExt: case Op::SExt: case Op::Trunc: print_into(n.a, out, max_chars); break;
    case Op::Ite:
      out += '(';
      print_into(n.a, out, max_chars);
      out += " ? ";
      print_into(n.b, out, max_chars);
      out += " : ";
      print_into(n.c, out, max_chars);
      out += ')';
      break;
  }
}

std::string TermPool::print(TermId t, size_t max_chars) const {
  std::string out;
  print_into(t, out, max_chars);
  if (out.size() > max_chars) out = out.substr(0, max_chars) + "...";
  return out;
}

// ---- evaluation ----

Evaluator::Evaluator(const TermPool& pool) : pool_(pool), env_(pool.var_count(), 0) {}

void Evaluator::set(VarId v, uint64_t value) {
  if (env_.size() < pool_.var_count()) env_.resize(pool_.var_count(), 0);
  value &= mask_of(pool_.var(v).width);
  if (env_.at(v) == value) return;
  env_[v] = value;
  ++generation_;
  // Lane-free terms keep their values while only the lane changes (evaluating a warp).
  if (pool_.var(v).kind != VarKind::Lane) uniform_generation_ = generation_;
}

uint64_t Evaluator::eval(TermId t) {
  if (cache_.size() < pool_.size()) {
    cache_.resize(pool_.size());
    stamp_.resize(pool_.size(), 0);
  }
  if (env_.size() < pool_.var_count()) env_.resize(pool_.var_count(), 0);
  if (stamp_[t] == generation_ || (stamp_[t] >= uniform_generation_ && !pool_.lane_dependent(t))) return cache_[t];
  const Node& n = pool_.node(t);
  const int w = n.width;
  const uint64_t m = mask_of(w);
  auto A = [&] { return eval(n.a); };
  auto B = [&] { return eval(n.b); };
  uint64_t r = 0;
  switch (n.op) {
    case Op::Const: r = n.value; break;
    case Op::Var: r = env_[n.value]; break;
    case Op::Add: r = A() + B(); break;
    case Op::Mul: r = A() * B(); break;
    case Op::MulHiU: {
      const UInt128 p = static_cast<UInt128>(A()) * B();
      r = static_cast<uint64_t>(p >> w);
      break;
    }
    case Op::MulHiS: {
      const Int128 p = static_cast<Int128>(to_signed(A(), w)) * to_signed(B(), w);
      r = static_cast<uint64_t>(p >> w);
      break;
    }
    case Op::UDiv: { const uint64_t y = B(); r = y == 0 ? m : A() / y; break; }
    case Op::URem: { const uint64_t x = A(), y = B(); r = y == 0 ? x : x % y; break; }
    case Op::SDiv: {
      const int64_t x = to_signed(A(), w), y = to_signed(B(), w);
      r = y == 0 ? (x < 0 ? 1 : m) : y == -1 ? 0 - static_cast<uint64_t>(x) : static_cast<uint64_t>(x / y);
      break;
    }
    case Op::SRem: {
      const int64_t x = to_signed(A(), w), y = to_signed(B(), w);
      r = y == 0 ? static_cast<uint64_t>(x) : y == -1 ? 0 : static_cast<uint64_t>(x % y);
      break;
    }
    case Op::Shl: { const uint64_t k = B(); r = k >= static_cast<uint64_t>(w) ? 0 : A() << k; break; }
    case Op::LShr: { const uint64_t k = B(); r = k >= static_cast<uint64_t>(w) ? 0 : (A() & m) >> k; break; }
    case Op::AShr: {
      const uint64_t k = std::min<uint64_t>(B(), static_cast<uint64_t>(w - 1));
      r = static_cast<uint64_t>(to_signed(A(), w) >> k);
      break;
    }
    case Op::And: r = A() & B(); break;
    case Op::Or: r = A() | B(); break;
    case Op::Xor: r = A() ^ B(); break;
    case Op::Not: r = ~A(); break;
    case Op::ZExt: r = A(); break;
    case Op::SExt: r = static_cast<uint64_t>(to_signed(A(), pool_.width(n.a))); break;
    case Op::Trunc: r = A(); break;
    case Op::Ite: r = A() ? B() : eval(n.c); break;
    case Op::Eq: r = A() == B(); break;
    case Op::Ult: r = A() < B(); break;
    case Op::Slt: r = to_signed(A(), pool_.width(n.a)) < to_signed(B(), pool_.width(n.a)); break;
  }
  r &= m;
  cache_[t] = r;
  stamp_[t] = generation_;
  return r;
}

}  // namespace lp::term
