#include "solver/SymbolicAccess.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "hw/HwError.h"
#include "solver/SymbolicDecider.h"

namespace lp::symbolic_detail {

using term::Op;
using term::VarKind;

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

Warp evaluate_warp(const SymbolicAccess& a, term::Evaluator& ev, const std::function<void(int)>& per_lane, bool every_lane) {
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

std::vector<VarId> access_vars(const SymbolicAccess& a) {
  const TermPool& P = *a.pool;
  std::set<VarId> vs;
  for (TermId t : {a.address, a.active, a.extent})
    for (VarId v : P.vars_of(t))
      if (P.var(v).kind != VarKind::Lane) vs.insert(v);
  if (a.base) vs.insert(*a.base);
  return {vs.begin(), vs.end()};
}

// ---- verdicts that depend on the launch ----

namespace {

// A refuted property proven under a narrower launch: the forms are tried weakest first, each
// narrowing only the free block extents (ptx::LaunchVars), and a condition is kept only where it
// admits a launch of at least one whole warp (a block of one thread proves most things vacuously).
class LaunchSearch {
 public:
  LaunchSearch(const SymbolicAccess& a, const std::function<bool(const SymbolicAccess&)>& proven)
      : a_(a), proven_(proven), free_(a.free_extents) {}

  std::optional<LaunchCondition> find() {
    const std::optional<VarId> x = free_[0];
    // 1. ntid.x a multiple of 2^k (whole warps along x at k = 5): the smallest k that proves it.
    if (x) {
      const term::VarDomain dx = base(*x);
      int lo = 1, hi = 0;
      while ((uint64_t{1} << (hi + 1)) <= dx.hi && hi < 10) ++hi;
      std::optional<int> best;
      while (lo <= hi) {
        const int k = (lo + hi) / 2;
        if (holds({{*x, aligned(dx, k)}})) {
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
      if (box.empty() || !admits_warp(box) || !holds(box)) continue;
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
          if (holds(trial)) good = mid;
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
  bool holds(const std::map<VarId, term::VarDomain>& narrowed) {
    checkpoint();
    SymbolicAccess b = a_;
    for (const auto& [v, d] : narrowed) b.narrowed[v] = d;
    for (const auto& [v, d] : narrowed)
      if (domain_of(d, 32).count == 0) return false;
    return proven_(b);
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
  const std::function<bool(const SymbolicAccess&)>& proven_;
  const std::array<std::optional<VarId>, 3>& free_;
};

}  // namespace

}  // namespace lp::symbolic_detail

namespace lp {

using namespace symbolic_detail;

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

std::optional<LaunchCondition> find_launch_condition(const SymbolicAccess& access,
                                                    const std::function<bool(const SymbolicAccess&)>& proven) {
  return LaunchSearch(access, proven).find();
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
  if (!free) return r;
  for (auto [p, which] : {std::pair{&r.conflicts, Property::Conflicts}, std::pair{&r.alignment, Property::Alignment},
                          std::pair{&r.bounds, Property::Bounds}}) {
    if (p->verdict != Verdict::Refuted) continue;
    const SymbolicWitness& seed = *p->witness;
    const Property property = which;
    try {
      Stopwatch clock;
      p->holds_when = find_launch_condition(access, [&](const SymbolicAccess& narrowed) {
        Decider n(narrowed, engine, limits);
        // Most candidates fail at a launch a few samples find: only the others need a proof.
        return !n.sampled_violation(property, seed) && n.decide_property(property).verdict == Verdict::Proven;
      });
      p->time_ms += clock.elapsed_ms();
    } catch (const BudgetExhausted&) {
      // The search ran out of the run's budget: the refutation stands, with its launchable witness.
    }
  }
  return r;
}

}  // namespace lp
