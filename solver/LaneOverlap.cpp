#include "solver/LaneOverlap.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "analyzer/support/Governor.h"
#include "frontend/term/LaneOrder.h"
#include "solver/Engines.h"
#include "solver/SymbolicDecider.h"
#include "solver/SymbolicZ3.h"

namespace lp {

using symbolic_detail::Domain;
using symbolic_detail::Z3Terms;
using term::TermPool;
using term::VarId;

std::optional<std::pair<int, int>> colliding_lanes(const std::vector<int64_t>& addresses, hw::LaneMask active) {
  const int lanes = static_cast<int>(std::min<size_t>(addresses.size(), hw::kWarpLanes));
  for (int a = 0; a < lanes; ++a) {
    if (!((active >> a) & 1)) continue;
    for (int b = a + 1; b < lanes; ++b)
      if (((active >> b) & 1) && addresses[static_cast<size_t>(a)] == addresses[static_cast<size_t>(b)]) return std::pair{a, b};
  }
  return std::nullopt;
}

bool LaneOverlapKey::operator<(const LaneOverlapKey& o) const {
  // The fields in one order; VarDomain has no ordering of its own, so the domains compare as tuples.
  auto ordered = [](const LaneOverlapKey& k) {
    std::vector<std::tuple<VarId, uint64_t, uint64_t, int>> domains;
    for (const auto& [var, d] : k.narrowed) domains.emplace_back(var, d.lo, d.hi, d.align_log2);
    return std::tuple{k.lane_terms, k.active, k.active_exact, k.address_lanes, domains};
  };
  return ordered(*this) < ordered(o);
}

LaneOverlapKey lane_overlap_key(const SymbolicAccess& a) {
  const TermPool& P = *a.pool;
  LaneOverlapKey k;
  for (const auto& [atom, coef] : P.sum_of(a.address).atoms) {
    const std::vector<VarId> vars = P.vars_of(atom);
    if (std::any_of(vars.begin(), vars.end(), [&](VarId v) { return v == P.lane_var() || P.var(v).kind == term::VarKind::Opaque; }))
      k.lane_terms.emplace_back(atom, coef);
  }
  std::sort(k.lane_terms.begin(), k.lane_terms.end());
  k.active = a.active;
  k.active_exact = a.active_exact;
  k.address_lanes = a.address_lanes;
  k.narrowed = a.narrowed;
  return k;
}

namespace {

// Lane evaluations the auto engine spends on enumeration before it asks Z3.
constexpr int64_t kAutoEnumeration = int64_t{1} << 16;

LaneOverlap answer(Verdict v, Engine e, std::string reason, const Stopwatch& clock) {
  LaneOverlap o;
  o.verdict = v;
  o.engine = e;
  o.reason = std::move(reason);
  o.time_ms = clock.elapsed_ms();
  return o;
}

std::string summary(const SymbolicWitness& w, std::pair<int, int> lanes) {
  return fmt::format("lanes {} and {} both touch byte address {}", lanes.first, lanes.second,
                     std::max(w.addresses[static_cast<size_t>(lanes.first)], w.addresses[static_cast<size_t>(lanes.second)]));
}

// The values `w` gives the unknowns `a` depends on (warp_at's input): a witness of another access,
// or of this one over a wider domain, may name unknowns `a` does not have.
std::map<std::string, int64_t> values_for(const SymbolicAccess& a, const SymbolicWitness& w) {
  std::map<std::string, int64_t> values;
  for (VarId v : access_unknowns(a))
    for (const auto& [name, value] : w.uniforms)
      if (name == a.pool->var(v).name) values[name] = value;
  return values;
}

// The warp at `values` (by the unknowns' names), as a refutation when two of its lanes overlap and
// the model knows both the lanes that run and the values; as unknown when it cannot say; nullopt
// when the warp has no overlap.
std::optional<LaneOverlap> judge_warp(const SymbolicAccess& a, const std::map<std::string, int64_t>& values, Engine e,
                                      const Stopwatch& clock) {
  SymbolicWitness w = warp_at(a, values);
  const auto lanes = colliding_lanes(w.addresses, w.active & hw::lanes_below(a.address_lanes));
  if (!lanes) return std::nullopt;
  if (!a.active_exact)
    return answer(Verdict::Unknown, e,
                  summary(w, *lanes) + " when every lane that may execute the instruction does, but which lanes execute it "
                                       "is not modelled (a divergent loop)",
                  clock);
  const TermPool& P = *a.pool;
  for (VarId v : access_unknowns(a))
    if (P.var(v).over_approximated) {
      const auto it = values.find(P.var(v).name);
      return answer(Verdict::Unknown, e,
                    fmt::format("{} only with {} = {}, {}", summary(w, *lanes), P.var(v).name,
                                it != values.end() ? it->second : 0, P.var(v).reason),
                    clock);
    }
  LaneOverlap o = answer(Verdict::Refuted, e, summary(w, *lanes), clock);
  o.lanes = *lanes;
  o.witness = std::move(w);
  return o;
}

LaneOverlap by_z3(const SymbolicAccess& a, const SolverLimits& limits, const Stopwatch& clock) {
  symbolic_detail::renew_context();
  const TermPool& P = *a.pool;
  z3::context& ctx = symbolic_detail::shared_context(limits);
  Z3Terms T(ctx, P, a.narrowed);
  const int li = Z3Terms::symbolic(0), lj = Z3Terms::symbolic(1);
  const z3::expr n = ctx.bv_val(a.address_lanes, 32);
  const z3::expr two_lanes_one_address = z3::ult(T.lane_var(0), n) && z3::ult(T.lane_var(1), n) &&
                                         z3::ult(T.lane_var(0), T.lane_var(1)) && T.at(a.address, li) == T.at(a.address, lj);
  std::string why;
  // Every lane running proves more than is asked: where the address alone sets the lanes apart
  // (a thread index times the element size), this small query decides it without the activity,
  // whose loop conditions can cost Z3 seconds and a gigabyte.
  if (term::lane_order(P, a.address) == term::LaneOrder::Increasing) {
    z3::solver every_lane = symbolic_detail::bit_vector_solver(ctx, limits);
    every_lane.add(two_lanes_one_address);
    every_lane.add(T.domains());
    if (checked_check(every_lane, &why) == z3::unsat) return answer(Verdict::Proven, Engine::Z3, "", clock);
  }
  z3::solver s = symbolic_detail::bit_vector_solver(ctx, limits);
  s.add(two_lanes_one_address);
  // A lane may run where the activity's modelled conjuncts hold: more lanes than run, so unsat
  // still proves the property, and a model is re-checked on the warp's evaluation.
  std::vector<term::TermId> conds;
  symbolic_detail::conjuncts(P, a.active, conds);
  for (term::TermId c : conds)
    if (!P.opaque(c)) s.add(T.holds(c, li) && T.holds(c, lj));
  s.add(T.domains());  // every unknown's, once all are encoded
  const z3::check_result cr = checked_check(s, &why);
  if (cr == z3::unsat) return answer(Verdict::Proven, Engine::Z3, "", clock);
  if (cr == z3::unknown) {
    LaneOverlap o = answer(Verdict::Unknown, Engine::Z3, why, clock);
    o.limited = true;
    return o;
  }
  std::map<std::string, int64_t> values;
  const z3::model m = s.get_model();
  for (const auto& [v, e] : T.uniforms()) {
    uint64_t x = 0;
    if (m.eval(e, true).is_numeral_u64(x)) values[P.var(v).name] = term::to_signed(x, P.var(v).width);
  }
  try {
    if (auto judged = judge_warp(a, values, Engine::Z3, clock)) return *judged;
  } catch (const std::invalid_argument& e) {
    return answer(Verdict::Unknown, Engine::Z3, e.what(), clock);
  }
  // The model's lanes overlap only through values the evaluation sets otherwise (loaded data).
  return answer(Verdict::Unknown, Engine::Z3,
                "two lanes may touch one byte for values the model does not know (" +
                    (P.opaque(a.address) ? P.opaque_reason(a.address) : P.opaque_reason(a.active)) + ")",
                clock);
}

LaneOverlap by_enumeration(const SymbolicAccess& a, const SolverLimits& limits, const Stopwatch& clock) {
  const TermPool& P = *a.pool;
  const std::vector<VarId> vars = access_unknowns(a);
  std::vector<Domain> doms;
  int64_t points = 1;
  for (VarId v : vars) {
    if (P.var(v).kind != term::VarKind::Uniform)
      return answer(Verdict::Unknown, Engine::Enum,
                    fmt::format("the addresses depend on {}, which no enumeration of uniform values fixes ({})", P.var(v).name,
                                P.var(v).reason),
                    clock);
    doms.push_back(symbolic_detail::domain_of(var_domain(a, v), P.var(v).width));
    if (doms.back().count == 0) return answer(Verdict::Proven, Engine::Enum, "", clock);  // no values: no warp
    if (doms.back().count > limits.max_enumeration / hw::kWarpLanes / points)
      return answer(Verdict::Unknown, Engine::Enum,
                    fmt::format("more than {} lane evaluations to enumerate", limits.max_enumeration), clock);
    points *= static_cast<int64_t>(doms.back().count);
  }
  std::vector<uint64_t> at(vars.size(), 0);
  for (int64_t p = 0; p < points; ++p) {
    checkpoint();
    std::map<std::string, int64_t> values;
    for (size_t k = 0; k < vars.size(); ++k)
      values[P.var(vars[k]).name] = term::to_signed(doms[k].first + at[k] * doms[k].step, P.var(vars[k]).width);
    try {
      if (auto judged = judge_warp(a, values, Engine::Enum, clock)) return *judged;
    } catch (const std::invalid_argument& e) {
      return answer(Verdict::Unknown, Engine::Enum, e.what(), clock);
    }
    for (size_t k = 0; k < vars.size() && ++at[k] == doms[k].count; ++k) at[k] = 0;
  }
  return answer(Verdict::Proven, Engine::Enum, "", clock);
}

LaneOverlap decide_in_domain(const SymbolicAccess& access, Engine engine, const SolverLimits& limits) {
  const Stopwatch clock;
  try {
    switch (engine) {
      case Engine::Enum: return by_enumeration(access, limits, clock);
      case Engine::F2: return answer(Verdict::Unknown, Engine::F2, "the F2 engine does not decide lane overlaps", clock);
      case Engine::Auto: {
        // Few assignments: evaluating each warp is faster than a Z3 query; else, or where no
        // enumeration decides, Z3.
        SolverLimits few = limits;
        few.max_enumeration = std::min(limits.max_enumeration, kAutoEnumeration);
        LaneOverlap o = by_enumeration(access, few, clock);
        return o.verdict != Verdict::Unknown ? o : by_z3(access, limits, clock);
      }
      case Engine::Z3: return by_z3(access, limits, clock);
    }
  } catch (const BudgetExhausted& e) {
    LaneOverlap o = answer(Verdict::Unknown, engine, e.what(), clock);
    o.limited = true;
    return o;
  } catch (const z3::exception& e) {
    LaneOverlap o = answer(Verdict::Unknown, Engine::Z3, e.msg(), clock);
    o.limited = true;
    return o;
  }
  return answer(Verdict::Unknown, engine, "internal: unknown engine", clock);
}

// Whether a few warps of `narrowed` collide: the refutation's values with each free block extent at
// the ends of its narrowed domain and one step inside them. Most launch conditions the search tries
// fail at such a launch, and then need no proof.
bool sampled_collision(const SymbolicAccess& narrowed, const SymbolicWitness& seed) {
  const TermPool& P = *narrowed.pool;
  const std::map<std::string, int64_t> base = values_for(narrowed, seed);
  std::vector<std::pair<std::string, std::vector<int64_t>>> choices;
  for (const auto& e : narrowed.free_extents) {
    if (!e) continue;
    const Domain d = symbolic_detail::domain_of(var_domain(narrowed, *e), P.var(*e).width);
    if (d.count == 0) return false;
    const uint64_t last = d.first + (d.count - 1) * d.step;
    std::vector<int64_t> xs{static_cast<int64_t>(d.first), static_cast<int64_t>(last)};
    if (d.count > 2) xs.insert(xs.end(), {static_cast<int64_t>(d.first + d.step), static_cast<int64_t>(last - d.step)});
    choices.emplace_back(P.var(*e).name, xs);
  }
  std::vector<size_t> at(choices.size(), 0);
  for (bool more = true; more;) {
    std::map<std::string, int64_t> values = base;
    for (size_t k = 0; k < choices.size(); ++k) values[choices[k].first] = choices[k].second[at[k]];
    try {
      const SymbolicWitness w = warp_at(narrowed, values);
      if (colliding_lanes(w.addresses, w.active & hw::lanes_below(narrowed.address_lanes))) return true;
    } catch (const std::invalid_argument&) {
      // A value outside its unknown's narrowed values (a warp past a smaller block): no sample.
    }
    more = false;
    for (size_t k = 0; k < at.size() && !more; ++k) {
      if (++at[k] < choices[k].second.size()) more = true;
      else at[k] = 0;
    }
  }
  return false;
}

}  // namespace

Outcome decide_one_value(const SymbolicAccess& access, const std::vector<term::TermId>& stored, const SolverLimits& limits) {
  const Stopwatch clock;
  const TermPool& P = *access.pool;
  Outcome o;
  o.engine = Engine::Z3;
  o.verdict = Verdict::Unknown;
  if (stored.empty() || std::any_of(stored.begin(), stored.end(), [&](term::TermId t) { return P.lane_dependent(t); })) {
    o.reason = "the lanes' data is not one lane-free value";
    return o;
  }
  try {
    symbolic_detail::renew_context();
    z3::context& ctx = symbolic_detail::shared_context(limits);
    Z3Terms T(ctx, P, access.narrowed);
    z3::solver s = symbolic_detail::bit_vector_solver(ctx, limits);
    const int li = Z3Terms::symbolic(0), lj = Z3Terms::symbolic(1);
    z3::expr differs = ctx.bool_val(false);
    for (term::TermId t : stored) differs = differs || T.at(t, li) != T.at(t, lj);
    s.add(z3::ult(T.lane_var(0), T.lane_var(1)) && z3::ult(T.lane_var(1), ctx.bv_val(hw::kWarpLanes, 32)) && differs);
    s.add(T.domains());
    if (checked_check(s, &o.reason) == z3::unsat) o.verdict = Verdict::Proven;
  } catch (const BudgetExhausted& e) {
    o.reason = e.what();
  } catch (const z3::exception& e) {
    o.reason = e.msg();
  }
  o.time_ms = clock.elapsed_ms();
  return o;
}

LaneOverlap lane_overlap_of_twin(const SymbolicAccess& access, const LaneOverlap& decided) {
  if (decided.verdict != Verdict::Refuted) return decided;
  const Stopwatch clock;
  const std::map<std::string, int64_t> values = values_for(access, *decided.witness);
  try {
    if (auto judged = judge_warp(access, values, decided.engine, clock)) {
      judged->holds_when = decided.holds_when;
      return *judged;
    }
  } catch (const std::invalid_argument& e) {
    return answer(Verdict::Unknown, decided.engine, e.what(), clock);
  }
  return answer(Verdict::Unknown, decided.engine, "internal: a twin's witness does not re-check", clock);
}

LaneOverlap decide_lane_overlap(const SymbolicAccess& access, Engine engine, const SolverLimits& limits) {
  LaneOverlap o = decide_in_domain(access, engine, limits);
  const auto& free = access.free_extents;
  if (o.verdict != Verdict::Refuted ||
      std::none_of(free.begin(), free.end(), [](const auto& v) { return v.has_value(); }))
    return o;
  try {
    const Stopwatch clock;
    const SymbolicWitness seed = *o.witness;
    o.holds_when = find_launch_condition(access, [&](const SymbolicAccess& narrowed) {
      return !sampled_collision(narrowed, seed) && decide_in_domain(narrowed, engine, limits).verdict == Verdict::Proven;
    });
    o.time_ms += clock.elapsed_ms();
  } catch (const BudgetExhausted&) {
    // The search ran out of the run's budget: the refutation stands, with its launchable witness.
  }
  return o;
}

}  // namespace lp
