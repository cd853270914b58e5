#include "solver/SymbolicAccess.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <unordered_map>

#include "hw/HwError.h"
#include "solver/Engines.h"
#include "solver/Obligation.h"

namespace lp {

using term::Op;
using term::TermId;
using term::TermPool;
using term::VarId;
using term::VarKind;

namespace {

// Points an exhaustive enumeration of the uniform unknowns may visit (each evaluates 32 lanes).
constexpr uint64_t kExhaustiveLimit = uint64_t{1} << 12;
// Warp-relative points (small unknowns x residues of the uniform offset) of the residue engine.
constexpr uint64_t kResidueLimit = uint64_t{1} << 16;
// Conflicting points the residue engine tries to realise before it gives up.
constexpr int kMaxRealisations = 64;
// Random values tried for a configuration before Z3 is asked for them.
constexpr int kRealisationSamples = 256;
// Random samples of the whole domain tried for a violation before Z3.
constexpr int kSearchSamples = 256;
// Warps drawn with per-lane values of loaded data before Z3 is asked (violation_with_loaded_values).
constexpr int kOpaqueActivitySamples = 64;

/// A variable's values: lo..hi in steps of 2^align (lo rounded up).
struct Domain {
  uint64_t first = 0, step = 1, count = 0;
};

Domain domain_of(const term::VarDomain& v, int width) {
  Domain d;
  const int a = std::min(v.align_log2, 63);
  d.step = uint64_t{1} << a;
  const uint64_t lo = v.lo, hi = std::min(v.hi, term::mask_of(width));
  if (lo > hi) return d;
  const uint64_t first = (lo + d.step - 1) & ~(d.step - 1);
  if (first < lo || first > hi) return d;
  d.first = first;
  const uint64_t n = (hi - first) / d.step;
  d.count = n == ~uint64_t{0} ? n : n + 1;
  return d;
}

/// The points of a product of domains, the first unknown fastest: set() gives an evaluator the
/// current point's values, next() moves on and answers false (back at the first point) after the
/// last.
struct Odometer {
  const std::vector<VarId>& vars;
  const std::vector<Domain>& doms;
  std::vector<uint64_t> index = std::vector<uint64_t>(vars.size(), 0);

  void set(term::Evaluator& ev) const {
    for (size_t k = 0; k < vars.size(); ++k) ev.set(vars[k], doms[k].first + index[k] * doms[k].step);
  }
  bool next() {
    for (size_t k = 0; k < index.size(); ++k) {
      if (++index[k] < doms[k].count) return true;
      index[k] = 0;
    }
    return false;
  }
};

/// The conjuncts of a width-1 term (its top-level ands).
void conjuncts(const TermPool& P, TermId t, std::vector<TermId>& out) {
  const term::Node& n = P.node(t);
  if (n.op == Op::And && n.width == 1) {
    conjuncts(P, n.a, out);
    conjuncts(P, n.b, out);
  } else if (!(n.op == Op::Const && n.value == 1)) {
    out.push_back(t);
  }
}

// ---- concrete evaluation of one assignment ----

struct Warp {
  std::vector<int64_t> addresses = std::vector<int64_t>(hw::kWarpLanes, 0);
  std::vector<int64_t> offsets = std::vector<int64_t>(hw::kWarpLanes, 0);
  hw::LaneMask active = 0;
  int64_t extent = 0;
};

/// The warp at `ev`'s values. `per_lane`, when given, sets before each lane what differs between
/// lanes besides the lane (loaded values drawn per lane); with `every_lane`, each lane whose
/// address the instruction reads counts as active, its activity not evaluated.
Warp evaluate_warp(const SymbolicAccess& a, term::Evaluator& ev, const std::function<void(int)>& per_lane = nullptr,
                   bool every_lane = false) {
  Warp w;
  const TermPool& P = *a.pool;
  const uint64_t base = a.base ? ev.value_of(*a.base) : 0;
  w.extent = static_cast<int64_t>(ev.eval(a.extent));
  for (int lane = 0; lane < hw::kWarpLanes; ++lane) {
    ev.set(P.lane_var(), static_cast<uint64_t>(lane));
    if (per_lane) per_lane(lane);
    const uint64_t addr = ev.eval(a.address);
    w.addresses[static_cast<size_t>(lane)] = static_cast<int64_t>(addr);
    w.offsets[static_cast<size_t>(lane)] = term::to_signed((addr - base) & term::mask_of(32), 32);
    if (lane < a.address_lanes && (every_lane || ev.eval(a.active))) w.active |= hw::LaneMask{1} << lane;
  }
  return w;
}

std::vector<std::pair<std::string, int64_t>> uniform_values(const TermPool& P, const std::vector<VarId>& vars,
                                                            term::Evaluator& ev) {
  std::vector<std::pair<std::string, int64_t>> out;
  for (VarId v : vars) {
    const auto& info = P.var(v);
    if (info.kind == VarKind::Uniform) out.emplace_back(info.name, term::to_signed(ev.value_of(v), info.width));
  }
  return out;
}

std::optional<std::string> approximated_in(const TermPool& P, const std::vector<VarId>& vars, term::Evaluator& ev) {
  for (VarId v : vars)
    if (P.var(v).over_approximated)
      return fmt::format("{} = {}, {}", P.var(v).name, term::to_signed(ev.value_of(v), P.var(v).width), P.var(v).reason);
  return std::nullopt;
}

// A misaligned or out-of-bounds active lane of a concrete warp.
std::optional<int> misaligned_lane(const SymbolicAccess& a, const Warp& w) {
  for (int l = 0; l < a.address_lanes; ++l)
    if (((w.active >> l) & 1) && w.addresses[static_cast<size_t>(l)] % a.bytes != 0) return l;
  return std::nullopt;
}

std::optional<int> outside_lane(const SymbolicAccess& a, const Warp& w) {
  for (int l = 0; l < a.address_lanes; ++l) {
    if (!((w.active >> l) & 1)) continue;
    const int64_t off = a.base ? w.offsets[static_cast<size_t>(l)] : w.addresses[static_cast<size_t>(l)];
    if (off < 0 || off > w.extent - a.bytes) return l;
  }
  return std::nullopt;
}

/// The lanes' addresses moved together so the lowest active one lies in [0, 128) (bank rotation
/// keeps the cost), or nullopt when they span more shared memory than the architecture has.
std::optional<std::vector<int64_t>> normalised(const SymbolicAccess& a, const std::vector<int64_t>& addresses,
                                               hw::LaneMask active) {
  std::optional<int64_t> lo;
  for (int l = 0; l < a.address_lanes; ++l)
    if ((active >> l) & 1) lo = lo ? std::min(*lo, addresses[static_cast<size_t>(l)]) : addresses[static_cast<size_t>(l)];
  if (!lo) return std::nullopt;
  const int64_t period = int64_t{a.arch->banks} * a.arch->bank_bytes;
  const int64_t shift = (*lo >= 0 ? *lo / period : (*lo - period + 1) / period) * period;
  std::vector<int64_t> out(addresses.size());
  for (size_t l = 0; l < addresses.size(); ++l) {
    out[l] = ((active >> l) & 1) ? addresses[l] - shift : 0;
    if (out[l] < 0 || out[l] + a.bytes > a.arch->max_smem_bytes_per_block) return std::nullopt;
  }
  // Inactive lanes read nothing; give them an active lane's address so the vector is valid input.
  for (size_t l = 0; l < out.size(); ++l)
    if (!((active >> l) & 1)) out[l] = out[static_cast<size_t>(__builtin_ctz(active))];
  return out;
}

/// The cost of a concrete warp, as a witness when it conflicts.
std::optional<SymbolicWitness> conflict_of(const SymbolicAccess& a, const std::vector<int64_t>& addresses, hw::LaneMask active) {
  auto norm = normalised(a, addresses, active);
  if (!norm) return std::nullopt;
  const hw::AccessCost cost = hw::smem_access_cost(*a.arch, *a.instr, *norm, active);
  if (cost.conflict_free) return std::nullopt;
  SymbolicWitness w;
  w.addresses = *norm;
  w.active = active;
  w.wavefronts = cost.wavefronts;
  w.ideal = cost.ideal;
  w.merged = cost.merged;
  const auto worst = std::max_element(cost.phases.begin(), cost.phases.end(),
                                      [](const auto& x, const auto& y) { return x.wavefronts < y.wavefronts; });
  w.bank = worst->bank;
  w.words = worst->words;
  // Two active lanes of that phase that touch the bank at different words (or, without
  // broadcast, the two first lanes that touch it).
  const int64_t word_bytes = a.arch->bank_bytes;
  std::vector<std::pair<int, int64_t>> on_bank;
  for (int l : worst->lanes) {
    if (!((active >> l) & 1)) continue;
    const int64_t first = (*norm)[static_cast<size_t>(l)];
    for (int64_t word = first / word_bytes; word <= (first + a.bytes - 1) / word_bytes; ++word)
      if (word % a.arch->banks == w.bank) on_bank.emplace_back(l, word);
  }
  for (size_t i = 0; i < on_bank.size() && !w.bank_lanes; ++i)
    for (size_t j = i + 1; j < on_bank.size(); ++j)
      if (on_bank[i].first != on_bank[j].first && (!a.instr->broadcast || on_bank[i].second != on_bank[j].second)) {
        w.bank_lanes = {on_bank[i].first, on_bank[j].first};
        break;
      }
  return w;
}

// ---- Z3: one context per thread, reused ----

// Creating a Z3 context costs about a millisecond, and an access asks up to hundreds of small
// queries (the launch search), so the queries of one access share a context, renewed after this
// many (bounding the memory it accumulates) or after a query Z3 gave up on. Each access starts
// with a new one: Z3's models depend on what its context saw before, and the accesses of a file
// are decided on whichever thread is free, so a context shared between accesses would make the
// witnesses, and the findings quoting them, differ from run to run.
constexpr int kQueriesPerContext = 256;

struct ContextCache {
  std::unique_ptr<Z3Context> context;
  int queries = 0;
};
thread_local ContextCache t_context;

z3::context& shared_context(const SolverLimits& limits) {
  if (!t_context.context || ++t_context.queries > kQueriesPerContext) {
    t_context.context.reset();
    t_context.context = std::make_unique<Z3Context>(limits);
    t_context.queries = 0;
  }
  return (*t_context.context)();
}

void renew_context() { t_context.context.reset(); }

// Z3's hard memory cap (memory_max_size) throws its own exception from wherever an allocation
// crosses it, which inside the SAT solver is not always caught; the tactics below stop on their own
// (max_memory, checked as they work) well before it, with unknown. The margin covers what one step
// of theirs may allocate between checks.
constexpr uint64_t kZ3StopMarginMb = 32;

uint64_t tactic_memory_mb(const SolverLimits& limits) {
  // The tactics compare Z3's process-wide count with this, as the cap does.
  const uint64_t cap_mb = std::min(t_context.context ? t_context.context->cap_mb() : 0, z3_memory_cap_mb(limits));
  const uint64_t held_mb = Z3_get_estimated_alloc_size() >> 20;
  if (cap_mb <= held_mb + kZ3StopMarginMb)
    throw BudgetExhausted(current_budget().memory_name + " leaves Z3 no room for this query");
  return cap_mb - kZ3StopMarginMb;
}

// The queries are quantifier-free bit-vector formulas: simplification, bit-blasting and SAT
// (Z3's own QF_BV pipeline) answer them several times faster than the default solver's set-up,
// under the query's time limit and the memory left to it.
z3::solver bit_vector_solver(z3::context& ctx, const SolverLimits& limits) {
  z3::params memory(ctx);
  memory.set("max_memory", static_cast<unsigned>(std::min<uint64_t>(tactic_memory_mb(limits), UINT32_MAX)));
  const z3::tactic t = z3::with(z3::tactic(ctx, "simplify"), memory) & z3::with(z3::tactic(ctx, "propagate-values"), memory) &
                       z3::tactic(ctx, "solve-eqs") & z3::with(z3::tactic(ctx, "bit-blast"), memory) &
                       z3::with(z3::tactic(ctx, "sat"), memory);
  return z3::try_for(t, z3_check_timeout_ms(limits)).mk_solver();
}

// ---- the Z3 encoding of terms ----

class Z3Terms {
 public:
  /// Symbolic lanes: at(t, symbolic(k)) evaluates `t` at the k-th lane variable (k < 3).
  static constexpr int symbolic(int k) { return -2 - k; }

  Z3Terms(z3::context& ctx, const TermPool& P, const std::map<VarId, term::VarDomain>& narrowed)
      : ctx_(ctx), P_(P), narrowed_(narrowed), memo_(hw::kWarpLanes + 4) {}

  /// `t` for one lane (0..31), a symbolic lane, or lane-free (-1: the term must not depend on the lane).
  z3::expr at(TermId t, int lane) {
    auto& memo = memo_[static_cast<size_t>(lane >= -1 ? lane + 1 : hw::kWarpLanes + 1 + (-2 - lane))];
    auto it = memo.find(t);
    if (it != memo.end()) return it->second;
    const term::Node& n = P_.node(t);
    const unsigned w = n.width;
    auto A = [&] { return at(n.a, lane); };
    auto B = [&] { return at(n.b, lane); };
    auto bit = [&](const z3::expr& cond) { return z3::ite(cond, ctx_.bv_val(1, 1), ctx_.bv_val(0, 1)); };
    z3::expr r(ctx_);
    switch (n.op) {
      case Op::Const: r = ctx_.bv_val(static_cast<uint64_t>(n.value), w); break;
      case Op::Var: r = var(static_cast<VarId>(n.value), lane); break;
      case Op::Add: r = A() + B(); break;
      case Op::Mul: {
        // Operands known to be small (a thread index, a block extent) multiply at the width their
        // product needs: the same value, a fraction of the circuit to bit-blast.
        const unsigned ka = bits_of(P_.max_value(n.a)), kb = bits_of(P_.max_value(n.b));
        r = ka + kb < w ? z3::zext(z3::zext(low(A(), ka), kb) * z3::zext(low(B(), kb), ka), w - ka - kb) : A() * B();
        break;
      }
      case Op::MulHiU: r = (z3::zext(A(), w) * z3::zext(B(), w)).extract(2 * w - 1, w); break;
      case Op::MulHiS: r = (z3::sext(A(), w) * z3::sext(B(), w)).extract(2 * w - 1, w); break;
      case Op::UDiv:
      case Op::URem: {
        // A divisor whose domain is a multiple of 2^s (a block extent of whole warps) divides the
        // dividend's high bits: a / d = (a >> s) / (d >> s) and a % d = ((a >> s) % (d >> s)) << s
        // | (a mod 2^s), for every a and d, 0 included. A thread's index 32 * warp + lane then
        // divides as the warp alone, without the lane: a circuit per lane becomes one per warp.
        // Small operands divide at their own width; division by zero keeps its w-bit answer.
        const int s = std::min<int>(alignment_of(n.b), static_cast<int>(w) - 1);
        const auto parts = s > 0 ? split(n.a, s, lane) : std::nullopt;
        const z3::expr a = parts ? parts->first : s > 0 ? z3::lshr(A(), ctx_.bv_val(s, w)) : A();
        const z3::expr b = s > 0 ? z3::lshr(B(), ctx_.bv_val(s, w)) : B();
        const unsigned k = std::max(bits_of(P_.max_value(n.a) >> s), bits_of(P_.max_value(n.b) >> s));
        if (n.op == Op::UDiv) {
          r = k < w ? z3::ite(b == ctx_.bv_val(0, w), ctx_.bv_val(term::mask_of(static_cast<int>(w)), w),
                              z3::zext(z3::udiv(low(a, k), low(b, k)), w - k))
                    : z3::udiv(a, b);
          break;
        }
        r = k < w ? z3::zext(z3::urem(low(a, k), low(b, k)), w - k) : z3::urem(a, b);  // x % 0 = x at any width
        if (s > 0) r = z3::shl(r, ctx_.bv_val(s, w)) | (parts ? parts->second : A() & ctx_.bv_val(term::mask_of(s), w));
        break;
      }
      case Op::SDiv: r = A() / B(); break;
      case Op::SRem: r = z3::srem(A(), B()); break;
      case Op::Shl: r = z3::shl(A(), B()); break;
      case Op::LShr: r = z3::lshr(A(), B()); break;
      case Op::AShr: r = z3::ashr(A(), B()); break;
      case Op::And: r = A() & B(); break;
      case Op::Or: r = A() | B(); break;
      case Op::Xor: r = A() ^ B(); break;
      case Op::Not: r = ~A(); break;
      case Op::ZExt: r = z3::zext(A(), w - P_.width(n.a)); break;
      case Op::SExt: r = z3::sext(A(), w - P_.width(n.a)); break;
      case Op::Trunc: r = A().extract(w - 1, 0); break;
      case Op::Ite: r = z3::ite(A() == ctx_.bv_val(1, 1), B(), at(n.c, lane)); break;
      case Op::Eq: r = bit(A() == B()); break;
      case Op::Ult: r = bit(z3::ult(A(), B())); break;
      case Op::Slt: r = bit(A() < B()); break;
    }
    memo.emplace(t, r);
    return r;
  }
  z3::expr holds(TermId t, int lane) { return at(t, lane) == ctx_.bv_val(1, 1); }
  /// Bits that hold every value up to `umax` (at least 1).
  static unsigned bits_of(uint64_t umax) { return umax == 0 ? 1u : 64u - static_cast<unsigned>(__builtin_clzll(umax)); }
  /// The low `k` bits of `e` (its value, when it is below 2^k).
  static z3::expr low(const z3::expr& e, unsigned k) { return e.extract(k - 1, 0); }
  /// The k-th symbolic lane's number.
  z3::expr lane_var(int k) {
    while (lanes_.size() <= static_cast<size_t>(k))
      lanes_.push_back(ctx_.bv_const(fmt::format("lane{}", lanes_.size()).c_str(), 32));
    return lanes_[static_cast<size_t>(k)];
  }
  uint64_t lane_value(const z3::model& m, int k) {
    uint64_t x = 0;
    m.eval(lane_var(k), true).is_numeral_u64(x);
    return x;
  }

  /// The domains of every uniform unknown created so far.
  z3::expr domains() {
    z3::expr d = ctx_.bool_val(true);
    for (auto& [v, e] : uniforms_) {
      const auto& info = P_.var(v);
      auto it = narrowed_.find(v);
      const term::VarDomain dom = it != narrowed_.end() ? it->second : term::VarDomain{info.lo, info.hi, info.align_log2};
      const unsigned w = static_cast<unsigned>(info.width);
      d = d && z3::ule(ctx_.bv_val(dom.lo, w), e) && z3::ule(e, ctx_.bv_val(std::min(dom.hi, term::mask_of(info.width)), w));
      const int a = std::min(dom.align_log2, info.width);
      if (a > 0) d = d && e.extract(static_cast<unsigned>(a - 1), 0) == ctx_.bv_val(0, static_cast<unsigned>(a));
    }
    return d;
  }
  /// Sets every variable of `ev` to the model's value.
  void read_model(const z3::model& m, term::Evaluator& ev) {
    for (auto& [v, e] : uniforms_) {
      z3::expr val = m.eval(e, true);
      uint64_t x = 0;
      if (val.is_numeral_u64(x)) ev.set(v, x);
    }
  }
  const std::map<VarId, z3::expr>& uniforms() const { return uniforms_; }

 private:
  z3::expr var(VarId v, int lane) {
    const auto& info = P_.var(v);
    const unsigned w = static_cast<unsigned>(info.width);
    if (info.kind == VarKind::Lane) {
      if (lane == -1) throw z3::exception("internal: a lane-free term depends on the lane");
      return lane >= 0 ? ctx_.bv_val(static_cast<uint64_t>(lane), w) : lane_var(-2 - lane);
    }
    if (info.kind == VarKind::Opaque)  // per lane, unconstrained
      return ctx_.bv_const(fmt::format("opaque{}@{}", v, lane).c_str(), w);
    auto it = uniforms_.find(v);
    if (it == uniforms_.end()) it = uniforms_.emplace(v, ctx_.bv_const(fmt::format("u{}", v).c_str(), w)).first;
    return it->second;
  }

  /// `t >> s` and `t mod 2^s` when `t` is a sum whose terms below bit s add up to less than 2^s
  /// (no carry crosses bit s): the first from the other terms alone, so that 32 * warp + lane
  /// shifted by 5 is the warp at every lane (one expression, which Z3 shares, for all 32).
  std::optional<std::pair<z3::expr, z3::expr>> split(TermId t, int s, int lane) {
    const unsigned w = static_cast<unsigned>(P_.width(t));
    const TermPool::Sum sum = P_.sum_of(t);
    const uint64_t below = term::mask_of(s);
    z3::expr high = ctx_.bv_val(sum.constant & ~below, w), low = ctx_.bv_val(sum.constant & below, w);
    uint64_t low_max = sum.constant & below;
    for (const auto& [atom, coef] : sum.atoms) {
      if (coef != 0 && P_.trailing_zeros(atom) + __builtin_ctzll(coef) >= s) {
        high = high + at(atom, lane) * ctx_.bv_val(coef, w);
        continue;
      }
      const uint64_t most = P_.max_value(atom);
      if (coef > below || most > below || coef * most > below - low_max) return std::nullopt;
      low_max += coef * most;
      low = low + at(atom, lane) * ctx_.bv_val(coef, w);
    }
    return std::pair{z3::lshr(high, ctx_.bv_val(s, w)), low};
  }

  /// The power of two every value of `t` is a multiple of, by its domain (every query asserts
  /// domains()): an uniform unknown's alignment, 0 for any other term.
  int alignment_of(TermId t) const {
    const term::Node& n = P_.node(t);
    if (n.op != Op::Var) return 0;
    const VarId v = static_cast<VarId>(n.value);
    const auto& info = P_.var(v);
    if (info.kind != VarKind::Uniform) return 0;
    auto it = narrowed_.find(v);
    return std::min(it != narrowed_.end() ? it->second.align_log2 : info.align_log2, info.width);
  }

  z3::context& ctx_;
  const TermPool& P_;
  const std::map<VarId, term::VarDomain>& narrowed_;
  std::vector<std::unordered_map<TermId, z3::expr>> memo_;
  std::map<VarId, z3::expr> uniforms_;
  std::vector<z3::expr> lanes_;
};

// ---- the decision ----

enum class Property { Conflicts, Alignment, Bounds };

/// The unknowns an access depends on besides the lane, in VarId order: what a warp of it is
/// evaluated over.
std::vector<VarId> access_vars(const SymbolicAccess& a) {
  const TermPool& P = *a.pool;
  std::set<VarId> vs;
  for (TermId t : {a.address, a.active, a.extent})
    for (VarId v : P.vars_of(t))
      if (P.var(v).kind != VarKind::Lane) vs.insert(v);
  if (a.base) vs.insert(*a.base);
  return {vs.begin(), vs.end()};
}

}  // namespace

term::VarDomain var_domain(const SymbolicAccess& a, VarId v) {
  auto it = a.narrowed.find(v);
  if (it != a.narrowed.end()) return it->second;
  const auto& info = a.pool->var(v);
  return term::VarDomain{info.lo, info.hi, info.align_log2};
}

bool in_var_domain(const SymbolicAccess& a, VarId v, uint64_t x) {
  const term::VarDomain d = var_domain(a, v);
  return x >= d.lo && x <= std::min(d.hi, term::mask_of(a.pool->var(v).width)) &&
         (d.align_log2 == 0 || (x & ((uint64_t{1} << std::min(d.align_log2, 63)) - 1)) == 0);
}

namespace {

class Decider {
 public:
  Decider(const SymbolicAccess& a, Engine engine, const SolverLimits& limits)
      : a_(a), P_(*a.pool), engine_(engine), limits_(limits), vars_(access_vars(a)) {
    opaque_ = std::any_of(vars_.begin(), vars_.end(), [&](VarId v) { return P_.var(v).kind != VarKind::Uniform; });
    activity_known_ = a.active_exact && !P_.opaque(a.active);
  }

  // Each property is one obligation of the portfolio (solver/Obligation.h): its enumeration is the
  // joint enumeration of every uniform value when there are few (one pass answers all three), else
  // for conflicts and alignment the enumeration of warp-relative configurations (residues), which
  // has limits of its own; its Z3 form covers all 32 lanes; refutations are re-checked on the
  // witness's warp, then moved to the smallest values that still show them.
  /// Whether a sample of the domain shows a violation of `which`: the seed's values, with each
  /// free block extent and the warp moved to the ends of their domains and to whole warps between.
  /// Cheap, and never a proof.
  bool sampled_violation(Property which, const SymbolicWitness& seed) const {
    if (opaque_ || seed.uniforms.size() != vars_.size()) return false;
    term::Evaluator ev(P_);
    std::vector<std::vector<uint64_t>> choices;
    std::vector<VarId> moved;
    for (size_t k = 0; k < vars_.size(); ++k) {
      const VarId v = vars_[k];
      const uint64_t value = static_cast<uint64_t>(seed.uniforms[k].second) & term::mask_of(P_.var(v).width);
      const bool extent = std::count(a_.free_extents.begin(), a_.free_extents.end(), std::optional<VarId>(v)) != 0;
      const Domain d = domain(v);
      if (d.count == 0) return false;
      const uint64_t last = d.first + (d.count - 1) * d.step;
      if (!extent && P_.var(v).name != "warp") {
        ev.set(v, in_domain(v, value) ? value : d.first);
        continue;
      }
      std::vector<uint64_t> c{d.first, last, std::min(last, value)};
      for (uint64_t x = hw::kWarpLanes; x < last; x *= 2) c.push_back(x);
      std::vector<uint64_t> inside;
      for (uint64_t x : c)
        if (in_domain(v, x) && std::find(inside.begin(), inside.end(), x) == inside.end()) inside.push_back(x);
      moved.push_back(v);
      choices.push_back(std::move(inside));
    }
    std::vector<size_t> at(moved.size(), 0);
    for (size_t n = 0; n < 4096; ++n) {
      checkpoint();
      for (size_t k = 0; k < moved.size(); ++k) ev.set(moved[k], choices[k][at[k]]);
      if (violation(which, ev)) return true;
      size_t k = 0;
      while (k < at.size() && ++at[k] == choices[k].size()) at[k++] = 0;
      if (k == at.size()) break;
    }
    return false;
  }

  /// A bounded random search for a violation of `which` before Z3 (Obligation::search): values
  /// drawn from each unknown's domain (its ends, small values, powers of two and any value), with
  /// the free block extents drawn so that the block stays launchable and the warp inside it.
  /// Deterministic; only a confirmed refutation is kept.
  SymbolicProperty sampled_refutation(Property which) {
    if (which == Property::Conflicts && !a_.instr) return unknown(Engine::Enum, "not sampled");
    std::mt19937_64 rng(static_cast<uint64_t>(a_.address) * 31 + static_cast<uint64_t>(which));
    const auto extent_axis = [&](VarId v) -> int {
      for (size_t d = 0; d < 3; ++d)
        if (a_.free_extents[d] == v) return static_cast<int>(d);
      return -1;
    };
    const auto draw = [&](VarId v, uint64_t cap) -> uint64_t {
      const Domain d = domain(v);
      if (d.count == 0) return 0;
      const uint64_t last = d.first + (d.count - 1) * d.step;
      const uint64_t hi = std::max(d.first, std::min(last, cap));
      const uint64_t span = (hi - d.first) / d.step + 1;
      uint64_t x;
      switch (rng() % 5) {
        case 0: x = d.first; break;
        case 1: x = d.first + (rng() % std::min<uint64_t>(span, 64)) * d.step; break;
        case 2: x = uint64_t{1} << (rng() % static_cast<uint64_t>(P_.var(v).width)); break;  // sizes, strides, masks
        case 3: x = hi; break;
        default: x = d.first + (span == 0 ? rng() : rng() % span) * d.step; break;
      }
      x = std::min(std::max(x, d.first), hi);
      x -= (x - d.first) % d.step;
      return x;
    };
    const hw::LaunchLimits& launch = a_.arch->launch;
    term::Evaluator ev(P_);
    for (int n = 0; n < kSearchSamples; ++n) {
      checkpoint();
      uint64_t threads = 1;
      // The block extents first (x, y, z), each within what the others leave of the block.
      std::array<std::optional<VarId>, 3> extents = a_.free_extents;
      for (size_t d = 0; d < 3; ++d)
        if (extents[d] && std::count(vars_.begin(), vars_.end(), *extents[d])) {
          const uint64_t x = draw(*extents[d], static_cast<uint64_t>(launch.max_threads_per_block) / threads);
          ev.set(*extents[d], x);
          threads *= std::max<uint64_t>(x, 1);
        }
      for (VarId v : vars_) {
        if (extent_axis(v) >= 0) continue;
        const bool warp = P_.var(v).name == "warp";
        ev.set(v, draw(v, warp ? (threads + hw::kWarpLanes - 1) / hw::kWarpLanes - 1 : ~uint64_t{0}));
      }
      const auto v = violation(which, ev);
      if (!v) continue;
      if (opaque_) {
        // Values the model does not know (one value at every lane, which Z3's per-lane unknowns
        // include) violate it: no engine can prove it, and such values are no witness.
        SymbolicProperty p = unknown(Engine::Enum, fmt::format("{} for values the model does not know ({})", v->second,
                                                               P_.opaque(a_.address) ? P_.opaque_reason(a_.address)
                                                               : P_.opaque(a_.active) ? P_.opaque_reason(a_.active)
                                                                                      : P_.opaque_reason(a_.extent)));
        p.settled = true;
        return p;
      }
      SymbolicProperty p = confirm(which, Engine::Enum, ev);
      if (p.verdict == Verdict::Refuted || p.settled) return p;
    }
    if (auto p = violation_with_loaded_values(which, draw)) return *p;
    return unknown(Engine::Enum, "no sample violates it");
  }

  /// Where which lanes execute depends on values the model does not know (loaded data: `if (a[i] >
  /// b[i]) s[j] = ...`), warps drawn with those values chosen per lane, as Z3's encoding has them:
  /// a violation among the lanes they enable (for conflicts: of an instruction that never merges)
  /// is one Z3 would find too, and that leaves the property unknown, so the answer is settled here
  /// without the query.
  template <class Draw>
  std::optional<SymbolicProperty> violation_with_loaded_values(Property which, Draw& draw) {
    if (!P_.opaque(a_.active) || P_.opaque(a_.address) || P_.opaque(a_.extent)) return std::nullopt;
    if (which == Property::Conflicts && (!a_.instr || (a_.instr->mergeable && a_.arch->load_merging))) return std::nullopt;
    std::vector<VarId> uniform, per_lane;
    for (VarId v : vars_) {
      switch (P_.var(v).kind) {
        case VarKind::Uniform: uniform.push_back(v); break;
        case VarKind::Opaque: per_lane.push_back(v); break;
        default: return std::nullopt;
      }
    }
    std::mt19937_64 rng(static_cast<uint64_t>(a_.active) * 131 + static_cast<uint64_t>(which));
    term::Evaluator ev(P_);
    const int64_t last = a_.arch->max_smem_bytes_per_block - a_.bytes;
    for (int n = 0; n < kOpaqueActivitySamples; ++n) {
      checkpoint();
      for (VarId v : uniform) ev.set(v, draw(v, ~uint64_t{0}));
      const Warp w = evaluate_warp(a_, ev, [&](int) {
        for (VarId v : per_lane) ev.set(v, rng());
      });
      if (w.active == 0) continue;
      bool found = false;
      switch (which) {
        case Property::Alignment: found = misaligned_lane(a_, w).has_value(); break;
        case Property::Bounds: found = outside_lane(a_, w).has_value(); break;
        case Property::Conflicts: {
          // As z3_conflicts asks it: every active lane aligned and inside shared memory.
          bool valid = !misaligned_lane(a_, w);
          for (int l = 0; l < a_.address_lanes; ++l)
            valid = valid && (!((w.active >> l) & 1) || w.addresses[static_cast<size_t>(l)] <= last);
          found = valid && conflict_of(a_, w.addresses, w.active).has_value();
          break;
        }
      }
      if (!found) continue;
      SymbolicProperty p = unknown(Engine::Enum, which == Property::Conflicts
                                                     ? activity_reason()
                                                     : fmt::format("a violation is possible for values the model does not "
                                                                   "know ({})", P_.opaque_reason(a_.active)));
      p.settled = true;
      return p;
    }
    return std::nullopt;
  }

  SymbolicProperty decide_property(Property which) {
    if (which == Property::Conflicts && !a_.instr) {
      SymbolicProperty p;
      p.reason = "no bank model for this instruction (shared-memory atomics were not measured)";
      return p;
    }
    SymbolicProperty p = decide(obligation(which), engine_, limits_);
    if (p.verdict == Verdict::Unknown && p.engine == Engine::Z3) renew_context();  // it may be spent
    return p;
  }

 private:
  // ---- domains ----
  Domain domain(VarId v) const { return domain_of(var_domain(a_, v), P_.var(v).width); }
  bool in_domain(VarId v, uint64_t x) const { return in_var_domain(a_, v, x); }

  // ---- outcome helpers ----
  SymbolicProperty proven(Engine e) {
    SymbolicProperty p;
    p.verdict = Verdict::Proven;
    p.engine = e;
    return p;
  }
  SymbolicProperty unknown(Engine e, std::string why) {
    SymbolicProperty p;
    p.verdict = Verdict::Unknown;
    p.engine = e;
    p.reason = std::move(why);
    return p;
  }
  // Z3 answering unknown on these complete bit-vector queries: its time or memory ran out.
  SymbolicProperty limited_unknown(Engine e, std::string why) {
    SymbolicProperty p = unknown(e, std::move(why));
    p.limited = true;
    return p;
  }

  // ---- what the values of `ev` do ----

  /// The violation of `which` by the warp at `ev`'s values, as a witness with its summary; nullopt
  /// when the warp satisfies the property (or does not execute).
  std::optional<std::pair<SymbolicWitness, std::string>> violation(Property which, term::Evaluator& ev) const {
    const Warp w = evaluate_warp(a_, ev);
    if (w.active == 0) return std::nullopt;
    SymbolicWitness x;
    x.addresses = w.addresses;
    x.active = w.active;
    x.extent = w.extent;
    switch (which) {
      case Property::Alignment: {
        const auto l = misaligned_lane(a_, w);
        if (!l) return std::nullopt;
        x.lane = *l;
        return std::pair{x, fmt::format("lane {} accesses address {}, not a multiple of {}", *l,
                                        w.addresses[static_cast<size_t>(*l)], a_.bytes)};
      }
      case Property::Bounds: {
        const auto l = outside_lane(a_, w);
        if (!l) return std::nullopt;
        x.lane = *l;
        return std::pair{x, bounds_summary(*l, w.offsets[static_cast<size_t>(*l)], w.addresses[static_cast<size_t>(*l)], w.extent)};
      }
      case Property::Conflicts:
        break;
    }
    if (misaligned_lane(a_, w)) return std::nullopt;  // the alignment obligation covers it
    auto c = conflict_of(a_, w.addresses, w.active);
    if (!c) return std::nullopt;
    c->extent = w.extent;
    return std::pair{*c, conflict_summary(*c)};
  }

  /// A refutation at `ev`'s values, after checking that it does not rest on over-approximated
  /// activity or values; unknown when the values do not violate the property after all.
  SymbolicProperty confirm(Property which, Engine e, term::Evaluator& ev) {
    auto v = violation(which, ev);
    if (!v && (opaque_ || !activity_known_))
      return unknown(e, fmt::format("a violation is possible for values the model does not know ({})",
                                    P_.opaque(a_.active) ? P_.opaque_reason(a_.active)
                                    : P_.opaque(a_.address) ? P_.opaque_reason(a_.address)
                                                            : "lanes that leave a loop early"));
    if (!v) return unknown(e, "internal: the solver's witness does not re-check");
    auto& [w, summary] = *v;
    if (!activity_known_) {
      SymbolicProperty p = unknown(e, fmt::format("{} when every lane that may execute it does, but which lanes execute it is "
                                                  "not modelled ({})", summary, P_.opaque(a_.active) ? P_.opaque_reason(a_.active)
                                                                                                   : "a divergent loop"));
      p.settled = true;
      return p;
    }
    if (auto approx = approximated_in(P_, vars_, ev)) return unknown(e, fmt::format("{} only with {}", summary, *approx));
    SymbolicProperty p;
    p.verdict = Verdict::Refuted;
    p.engine = e;
    p.reason = summary;
    w.uniforms = uniform_values(P_, vars_, ev);
    p.witness = std::move(w);
    return p;
  }

  // ---- the obligations ----
  Obligation<SymbolicProperty> obligation(Property which) {
    Obligation<SymbolicProperty> o;
    o.no_f2 = "the f2 engine decides layouts, not accesses recovered from PTX";
    o.by_enum = [this, which] {
      if (const SymbolicResult* all = joint()) return pick(*all, which);
      switch (which) {
        case Property::Conflicts:
          if (!conflicts_by_residues_) conflicts_by_residues_ = residues();
          return *conflicts_by_residues_;
        case Property::Alignment:
          if (every_lane_holds(which)) return proven(Engine::Enum);
          // The same pass covers alignment (an instruction without a bank model too) unless it
          // stopped at a conflict.
          if (!conflicts_by_residues_) conflicts_by_residues_ = residues();
          if (residue_alignment_) return *residue_alignment_;
          break;
        case Property::Bounds:
          if (every_lane_holds(which)) return proven(Engine::Enum);
          break;
      }
      return unknown(Engine::Enum, "the uniform unknowns take too many values to enumerate");
    };
    o.by_z3 = [this, which] {
      switch (which) {
        case Property::Conflicts: return z3_conflicts();
        case Property::Alignment: return z3_alignment();
        case Property::Bounds: break;
      }
      return z3_bounds();
    };
    // Enumeration first wherever it may decide: the residue enumeration of conflicts answers
    // unknown at once past its own limits, and Z3 follows.
    o.small = [this, which] { return enumerable() || which != Property::Bounds || every_lane_points().has_value(); };
    o.search = [this, which] { return sampled_refutation(which); };
    o.confirm = [this, which](SymbolicProperty& p) { return recheck(p, which); };
    o.minimize = [this, which](SymbolicProperty& p) { return minimise(p, which); };
    return o;
  }

  static SymbolicProperty pick(const SymbolicResult& r, Property which) {
    switch (which) {
      case Property::Conflicts: return r.conflicts;
      case Property::Alignment: return r.alignment;
      case Property::Bounds: break;
    }
    return r.bounds;
  }

  // The concrete re-check of a refutation: the witness's warp (its 32 addresses, for a conflict
  // moved by whole bank periods, and its active lanes) violates the property in the hardware
  // model, and where every unknown is a uniform value, the address terms evaluated at the
  // witness's values give that warp.
  std::optional<std::string> recheck(const SymbolicProperty& p, Property which) const {
    if (!p.witness) return "the refutation has no witness";
    const SymbolicWitness& x = *p.witness;
    Warp w;
    w.addresses = x.addresses;
    w.active = x.active;
    w.extent = x.extent;
    if (w.addresses.size() != static_cast<size_t>(hw::kWarpLanes)) return "the witness does not give every lane's address";
    if (!opaque_) {
      // Every unknown is uniform: the witness lists them in the order of vars_.
      if (x.uniforms.size() != vars_.size()) return "the witness does not give every unknown's value";
      term::Evaluator ev(P_);
      for (size_t k = 0; k < vars_.size(); ++k) {
        const uint64_t value = static_cast<uint64_t>(x.uniforms[k].second) & term::mask_of(P_.var(vars_[k]).width);
        if (!in_domain(vars_[k], value)) return fmt::format("the witness's {} = {} is outside its domain", x.uniforms[k].first, x.uniforms[k].second);
        ev.set(vars_[k], value);
      }
      const Warp again = evaluate_warp(a_, ev);
      // A conflict's witness lists the addresses moved by whole bank periods (normalised).
      const auto shown = which == Property::Conflicts ? normalised(a_, again.addresses, again.active)
                                                      : std::optional<std::vector<int64_t>>(again.addresses);
      if (!shown || *shown != w.addresses || again.active != w.active || again.extent != w.extent)
        return "the address terms at the witness's values give another warp";
      w = again;
    } else if (a_.base) {
      // Offsets from the buffer's base, whose value the witness names when it is a uniform unknown.
      const auto& info = P_.var(*a_.base);
      auto it = std::find_if(x.uniforms.begin(), x.uniforms.end(), [&](const auto& u) { return u.first == info.name; });
      if (it == x.uniforms.end()) {
        if (which == Property::Bounds) return "the witness does not give the buffer's base";
      } else {
        const uint64_t base = static_cast<uint64_t>(it->second);
        for (int l = 0; l < hw::kWarpLanes; ++l)
          w.offsets[static_cast<size_t>(l)] =
              term::to_signed((static_cast<uint64_t>(w.addresses[static_cast<size_t>(l)]) - base) & term::mask_of(32), 32);
      }
    }
    switch (which) {
      case Property::Alignment:
        if (!x.lane || misaligned_lane(a_, w) != x.lane) return "the witness's lane is aligned";
        return std::nullopt;
      case Property::Bounds:
        if (!x.lane || !outside_lane(a_, w)) return "every active lane of the witness is inside the buffer";
        return std::nullopt;
      case Property::Conflicts:
        break;
    }
    const auto c = conflict_of(a_, w.addresses, w.active);
    if (!c || c->wavefronts != x.wavefronts) return "the witness's warp does not cost the wavefronts it claims";
    return std::nullopt;
  }

  // The counterexample people read. First, for a conflict, the block extents the launch leaves
  // free are set to the whole-warp block that costs the most wavefronts (a warp as the kernel is
  // run, not a block of two threads); then each unknown in turn (the warp first) moves to the
  // smallest value of its domain that still shows the violation (for a conflict, at least as many
  // wavefronts), trying its domain's first value and the value with its low bits cleared.
  bool minimise(SymbolicProperty& p, Property which) {
    if (opaque_ || !p.witness || p.witness->uniforms.size() != vars_.size()) return false;
    term::Evaluator ev(P_);
    for (size_t k = 0; k < vars_.size(); ++k)
      ev.set(vars_[k], static_cast<uint64_t>(p.witness->uniforms[k].second) & term::mask_of(P_.var(vars_[k]).width));
    bool changed = false;
    int64_t wavefronts = p.witness->wavefronts;
    // Block extents set to whole warps here stay whole warps below (a block of 31 threads costing
    // what 32 cost is no clearer a counterexample).
    std::set<VarId> whole_warps;
    const auto whole = [](uint64_t x) { return x % hw::kWarpLanes == 0; };
    const auto widen_extents = [&] {
      if (which != Property::Conflicts) return;
      for (const auto& extent : a_.free_extents) {
        if (!extent || !std::count(vars_.begin(), vars_.end(), *extent)) continue;
        uint64_t best = ev.value_of(*extent);
        const Domain d = domain(*extent);
        for (uint64_t x = hw::kWarpLanes; d.count > 0 && x <= d.first + (d.count - 1) * d.step; x *= 2) {
          if (!in_domain(*extent, x)) continue;
          ev.set(*extent, x);
          auto v = violation(which, ev);
          if (v && (v->first.wavefronts > wavefronts || (v->first.wavefronts == wavefronts && !whole(best))) &&
              !approximated_in(P_, vars_, ev)) {
            wavefronts = v->first.wavefronts;
            best = x;
            changed = true;
          }
          ev.set(*extent, best);
        }
        if (whole(best)) whole_warps.insert(*extent);
      }
    };
    widen_extents();
    auto still = [&](term::Evaluator& e) {
      auto v = violation(which, e);
      return v && (which != Property::Conflicts || v->first.wavefronts >= wavefronts) && !approximated_in(P_, vars_, e);
    };
    std::vector<size_t> order(vars_.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::stable_partition(order.begin(), order.end(), [&](size_t k) { return P_.var(vars_[k]).name == "warp"; });
    for (int pass = 0; pass < 2; ++pass) {
      // Once the other unknowns are small, a whole-warp block may cost more than the first one did.
      if (pass == 1) widen_extents();
      for (size_t k : order) {
        const VarId v = vars_[k];
        const uint64_t now = ev.value_of(v);
        const Domain d = domain(v);
        const bool warps = whole_warps.count(v) > 0;
        // Its domain's first value, the value with its low bits cleared, and the powers of two
        // (the strides and extents that conflicts are usually made of: not monotone, so tried
        // before the bisection).
        std::vector<uint64_t> tries;
        if (d.count > 0) tries.push_back(d.first);
        for (int bit = 63; bit > 0; --bit) tries.push_back(now & ~((uint64_t{1} << bit) - 1));
        for (int bit = 0; bit < 64 && (uint64_t{1} << bit) < now; ++bit) tries.push_back(uint64_t{1} << bit);
        std::sort(tries.begin(), tries.end());
        tries.erase(std::unique(tries.begin(), tries.end()), tries.end());
        uint64_t best = now;
        for (uint64_t x : tries) {
          checkpoint();
          if (x >= best) break;
          if (!in_domain(v, x) || (warps && !whole(x))) continue;
          ev.set(v, x);
          if (still(ev)) {
            best = x;
            break;
          }
          ev.set(v, best);
        }
        // Then a bisection below it, for violations that hold from some value on (a block larger
        // than a buffer, a warp past its end).
        for (uint64_t lo = d.first; d.count > 0 && lo < best;) {
          checkpoint();
          uint64_t mid = lo + (best - lo) / 2;
          mid -= (mid - d.first) % d.step;
          if (warps) mid -= mid % hw::kWarpLanes;
          if (mid >= best || mid < lo) break;
          ev.set(v, mid);
          if (still(ev)) best = mid;
          else lo = mid + (warps ? hw::kWarpLanes : d.step);
          ev.set(v, best);
        }
        changed |= best != now;
      }
    }
    if (!changed) return false;
    SymbolicProperty smaller = confirm(which, p.engine, ev);
    if (smaller.verdict != Verdict::Refuted) return false;
    smaller.time_ms = p.time_ms;
    p = std::move(smaller);
    return true;
  }

  // ---- alignment and bounds with every lane executing ----
  // Whether every lane below address_lanes is aligned (or in bounds) for every value of the
  // unknowns the address, the extent and the base depend on: a superset of the warps that run,
  // since which lanes execute (exact, over-approximated or depending on loaded data) only removes
  // lanes. So a pass without a violation proves the property; one with a violation proves nothing
  // (those lanes may not run) and the other engines decide. One pass answers both properties.
  bool every_lane_holds(Property which) {
    if (!every_lane_) {
      every_lane_.emplace();
      // Low bits of the address known zero for every value (the residue engine's argument) that
      // cover the access's bytes align every lane at once.
      every_lane_->aligned = P_.trailing_zeros(a_.address) >= __builtin_ctz(static_cast<unsigned>(a_.bytes));
      if (const auto points = every_lane_points()) every_lane_pass(*points);
    }
    return which == Property::Alignment ? every_lane_->aligned : every_lane_->inside;
  }

  // The unknowns of the every-lane pass and their domains, or nullopt when one is not a uniform
  // value or they take more than kExhaustiveLimit values. Where the address is the buffer's base
  // plus offsets that do not depend on it (and the extent does not either), the offsets are the
  // same at every base and the alignment depends only on the base's residue modulo the access's
  // bytes: the base takes one value of each residue its domain has.
  struct EveryLanePoints {
    std::vector<VarId> vars;
    std::vector<Domain> doms;
  };
  std::optional<EveryLanePoints> every_lane_points() const {
    std::set<VarId> vs;
    for (TermId t : {a_.address, a_.extent})
      for (VarId v : P_.vars_of(t)) vs.insert(v);
    if (a_.base) vs.insert(*a_.base);
    vs.erase(P_.lane_var());
    EveryLanePoints out;
    uint64_t points = 1;
    for (VarId v : vs) {
      Domain d = domain(v);
      if (a_.base && v == *a_.base && base_is_a_summand())
        d.count = std::min<uint64_t>(d.count, std::max<uint64_t>(1, static_cast<uint64_t>(a_.bytes) / d.step));
      if (P_.var(v).kind != VarKind::Uniform || d.count == 0 || d.count > kExhaustiveLimit / points) return std::nullopt;
      points *= d.count;
      out.vars.push_back(v);
      out.doms.push_back(d);
    }
    return out;
  }

  // Whether the address is base + terms without the base, and the extent has no base.
  bool base_is_a_summand() const {
    const VarId base = *a_.base;
    const auto has_base = [&](TermId t) {
      const std::vector<VarId> vs = P_.vars_of(t);
      return std::find(vs.begin(), vs.end(), base) != vs.end();
    };
    if (has_base(a_.extent)) return false;
    bool once = false;
    for (const auto& [atom, coef] : P_.sum_of(a_.address).atoms) {
      if (atom == P_.var_term(base) && coef == 1 && !once) once = true;
      else if (has_base(atom)) return false;
    }
    return once;
  }

  void every_lane_pass(const EveryLanePoints& points) {
    term::Evaluator ev(P_);
    Odometer at{points.vars, points.doms};
    bool aligned = true, inside = true;
    for (bool more = true; more && (aligned || inside); more = at.next()) {
      checkpoint();
      at.set(ev);
      const Warp w = evaluate_warp(a_, ev, nullptr, true);
      aligned = aligned && !misaligned_lane(a_, w);
      inside = inside && !outside_lane(a_, w);
    }
    every_lane_->aligned = every_lane_->aligned || aligned;
    every_lane_->inside = inside;
  }

  // ---- exhaustive enumeration of every uniform value ----
  bool enumerable() const {
    if (opaque_) return false;
    uint64_t points = 1;
    for (VarId v : vars_) {
      const Domain d = domain(v);
      if (d.count == 0 || d.count > kExhaustiveLimit / points) return false;
      points *= d.count;
    }
    return true;
  }

  // Every property at once, by one pass over every value of the uniform unknowns; null when they
  // take too many values. Computed once.
  const SymbolicResult* joint() {
    if (!enumerable()) return nullptr;
    if (!joint_) {
      joint_.emplace();
      exhaustive(*joint_, a_.instr != nullptr);
    }
    return &*joint_;
  }

  void exhaustive(SymbolicResult& r, bool want_conflicts) {
    uint64_t points = 1;
    std::vector<Domain> doms;
    for (VarId v : vars_) {
      doms.push_back(domain(v));
      points *= doms.back().count;
    }
    Stopwatch clock;
    term::Evaluator ev(P_);
    Odometer at{vars_, doms};
    std::optional<SymbolicProperty> conflicts, alignment, bounds;
    std::optional<std::string> conflict_gap;
    for (uint64_t p = 0; p < points; ++p, at.next()) {
      checkpoint();
      at.set(ev);
      const Warp w = evaluate_warp(a_, ev);
      if (w.active != 0) {
        if (!alignment && misaligned_lane(a_, w)) alignment = confirm(Property::Alignment, Engine::Enum, ev);
        if (!bounds && outside_lane(a_, w)) bounds = confirm(Property::Bounds, Engine::Enum, ev);
        if (want_conflicts && !conflicts && !misaligned_lane(a_, w)) {
          if (!normalised(a_, w.addresses, w.active)) conflict_gap = "the lanes' addresses span more than the architecture's shared memory";
          else if (conflict_of(a_, w.addresses, w.active)) conflicts = confirm(Property::Conflicts, Engine::Enum, ev);
        }
      }
    }
    const double ms = clock.elapsed_ms();
    r.alignment = alignment ? *alignment : proven(Engine::Enum);
    r.bounds = bounds ? *bounds : proven(Engine::Enum);
    if (want_conflicts)
      r.conflicts = conflicts ? *conflicts : conflict_gap ? unknown(Engine::Enum, *conflict_gap) : proven(Engine::Enum);
    for (SymbolicProperty* x : {&r.conflicts, &r.alignment, &r.bounds}) x->time_ms = ms;
  }

  std::string conflict_summary(const SymbolicWitness& w) const {
    return fmt::format("{} wavefronts where {} {} ideal", w.wavefronts, w.ideal, w.ideal == 1 ? "is" : "are");
  }
  std::string bounds_summary(int lane, int64_t offset, int64_t address, int64_t extent) const {
    if (a_.base)
      return fmt::format("lane {} accesses byte offset {} of a {}-byte buffer", lane, offset, extent);
    return fmt::format("lane {} accesses shared address {}, outside the {} bytes of shared memory", lane, address, extent);
  }

  // ---- residues: the warp's addresses are a lane part over small unknowns plus a uniform offset ----
  SymbolicProperty residues() {
    const TermPool::Sum sum = P_.sum_of(a_.address);
    std::vector<std::pair<TermId, uint64_t>> lane_atoms, uniform_atoms;
    for (const auto& atom : sum.atoms) (P_.lane_dependent(atom.first) ? lane_atoms : uniform_atoms).push_back(atom);
    std::vector<TermId> lane_conds, uniform_conds;
    {
      std::vector<TermId> all;
      conjuncts(P_, a_.active, all);
      for (TermId c : all) (P_.lane_dependent(c) ? lane_conds : uniform_conds).push_back(c);
    }
    std::set<VarId> small;
    for (const auto& [atom, coef] : lane_atoms)
      for (VarId v : P_.vars_of(atom)) small.insert(v);
    small.erase(P_.lane_var());
    uint64_t points = 1;
    for (VarId v : small) {
      if (P_.var(v).kind != VarKind::Uniform) return unknown(Engine::Enum, "the lane part of the address is not modelled");
      const Domain d = domain(v);
      if (d.count == 0 || d.count > kResidueLimit / points)
        return unknown(Engine::Enum, "the lane part of the address depends on unknowns with many values");
      points *= d.count;
    }
    // A lane condition over unknowns with few values is evaluated in each configuration; one over
    // unknowns with many (the block's size in `t < ntid.x*ntid.y*ntid.z`) is deferred: the
    // configurations assume it holds, which for an instruction that never merges can only add
    // lanes, and so wavefronts (a proof covers every subset); a conflict found is realised with it
    // holding at the lanes that show it. For such an instruction a condition over unknowns the
    // address does not have is deferred too: enumerating them (a block extent's 1024 values) would
    // only split full warps into partial ones.
    const bool mergeable = a_.instr && a_.instr->mergeable && a_.arch->load_merging;
    std::vector<TermId> evaluated_conds, deferred_conds;
    for (TermId c : lane_conds) {
      std::set<VarId> more;
      for (VarId v : P_.vars_of(c))
        if (v != P_.lane_var() && !small.count(v)) more.insert(v);
      uint64_t extra = 1;
      bool few = true;
      for (VarId v : more) {
        const Domain d = domain(v);
        if (P_.var(v).kind != VarKind::Uniform || d.count == 0 || d.count > kResidueLimit / (points * extra)) {
          few = false;
          break;
        }
        extra *= d.count;
      }
      if (few && points * extra <= kResidueLimit && (more.empty() || mergeable)) {
        small.insert(more.begin(), more.end());
        points *= extra;
        evaluated_conds.push_back(c);
      } else {
        deferred_conds.push_back(c);
      }
    }
    // Whether a load merges depends on exactly which lanes run it. When the deferred conditions
    // always select one run of consecutive lanes (a block-stride loop's `i < n`, `t < ntid`), every
    // run is tried: a proof then covers the lanes that really run.
    const bool split_runs = !deferred_conds.empty() && mergeable && activity_known_;
    if (!deferred_conds.empty() && mergeable && !(split_runs && lanes_in_one_run(deferred_conds)))
      return unknown(Engine::Enum, "which lanes execute this load depends on unknowns with many values, and whether it merges depends on them");
    std::vector<VarId> evars(small.begin(), small.end());
    std::vector<Domain> doms;
    for (VarId v : evars) doms.push_back(domain(v));
    const int64_t period = int64_t{a_.arch->banks} * a_.arch->bank_bytes;
    int tz = __builtin_ctzll(sum.constant | (uint64_t{1} << 32));
    for (const auto& [atom, coef] : uniform_atoms)
      tz = std::min(tz, std::min(32, P_.trailing_zeros(atom) + __builtin_ctzll(coef | (uint64_t{1} << 32))));
    const int64_t step = tz >= 31 ? period : std::min<int64_t>(period, int64_t{1} << tz);
    const int64_t residue_count = period / step;
    if (points * static_cast<uint64_t>(residue_count) > kResidueLimit)
      return unknown(Engine::Enum, "too many warp-relative configurations to enumerate");
    term::Evaluator ev(P_);
    Odometer at{evars, doms};
    int realisations = 0;
    Stopwatch clock;
    std::optional<SymbolicProperty> misaligned;  // a confirmed misaligned configuration
    const char* unrealised = "a configuration that conflicts could not be realised with the lanes that show it executing";
    for (uint64_t p = 0; p < points; ++p, at.next()) {
      checkpoint();
      at.set(ev);
      std::vector<uint64_t> lane_part(hw::kWarpLanes, 0);
      hw::LaneMask mask = 0;
      for (int lane = 0; lane < hw::kWarpLanes; ++lane) {
        ev.set(P_.lane_var(), static_cast<uint64_t>(lane));
        uint64_t x = 0;
        for (const auto& [atom, coef] : lane_atoms) x += coef * ev.eval(atom);
        lane_part[static_cast<size_t>(lane)] = x;
        bool act = lane < a_.address_lanes;
        for (TermId c : evaluated_conds) act = act && ev.eval(c);
        if (act) mask |= hw::LaneMask{1} << lane;
      }
      if (mask != 0) {
        if (!activity_known_ && mergeable)
          return unknown(Engine::Enum, "which lanes execute this load is not modelled, and whether it merges depends on them");
        for (int64_t r = 0; r < residue_count; ++r) {
          std::vector<int64_t> addrs(hw::kWarpLanes);
          std::optional<int> misaligned_at;
          for (int lane = 0; lane < hw::kWarpLanes; ++lane) {
            addrs[static_cast<size_t>(lane)] = static_cast<int64_t>((lane_part[static_cast<size_t>(lane)] + static_cast<uint64_t>(r * step)) & term::mask_of(32));
            if (!misaligned_at && ((mask >> lane) & 1) && addrs[static_cast<size_t>(lane)] % a_.bytes != 0) misaligned_at = lane;
          }
          const uint64_t residue = static_cast<uint64_t>(r * step);
          if (misaligned_at) {
            if (misaligned) continue;
            if (!activity_known_) {
              // No values could make it a refutation (which lanes execute is not known): the
              // alignment is unknown whether or not the configuration is reachable.
              misaligned = unknown(Engine::Enum, activity_reason());
              continue;
            }
            if (++realisations > kMaxRealisations)
              return unknown(Engine::Enum, "too many conflicting configurations that may be unreachable");
            auto real = realise(evars, ev, uniform_atoms, sum.constant, uniform_conds, deferred_conds, {*misaligned_at}, residue,
                                period, Property::Alignment);
            if (real) misaligned = *real;
            else if (!deferred_conds.empty()) return unknown(Engine::Enum, unrealised);
            continue;
          }
          if (!a_.instr) continue;  // no bank model: the pass decides alignment only
          if (!normalised(a_, addrs, mask)) {
            // The lane part is known modulo 2^32 only (`2*t - (t & m)` wraps below zero): read as
            // signed, its lanes may lie together. Banks and words depend only on the addresses'
            // differences, which both readings give modulo 2^32.
            for (int64_t& x : addrs) x = term::to_signed(static_cast<uint64_t>(x), 32);
            if (!normalised(a_, addrs, mask))
              return unknown(Engine::Enum, "the lanes' addresses span more than the architecture's shared memory");
          }
          if (split_runs) {
            for (int first = 0; first < hw::kWarpLanes; ++first)
              for (int last = first; last < hw::kWarpLanes; ++last) {
                const hw::LaneMask run =
                    ((last == hw::kWarpLanes - 1 ? hw::kAllLanes : (hw::LaneMask{1} << (last + 1)) - 1) >> first) << first;
                if ((mask & run) != 0 && conflict_of(a_, addrs, mask & run))
                  return unknown(Engine::Enum, "a run of the lanes that may execute this load conflicts; whether exactly "
                                               "those lanes run it is not decided here");
              }
            continue;
          }
          auto c = conflict_of(a_, addrs, mask);
          if (!c) continue;
          // Realise the configuration: uniform values that give this warp-relative picture.
          if (++realisations > kMaxRealisations)
            return unknown(Engine::Enum, "too many conflicting configurations that may be unreachable");
          std::vector<int> showing;
          if (c->bank_lanes) showing = {c->bank_lanes->first, c->bank_lanes->second};
          else for (int l = 0; l < hw::kWarpLanes; ++l) if ((mask >> l) & 1) showing.push_back(l);
          auto real = realise(evars, ev, uniform_atoms, sum.constant, uniform_conds, deferred_conds, showing, residue, period,
                              Property::Conflicts);
          if (!real) {
            if (!deferred_conds.empty()) return unknown(Engine::Enum, unrealised);
            continue;  // unreachable
          }
          return *real;
        }
      }
    }
    // Every configuration was covered: the alignment is decided too.
    residue_alignment_ = misaligned ? *misaligned : proven(Engine::Enum);
    residue_alignment_->time_ms = clock.elapsed_ms();
    return proven(Engine::Enum);
  }

  // realise's cheap first attempt: random values of the other unknowns (small ones half the time),
  // evaluated; a confirmed witness when one gives the configuration, else nothing (Z3 then decides).
  std::optional<SymbolicProperty> sample(const std::vector<VarId>& evars, term::Evaluator& fixed,
                                         const std::vector<std::pair<TermId, uint64_t>>& uniform_atoms, uint64_t constant,
                                         const std::vector<TermId>& uniform_conds, const std::vector<TermId>& deferred_conds,
                                         const std::vector<int>& showing, uint64_t residue, int64_t period, Property which) {
    std::vector<VarId> free;
    for (VarId v : vars_)
      if (std::find(evars.begin(), evars.end(), v) == evars.end()) free.push_back(v);
    std::mt19937_64 rng(residue * 1000003u + static_cast<uint64_t>(a_.address));
    term::Evaluator ev(P_);
    for (VarId v : evars) ev.set(v, fixed.value_of(v));
    for (int n = 0; n < kRealisationSamples; ++n) {
      for (VarId v : free) {
        const Domain d = domain(v);
        if (d.count == 0) return std::nullopt;
        const uint64_t span = (n & 1) ? std::min<uint64_t>(d.count, 64) : d.count;
        ev.set(v, d.first + (span ? rng() % span : 0) * d.step);
      }
      uint64_t g = constant;
      for (const auto& [atom, coef] : uniform_atoms) g += coef * ev.eval(atom);
      if ((g & term::mask_of(32)) % static_cast<uint64_t>(period) != residue) continue;
      bool holds = true;
      for (TermId c : uniform_conds) holds = holds && ev.eval(c);
      for (TermId c : deferred_conds)
        for (int l : showing) {
          ev.set(P_.lane_var(), static_cast<uint64_t>(l));
          holds = holds && ev.eval(c);
        }
      if (!holds) continue;
      // Realised: a refutation, or unknown for the reason any values of this configuration would
      // give (a value the model over-approximates or does not know).
      SymbolicProperty p = confirm(which, Engine::Enum, ev);
      if (p.verdict == Verdict::Refuted || p.reason.rfind("internal:", 0) != 0) return p;
    }
    return std::nullopt;
  }

  // Uniform values with the small unknowns at `ev`'s values, the uniform offset = r (mod the bank
  // period) and the deferred lane conditions holding at the lanes `showing`, under which the lanes
  // that execute do so: a confirmed witness, an unknown, or nullopt when no such values exist (or
  // cannot be named: a deferred condition on loaded data; the callers then answer unknown).
  std::optional<SymbolicProperty> realise(const std::vector<VarId>& evars, term::Evaluator& fixed,
                                          const std::vector<std::pair<TermId, uint64_t>>& uniform_atoms, uint64_t constant,
                                          const std::vector<TermId>& uniform_conds, const std::vector<TermId>& deferred_conds,
                                          const std::vector<int>& showing, uint64_t residue, int64_t period, Property which) {
    if (auto found = sample(evars, fixed, uniform_atoms, constant, uniform_conds, deferred_conds, showing, residue, period, which))
      return found;
    // A lane condition on loaded data (deferred: evaluated at no configuration) has no value a
    // witness could name: the caller leaves the configuration unrealised, an unknown.
    if (std::any_of(deferred_conds.begin(), deferred_conds.end(), [&](TermId c) { return P_.opaque(c); })) return std::nullopt;
    z3::context& ctx = shared_context(limits_);
    Z3Terms T(ctx, P_, a_.narrowed);
    z3::solver s = bit_vector_solver(ctx, limits_);
    z3::expr g = ctx.bv_val(constant, 32);
    for (const auto& [atom, coef] : uniform_atoms) g = g + T.at(atom, -1) * ctx.bv_val(coef, 32);
    s.add(z3::urem(g, ctx.bv_val(static_cast<uint64_t>(period), 32)) == ctx.bv_val(residue, 32));
    for (TermId c : uniform_conds) s.add(T.holds(c, -1));
    for (TermId c : deferred_conds)
      for (int l : showing) s.add(T.holds(c, l));
    for (VarId v : evars) T.at(P_.var_term(v), -1);  // every fixed unknown gets its constant
    for (const auto& [v, e] : T.uniforms())
      if (std::find(evars.begin(), evars.end(), v) != evars.end())
        s.add(e == ctx.bv_val(fixed.value_of(v), static_cast<unsigned>(P_.var(v).width)));
    s.add(T.domains());
    std::string why;
    const z3::check_result cr = checked_check(s, &why);
    if (cr == z3::unsat) return std::nullopt;
    if (cr == z3::unknown) return limited_unknown(Engine::Enum, why);
    term::Evaluator ev(P_);
    for (VarId v : evars) ev.set(v, fixed.value_of(v));
    T.read_model(s.get_model(), ev);
    return confirm(which, Engine::Enum, ev);
  }

  // ---- Z3 over all 32 lanes ----
  // Whether `lane` may execute the access, for the one-lane queries of alignment and bounds. Where
  // that depends on loaded data, the conditions on it are left out: each lane's loaded values are
  // unconstrained in the encoding, so they seldom exclude anything, and they are what makes the
  // query slow (a spin-wait on an atomic's result before a loop). Fewer conditions only add lanes:
  // unsat still proves, and with loaded data in the activity nothing else is concluded from sat.
  z3::expr lane_may_run(Z3Terms& T, z3::context& ctx, int lane) {
    if (!P_.opaque(a_.active)) return T.holds(a_.active, lane);
    std::vector<TermId> all;
    conjuncts(P_, a_.active, all);
    z3::expr e = ctx.bool_val(true);
    for (TermId c : all)
      if (!P_.opaque(c)) e = e && T.holds(c, lane);
    return e;
  }

  SymbolicProperty z3_alignment() {
    z3::context& ctx = shared_context(limits_);
    Z3Terms T(ctx, P_, a_.narrowed);
    z3::solver s = bit_vector_solver(ctx, limits_);
    // One symbolic lane: the property is about each lane alone.
    const int sl = Z3Terms::symbolic(0);
    s.add(z3::ult(T.lane_var(0), ctx.bv_val(a_.address_lanes, 32)));
    s.add(lane_may_run(T, ctx, sl) && z3::urem(T.at(a_.address, sl), ctx.bv_val(a_.bytes, 32)) != ctx.bv_val(0, 32));
    s.add(T.domains());
    std::string why;
    const z3::check_result cr = checked_check(s, &why);
    if (cr == z3::unsat) return proven(Engine::Z3);
    if (cr == z3::unknown) return limited_unknown(Engine::Z3, why);
    term::Evaluator ev(P_);
    T.read_model(s.get_model(), ev);
    return confirm(Property::Alignment, Engine::Z3, ev);
  }

  SymbolicProperty z3_bounds() {
    z3::context& ctx = shared_context(limits_);
    Z3Terms T(ctx, P_, a_.narrowed);
    z3::solver s = bit_vector_solver(ctx, limits_);
    const z3::expr base = a_.base ? T.at(P_.var_term(*a_.base), -1) : ctx.bv_val(0, 32);
    const z3::expr extent = T.at(a_.extent, -1), bytes = ctx.bv_val(static_cast<uint64_t>(a_.bytes), 32);
    const int sl = Z3Terms::symbolic(0);
    s.add(z3::ult(T.lane_var(0), ctx.bv_val(a_.address_lanes, 32)));
    // Outside: no byte of the buffer can hold the access, or its offset is past the last that can.
    s.add(lane_may_run(T, ctx, sl) && (z3::ult(extent, bytes) || z3::ugt(T.at(a_.address, sl) - base, extent - bytes)));
    s.add(T.domains());
    std::string why;
    const z3::check_result cr = checked_check(s, &why);
    if (cr == z3::unsat) return proven(Engine::Z3);
    if (cr == z3::unknown) return limited_unknown(Engine::Z3, why);
    term::Evaluator ev(P_);
    T.read_model(s.get_model(), ev);
    return confirm(Property::Bounds, Engine::Z3, ev);
  }
  // Two lanes' accesses (at byte addresses ai, aj) meet on a bank: some word of one and some word
  // of the other share a bank, and for instructions that broadcast, the words differ.
  z3::expr words_clash(z3::context& ctx, const z3::expr& ai, const z3::expr& aj) const {
    const unsigned word_shift = static_cast<unsigned>(__builtin_ctz(static_cast<unsigned>(a_.arch->bank_bytes)));
    const uint64_t bank_mask = static_cast<uint64_t>(a_.arch->banks - 1);
    const int words = std::max(1, a_.bytes / a_.arch->bank_bytes);
    const z3::expr wi = z3::lshr(ai, ctx.bv_val(word_shift, 32)), wj = z3::lshr(aj, ctx.bv_val(word_shift, 32));
    z3::expr clash = ctx.bool_val(false);
    for (int x = 0; x < words; ++x)
      for (int y = 0; y < words; ++y) {
        const z3::expr u = wi + ctx.bv_val(x, 32), v = wj + ctx.bv_val(y, 32);
        z3::expr same_bank = ((u ^ v) & ctx.bv_val(bank_mask, 32)) == ctx.bv_val(0, 32);
        clash = clash || (a_.instr->broadcast ? (same_bank && u != v) : same_bank);
      }
    return clash;
  }

  // Some phase has two active lanes whose words share a bank (different words for instructions
  // that broadcast, any two accesses for cp.async), with every active lane aligned and inside
  // shared memory (the other obligations cover those).
  z3::expr conflict_in(Z3Terms& T, z3::context& ctx, bool merged) {
    z3::expr any = ctx.bool_val(false);
    for (const std::vector<int>& phase : hw::phase_lanes(*a_.instr, merged))
      for (size_t i = 0; i < phase.size(); ++i)
        for (size_t j = i + 1; j < phase.size(); ++j) {
          const int li = phase[i], lj = phase[j];
          if (li >= a_.address_lanes || lj >= a_.address_lanes) continue;
          any = any || (T.holds(a_.active, li) && T.holds(a_.active, lj) &&
                        words_clash(ctx, T.at(a_.address, li), T.at(a_.address, lj)));
        }
    return any;
  }

  // Two symbolic lanes of one phase that clash: the query for instructions that never merge.
  z3::expr pair_conflict(Z3Terms& T, z3::context& ctx) {
    const auto phases = hw::phase_lanes(*a_.instr, false);
    const unsigned per_phase_log2 = static_cast<unsigned>(__builtin_ctz(static_cast<unsigned>(phases.front().size())));
    const int li = Z3Terms::symbolic(0), lj = Z3Terms::symbolic(1);
    const z3::expr i = T.lane_var(0), j = T.lane_var(1);
    const z3::expr n = ctx.bv_val(a_.address_lanes, 32);
    z3::expr c = z3::ult(i, n) && z3::ult(j, n) && z3::ult(i, j) &&
                 z3::lshr(i, ctx.bv_val(per_phase_log2, 32)) == z3::lshr(j, ctx.bv_val(per_phase_log2, 32));
    for (const auto& [l, ai] : {std::pair{li, T.at(a_.address, li)}, std::pair{lj, T.at(a_.address, lj)}})
      c = c && T.holds(a_.active, l) && z3::urem(ai, ctx.bv_val(a_.bytes, 32)) == ctx.bv_val(0, 32) &&
          z3::ule(ai, ctx.bv_val(static_cast<uint64_t>(a_.arch->max_smem_bytes_per_block - a_.bytes), 32));
    return c && words_clash(ctx, T.at(a_.address, li), T.at(a_.address, lj));
  }

  SymbolicProperty z3_conflicts() {
    z3::context& ctx = shared_context(limits_);
    Z3Terms T(ctx, P_, a_.narrowed);
    z3::solver s = bit_vector_solver(ctx, limits_);
    // Unsat: no assignment of the unknowns conflicts; a model is a candidate, re-checked concretely.
    auto decide = [&]() -> SymbolicProperty {
      s.add(T.domains());
      std::string why;
      const z3::check_result cr = checked_check(s, &why);
      if (cr == z3::unsat) return proven(Engine::Z3);
      if (cr == z3::unknown) return limited_unknown(Engine::Z3, why);
      term::Evaluator ev(P_);
      T.read_model(s.get_model(), ev);
      if (!activity_known_) return unknown(Engine::Z3, activity_reason());
      return confirm(Property::Conflicts, Engine::Z3, ev);
    };
    // A warp is judged for conflicts only where every active lane is aligned and inside shared
    // memory (the other obligations report the rest), as the concrete re-check judges it.
    const z3::expr last = ctx.bv_val(static_cast<uint64_t>(a_.arch->max_smem_bytes_per_block - a_.bytes), 32);
    for (int l = 0; l < a_.address_lanes; ++l) {
      const z3::expr addr = T.at(a_.address, l);
      s.add(z3::implies(T.holds(a_.active, l),
                        z3::urem(addr, ctx.bv_val(a_.bytes, 32)) == ctx.bv_val(0, 32) && z3::ule(addr, last)));
    }
    if (!(a_.instr->mergeable && a_.arch->load_merging)) {
      s.add(pair_conflict(T, ctx));
      return decide();
    }
    // Whether a load merges depends on exactly which lanes run it (a part of the warp whose
    // partners are inactive merges vacuously, and is judged as one phase): with the activity
    // over-approximated, a proof for the modelled lanes says nothing of the lanes that really run.
    if (!activity_known_)
      return unknown(Engine::Z3, "which lanes execute this load is not modelled, and whether it merges depends on them");
    const z3::expr unmerged = conflict_in(T, ctx, false);
    // hw::loads_merge: every active lane whose partner is active reads the partner's address.
    z3::expr merges = ctx.bool_val(false);
    for (int x : hw::kMergePartnerXors) {
      z3::expr partners = ctx.bool_val(true);
      for (int l = 0; l < hw::kWarpLanes; ++l)
        partners = partners && z3::implies(T.holds(a_.active, l) && T.holds(a_.active, l ^ x),
                                           T.at(a_.address, l) == T.at(a_.address, l ^ x));
      merges = merges || partners;
    }
    const z3::expr merged = merges && conflict_in(T, ctx, true);
    s.add((!merges && unmerged) || merged);
    return decide();
  }

  // Whether every value of the unknowns makes the lanes that satisfy all of `conds` one run of
  // consecutive lanes: no lanes a < b < c with a and c satisfying them and b not. Decided by Z3 on
  // three symbolic lanes; anything but a proof counts as no.
  bool lanes_in_one_run(const std::vector<TermId>& conds) {
    try {
      z3::context& ctx = shared_context(limits_);
      Z3Terms T(ctx, P_, a_.narrowed);
      z3::solver s = bit_vector_solver(ctx, limits_);
      auto all_hold = [&](int k) {
        z3::expr e = ctx.bool_val(true);
        for (TermId c : conds) e = e && T.holds(c, Z3Terms::symbolic(k));
        return e;
      };
      s.add(z3::ult(T.lane_var(0), T.lane_var(1)) && z3::ult(T.lane_var(1), T.lane_var(2)) &&
            z3::ult(T.lane_var(2), ctx.bv_val(hw::kWarpLanes, 32)));
      s.add(all_hold(0) && !all_hold(1) && all_hold(2));
      s.add(T.domains());
      return checked_check(s, nullptr) == z3::unsat;
    } catch (const z3::exception&) {
      return false;
    }
  }

  // The model's per-lane unknowns chose which lanes execute; that choice cannot be evaluated.
  std::string activity_reason() const {
    return fmt::format("a conflict is possible when some of the lanes that may execute it do, but which lanes execute it "
                       "is not modelled ({})", P_.opaque(a_.active) ? P_.opaque_reason(a_.active) : "a divergent loop");
  }

  const SymbolicAccess& a_;
  const TermPool& P_;
  Engine engine_;
  const SolverLimits& limits_;
  std::vector<VarId> vars_;
  bool opaque_ = false, activity_known_ = true;
  std::optional<SymbolicProperty> residue_alignment_, conflicts_by_residues_;
  struct EveryLane {
    bool aligned = false, inside = false;  ///< proven by the every-lane pass
  };
  std::optional<EveryLane> every_lane_;
  std::optional<SymbolicResult> joint_;
};

// ---- verdicts that depend on the launch ----

// A refuted property proven under a narrower launch: the forms are tried weakest first, each
// narrowing only the free block extents (ptx::LaunchVars), and a condition is kept only where it
// admits a launch of at least one whole warp (a block of one thread proves most things vacuously).
class LaunchSearch {
 public:
  LaunchSearch(const SymbolicAccess& a, Engine engine, const SolverLimits& limits)
      : a_(a), engine_(engine), limits_(limits), free_(a.free_extents) {}

  std::optional<LaunchCondition> find(Property which, const SymbolicWitness& refutation) {
    seed_ = &refutation;
    const std::optional<VarId> x = free_[0];
    // 1. ntid.x a multiple of 2^k (whole warps along x at k = 5): the smallest k that proves it.
    if (x) {
      const term::VarDomain dx = base(*x);
      int lo = 1, hi = 0;
      while ((uint64_t{1} << (hi + 1)) <= dx.hi && hi < 10) ++hi;
      std::optional<int> best;
      while (lo <= hi) {
        const int k = (lo + hi) / 2;
        if (holds(which, {{*x, aligned(dx, k)}})) {
          best = k;
          hi = k - 1;
        } else {
          lo = k + 1;
        }
      }
      if (best) return condition({{*x, aligned(dx, *best)}});
    }
    // 2. A box: each free extent at most N, grown one extent at a time from a single warp along x;
    //    3. the same with whole warps along x.
    for (int k : {0, 5}) {
      std::map<VarId, term::VarDomain> box;
      for (size_t d = 0; d < 3; ++d)
        if (free_[d]) {
          term::VarDomain v = base(*free_[d]);
          v.hi = std::min<uint64_t>(v.hi, d == 0 ? static_cast<uint64_t>(hw::kWarpLanes) : 1);
          if (d == 0 && k > 0) v = aligned(v, k);
          box[*free_[d]] = v;
        }
      if (box.empty() || !admits_warp(box) || !holds(which, box)) continue;
      // Rows and planes first, x last: a 2-D tile's block is one warp wide far more often than one
      // row deep.
      for (size_t d : {size_t{1}, size_t{2}, size_t{0}}) {
        if (!free_[d]) continue;
        const VarId v = *free_[d];
        uint64_t good = box[v].hi, bad = base(v).hi + 1;
        while (bad - good > 1) {
          const uint64_t mid = good + (bad - good) / 2;
          auto trial = box;
          trial[v].hi = mid;
          if (holds(which, trial)) good = mid;
          else bad = mid;
        }
        box[v].hi = good;
      }
      return condition(box);
    }
    return std::nullopt;
  }

 private:
  term::VarDomain base(VarId v) const {
    auto it = a_.narrowed.find(v);
    if (it != a_.narrowed.end()) return it->second;
    const auto& info = a_.pool->var(v);
    return term::VarDomain{info.lo, info.hi, info.align_log2};
  }
  static term::VarDomain aligned(term::VarDomain d, int k) {
    d.align_log2 = std::max(d.align_log2, k);
    return d;
  }
  // The box leaves room for a launch of at least 32 threads.
  bool admits_warp(const std::map<VarId, term::VarDomain>& box) const {
    uint64_t threads = 1;
    for (size_t d = 0; d < 3; ++d)
      if (free_[d]) {
        const Domain dom = domain_of(box.at(*free_[d]), 32);
        if (dom.count == 0) return false;
        threads *= dom.first + (dom.count - 1) * dom.step;
      }
    return threads >= static_cast<uint64_t>(hw::kWarpLanes) || !free_[1];
  }
  bool holds(Property which, const std::map<VarId, term::VarDomain>& narrowed) {
    checkpoint();
    SymbolicAccess b = a_;
    for (const auto& [v, d] : narrowed) b.narrowed[v] = d;
    for (const auto& [v, d] : narrowed)
      if (domain_of(d, 32).count == 0) return false;
    Decider d(b, engine_, limits_);
    // Most candidates fail at a launch a few samples find: only the others need a proof.
    if (seed_ && d.sampled_violation(which, *seed_)) return false;
    return d.decide_property(which).verdict == Verdict::Proven;
  }
  LaunchCondition condition(const std::map<VarId, term::VarDomain>& narrowed) const {
    LaunchCondition c;
    c.narrowed = narrowed;
    std::vector<std::string> parts;
    for (size_t d = 0; d < 3; ++d) {
      if (!free_[d] || !narrowed.count(*free_[d])) continue;
      const term::VarDomain n = narrowed.at(*free_[d]), full = base(*free_[d]);
      const std::string name = std::string("ntid.") + "xyz"[d];
      const Domain values = domain_of(n, 32);
      const uint64_t last = values.first + (values.count - 1) * values.step;
      if (values.count == 1) {
        parts.push_back(fmt::format("{} == {}", name, values.first));
        continue;
      }
      std::string p;
      if (n.align_log2 > full.align_log2) p = fmt::format("{} is a multiple of {}", name, uint64_t{1} << n.align_log2);
      if (last < full.hi) p += p.empty() ? fmt::format("{} <= {}", name, last) : fmt::format(" and at most {}", last);
      if (!p.empty()) parts.push_back(p);
    }
    for (size_t k = 0; k < parts.size(); ++k) c.text += (k == 0 ? "" : k + 1 == parts.size() ? " and " : ", ") + parts[k];
    return c;
  }

  const SymbolicAccess& a_;
  Engine engine_;
  const SolverLimits& limits_;
  const std::array<std::optional<VarId>, 3>& free_;
  const SymbolicWitness* seed_ = nullptr;  ///< the refutation in the whole domain
};

}  // namespace

std::optional<uint64_t> z3_encoded_value(const term::TermPool& pool, term::TermId t, int lane,
                                         const std::map<term::VarId, uint64_t>& values) {
  z3::context& ctx = shared_context(SolverLimits{});
  const std::map<VarId, term::VarDomain> none;
  Z3Terms T(ctx, pool, none);
  const z3::expr e = T.at(t, lane);
  z3::expr_vector from(ctx), to(ctx);
  for (const auto& [v, x] : T.uniforms()) {
    auto it = values.find(v);
    from.push_back(x);
    to.push_back(ctx.bv_val(it == values.end() ? 0 : it->second, static_cast<unsigned>(pool.var(v).width)));
  }
  z3::expr value = e;
  value = value.substitute(from, to).simplify();
  uint64_t out = 0;
  if (!value.is_numeral_u64(out)) return std::nullopt;
  return out;
}

std::vector<VarId> access_unknowns(const SymbolicAccess& a) { return access_vars(a); }

SymbolicWitness warp_at(const SymbolicAccess& a, const std::map<std::string, int64_t>& values) {
  const TermPool& P = *a.pool;
  const std::vector<VarId> vars = access_vars(a);
  term::Evaluator ev(P);
  std::set<std::string> used;
  for (VarId v : vars) {
    const auto& info = P.var(v);
    if (info.kind != VarKind::Uniform)
      throw std::invalid_argument(fmt::format("the access depends on {}: {}", info.name,
                                              info.reason.empty() ? "a value no uniform assignment fixes" : info.reason));
    uint64_t x = domain_of(var_domain(a, v), info.width).first;  // the lowest value
    if (auto given = values.find(info.name); given != values.end()) {
      x = static_cast<uint64_t>(given->second) & term::mask_of(info.width);
      if (!in_var_domain(a, v, x)) {
        const term::VarDomain d = var_domain(a, v);
        const uint64_t step = uint64_t{1} << std::min(d.align_log2, 63);
        throw std::invalid_argument(fmt::format("{} = {} is outside its values: {}..{}{}", info.name, given->second, d.lo,
                                                std::min(d.hi, term::mask_of(info.width)),
                                                step > 1 ? fmt::format(", a multiple of {}", step) : ""));
      }
      used.insert(info.name);
    }
    ev.set(v, x);
  }
  for (const auto& [name, value] : values)
    if (!used.count(name)) {
      std::vector<std::string> names;
      for (VarId v : vars) names.push_back(P.var(v).name);
      throw std::invalid_argument(fmt::format("the access does not depend on '{}' (its unknowns: {})", name,
                                              names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "))));
    }
  const Warp w = evaluate_warp(a, ev);
  SymbolicWitness out;
  out.uniforms = uniform_values(P, vars, ev);
  out.addresses = w.addresses;
  out.active = w.active;
  out.extent = w.extent;
  if (a.instr && w.active) {
    if (auto norm = normalised(a, w.addresses, w.active)) {
      const hw::AccessCost cost = hw::smem_access_cost(*a.arch, *a.instr, *norm, w.active);
      out.wavefronts = cost.wavefronts;
      out.ideal = cost.ideal;
      out.merged = cost.merged;
    }
  }
  return out;
}

SymbolicResult decide_symbolic_access(const SymbolicAccess& access, Engine engine, const SolverLimits& limits) {
  renew_context();
  Decider d(access, engine, limits);
  SymbolicResult r;
  r.conflicts = d.decide_property(Property::Conflicts);
  r.alignment = d.decide_property(Property::Alignment);
  r.bounds = d.decide_property(Property::Bounds);
  const auto& free_extents = access.free_extents;
  const bool free = std::any_of(free_extents.begin(), free_extents.end(), [](const auto& v) { return v.has_value(); });
  if (!free || access.launches_stated) return r;
  LaunchSearch search(access, engine, limits);
  for (auto [p, which] : {std::pair{&r.conflicts, Property::Conflicts}, std::pair{&r.alignment, Property::Alignment},
                          std::pair{&r.bounds, Property::Bounds}}) {
    if (p->verdict != Verdict::Refuted) continue;
    try {
      Stopwatch clock;
      p->holds_when = search.find(which, *p->witness);
      p->time_ms += clock.elapsed_ms();
    } catch (const BudgetExhausted&) {
      // The search ran out of the run's budget: the refutation stands, with its launchable witness.
    }
  }
  return r;
}

}  // namespace lp
