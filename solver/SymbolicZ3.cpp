// The Z3 side of the decision of symbolic accesses: one context per thread, the bit-vector solver,
// the encoding of terms, and the Decider's queries over all 32 lanes.
#include "solver/SymbolicZ3.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "frontend/term/LaneOrder.h"
#include "solver/SymbolicDecider.h"

namespace lp::symbolic_detail {

using term::Op;
using term::VarKind;

// ---- Z3: one context per thread, reused ----

namespace {

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

}  // namespace

z3::context& shared_context(const SolverLimits& limits) {
  if (!t_context.context || ++t_context.queries > kQueriesPerContext) {
    t_context.context.reset();
    t_context.context = std::make_unique<Z3Context>(limits);
    t_context.queries = 0;
  }
  return (*t_context.context)();
}

void renew_context() { t_context.context.reset(); }

namespace {

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

}  // namespace

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

z3::expr Z3Terms::at(TermId t, int lane) {
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

z3::expr Z3Terms::lane_var(int k) {
  while (lanes_.size() <= static_cast<size_t>(k))
    lanes_.push_back(ctx_.bv_const(fmt::format("lane{}", lanes_.size()).c_str(), 32));
  return lanes_[static_cast<size_t>(k)];
}

z3::expr Z3Terms::domains() {
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

void Z3Terms::read_model(const z3::model& m, term::Evaluator& ev) {
  for (auto& [v, e] : uniforms_) {
    z3::expr val = m.eval(e, true);
    uint64_t x = 0;
    if (val.is_numeral_u64(x)) ev.set(v, x);
  }
}

z3::expr Z3Terms::var(VarId v, int lane) {
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

std::optional<std::pair<z3::expr, z3::expr>> Z3Terms::split(TermId t, int s, int lane) {
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

int Z3Terms::alignment_of(TermId t) const {
  const term::Node& n = P_.node(t);
  if (n.op != Op::Var) return 0;
  const VarId v = static_cast<VarId>(n.value);
  const auto& info = P_.var(v);
  if (info.kind != VarKind::Uniform) return 0;
  auto it = narrowed_.find(v);
  return std::min(it != narrowed_.end() ? it->second.align_log2 : info.align_log2, info.width);
}

// ---- Z3 over all 32 lanes ----
// Whether `lane` may execute the access, for the one-lane queries of alignment and bounds. Where
// that depends on loaded data, the conditions on it are left out: each lane's loaded values are
// unconstrained in the encoding, so they seldom exclude anything, and they are what makes the
// query slow (a spin-wait on an atomic's result before a loop). Fewer conditions only add lanes:
// unsat still proves, and with loaded data in the activity nothing else is concluded from sat.
z3::expr Decider::lane_may_run(Z3Terms& T, z3::context& ctx, int lane) {
  if (!P_.opaque(a_.active)) return T.holds(a_.active, lane);
  std::vector<TermId> all;
  conjuncts(P_, a_.active, all);
  z3::expr e = ctx.bool_val(true);
  for (TermId c : all)
    if (!P_.opaque(c)) e = e && T.holds(c, lane);
  return e;
}

SymbolicProperty Decider::z3_alignment() {
  z3::context& ctx = shared_context(limits_);
  Z3Terms T(ctx, P_, a_.narrowed);
  z3::solver s = bit_vector_solver(ctx, limits_);
  // One symbolic lane: the property is about each lane alone.
  const int sl = Z3Terms::symbolic(0);
  s.add(z3::ult(T.lane_var(0), ctx.bv_val(a_.address_lanes, 32)));
  s.add(lane_may_run(T, ctx, sl) && z3::urem(T.at(a_.address, sl), ctx.bv_val(a_.bytes, 32)) != ctx.bv_val(0, 32));
  return z3_answer(s, T, Property::Alignment);
}

SymbolicProperty Decider::z3_bounds() {
  z3::context& ctx = shared_context(limits_);
  Z3Terms T(ctx, P_, a_.narrowed);
  z3::solver s = bit_vector_solver(ctx, limits_);
  const z3::expr base = a_.base ? T.at(P_.var_term(*a_.base), -1) : ctx.bv_val(0, 32);
  const z3::expr extent = T.at(a_.extent, -1), bytes = ctx.bv_val(static_cast<uint64_t>(a_.bytes), 32);
  const int sl = Z3Terms::symbolic(0);
  s.add(z3::ult(T.lane_var(0), ctx.bv_val(a_.address_lanes, 32)));
  // Outside: no byte of the buffer can hold the access, or its offset is past the last that can.
  s.add(lane_may_run(T, ctx, sl) && (z3::ult(extent, bytes) || z3::ugt(T.at(a_.address, sl) - base, extent - bytes)));
  return z3_answer(s, T, Property::Bounds);
}

// A query's answer, its violation asserted in `s`: proven when no assignment of the domains
// violates `which`, else the model's witness, re-checked by evaluation. A conflict's witness is
// only confirmed where it is known exactly which lanes run (one lane's alignment or bounds is
// judged by that lane alone).
SymbolicProperty Decider::z3_answer(z3::solver& s, Z3Terms& T, Property which) {
  s.add(T.domains());
  std::string why;
  const z3::check_result cr = checked_check(s, &why);
  if (cr == z3::unsat) return proven(Engine::Z3);
  if (cr == z3::unknown) return limited_unknown(Engine::Z3, why);
  if (which == Property::Conflicts && !activity_known_) return unknown(Engine::Z3, activity_reason());
  term::Evaluator ev(P_);
  T.read_model(s.get_model(), ev);
  return confirm(which, Engine::Z3, ev);
}

// The warp's addresses and activity as the shared bank encoding takes them (BankEncoding.h).
bank_encoding::WarpTerms Decider::warp_terms(Z3Terms& T, z3::context& ctx) {
  bank_encoding::WarpTerms warp;
  for (int l = 0; l < hw::kWarpLanes; ++l) {
    warp.address.push_back(T.at(a_.address, l));
    warp.active.push_back(l < a_.address_lanes ? T.holds(a_.active, l) : ctx.bool_val(false));
  }
  return warp;
}

// Two symbolic lanes of one phase that clash: the query for instructions that never merge.
z3::expr Decider::pair_conflict(Z3Terms& T, z3::context& ctx) {
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
  return c && bank_encoding::words_clash(*a_.arch, *a_.instr, T.at(a_.address, li), T.at(a_.address, lj));
}

SymbolicProperty Decider::z3_conflicts() {
  z3::context& ctx = shared_context(limits_);
  Z3Terms T(ctx, P_, a_.narrowed);
  z3::solver s = bit_vector_solver(ctx, limits_);
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
    return z3_answer(s, T, Property::Conflicts);
  }
  // Whether a load merges depends on exactly which lanes run it (a part of the warp whose
  // partners are inactive merges vacuously, and is judged as one phase): with the activity
  // over-approximated, a proof for the modelled lanes says nothing of the lanes that really run.
  if (!activity_known_)
    return unknown(Engine::Z3, "which lanes execute this load is not modelled, and whether it merges depends on them");
  const bank_encoding::WarpTerms warp = warp_terms(T, ctx);
  const z3::expr unmerged = bank_encoding::some_phase_conflicts(*a_.arch, *a_.instr, warp, false);
  const z3::expr merges = bank_encoding::loads_merge(*a_.arch, *a_.instr, warp);
  const z3::expr merged = merges && bank_encoding::some_phase_conflicts(*a_.arch, *a_.instr, warp, true);
  s.add((!merges && unmerged) || merged);
  return z3_answer(s, T, Property::Conflicts);
}

// Whether every value of the unknowns makes the lanes that satisfy all of `conds` one run of
// consecutive lanes: no lanes a < b < c with a and c satisfying them and b not. Decided by the
// conditions' shape where it shows it (thresholds on the thread's index), else by Z3 on three
// symbolic lanes; anything but a proof counts as no.
bool Decider::lanes_in_one_run(const std::vector<TermId>& conds) {
  if (std::all_of(conds.begin(), conds.end(), [&](TermId c) { return term::one_run_by_shape(P_, c); })) return true;
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

}  // namespace lp::symbolic_detail
