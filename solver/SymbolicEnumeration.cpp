// The Decider's enumerations: alignment and bounds with every lane executing, the joint
// enumeration of every uniform value, and the residues (warp-relative configurations) with the
// uniform values that realise them.
#include <algorithm>
#include <bit>
#include <random>
#include <set>
#include <unordered_set>

#include "solver/SymbolicDecider.h"

namespace lp::symbolic_detail {

namespace {

// Points an exhaustive enumeration of the uniform unknowns may visit (each evaluates 32 lanes).
constexpr uint64_t kExhaustiveLimit = uint64_t{1} << 12;
// Warp-relative points (small unknowns x residues of the uniform offset) of the residue engine.
constexpr uint64_t kResidueLimit = uint64_t{1} << 16;
// Conflicting points the residue engine tries to realise before it gives up.
constexpr int kMaxRealisations = 64;
// Random values tried for a configuration before Z3 is asked for them.
constexpr int kRealisationSamples = 256;

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

// A warp of the residue engine found conflict-free: its active lanes and their addresses.
struct CleanWarp {
  hw::LaneMask active = 0;
  std::vector<int64_t> addresses;
  bool operator==(const CleanWarp&) const = default;
};
struct CleanWarpHash {
  size_t operator()(const CleanWarp& w) const {
    size_t h = std::hash<uint64_t>()(w.active);
    for (int64_t a : w.addresses) h = h * 1000003u ^ std::hash<int64_t>()(a);
    return h;
  }
};
// Clean warps remembered at most (about 300 bytes each).
constexpr size_t kCleanWarpsKept = size_t{1} << 14;

}  // namespace

// ---- alignment and bounds with every lane executing ----
// Whether every lane below address_lanes is aligned (or in bounds) for every value of the
// unknowns the address, the extent and the base depend on: a superset of the warps that run,
// since which lanes execute (exact, over-approximated or depending on loaded data) only removes
// lanes. So a pass without a violation proves the property; one with a violation proves nothing
// (those lanes may not run) and the other engines decide. One pass answers both properties.
bool Decider::every_lane_holds(Property which) {
  if (!every_lane_) {
    every_lane_ = EveryLane{false, false};
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
std::optional<Decider::EveryLanePoints> Decider::every_lane_points() const {
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
bool Decider::base_is_a_summand() const {
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

void Decider::every_lane_pass(const EveryLanePoints& points) {
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
bool Decider::enumerable() const {
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
const SymbolicResult* Decider::joint() {
  if (!enumerable()) return nullptr;
  if (!joint_) {
    joint_.emplace();
    exhaustive(*joint_, a_.instr != nullptr);
  }
  return &*joint_;
}

void Decider::exhaustive(SymbolicResult& r, bool want_conflicts) {
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

// ---- residues: the warp's addresses are a lane part over small unknowns plus a uniform offset ----
// A lane condition over unknowns with few values is evaluated in each configuration; one over
// unknowns with many (the block's size in `t < ntid.x*ntid.y*ntid.z`) is deferred: the
// configurations assume it holds, which for an instruction that never merges can only add
// lanes, and so wavefronts (a proof covers every subset); a conflict found is realised with it
// holding at the lanes that show it. For such an instruction a condition over unknowns the
// address does not have is deferred too: enumerating them (a block extent's 1024 values) would
// only split full warps into partial ones.
// residues() classifies its lane conditions here: the unknowns of those it evaluates join `small`,
// and their values multiply `points`.
void Decider::classify_lane_conditions(const std::vector<TermId>& lane_conds, bool mergeable, std::set<VarId>& small,
                                       uint64_t& points, std::vector<TermId>& evaluated_conds,
                                       std::vector<TermId>& deferred_conds) const {
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
}

SymbolicProperty Decider::residues() {
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
  const bool mergeable = a_.instr && a_.instr->mergeable && a_.arch->load_merging;
  std::vector<TermId> evaluated_conds, deferred_conds;
  classify_lane_conditions(lane_conds, mergeable, small, points, evaluated_conds, deferred_conds);
  // Whether a load merges depends on exactly which lanes run it. When the deferred conditions
  // always select one run of consecutive lanes (a block-stride loop's `i < n`, `t < ntid`), every
  // run is tried: a proof then covers the lanes that really run.
  const bool split_runs = !deferred_conds.empty() && mergeable && activity_known_;
  if (!deferred_conds.empty() && mergeable && !(split_runs && lanes_in_one_run(deferred_conds)))
    return unknown(Engine::Enum, "which lanes execute this load depends on unknowns with many values, and whether it merges depends on them");
  std::vector<VarId> evars(small.begin(), small.end());
  std::vector<Domain> doms;
  for (VarId v : evars) doms.push_back(domain(v));
  // Moving every lane's address by a multiple of the bank width rotates the banks, which keeps
  // each phase's cost and whether loads merge; alignment needs the offset modulo the access's
  // bytes. So the uniform offset matters modulo the larger of the two (a power of two, so that
  // the 32-bit wrap-around keeps it).
  const int64_t period =
      static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(std::max<int64_t>(a_.bytes, a_.arch->bank_bytes))));
  int tz = __builtin_ctzll(sum.constant | (uint64_t{1} << 32));
  for (const auto& [atom, coef] : uniform_atoms)
    tz = std::min(tz, std::min(32, P_.trailing_zeros(atom) + __builtin_ctzll(coef | (uint64_t{1} << 32))));
  const int64_t step = tz >= 31 ? period : std::min<int64_t>(period, int64_t{1} << tz);
  const int64_t residue_count = period / step;
  if (points * static_cast<uint64_t>(residue_count) > kResidueLimit)
    return unknown(Engine::Enum, "too many warp-relative configurations to enumerate");
  term::Evaluator ev(P_);
  Odometer at{evars, doms};
  // Configurations often give the same warp (the lane part and the mask alike): a warp found
  // conflict-free is not costed again.
  std::unordered_set<CleanWarp, CleanWarpHash> clean;
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
        CleanWarp warp{mask, addrs};
        if (clean.count(warp)) continue;
        if (split_runs) {
          for (int first = 0; first < hw::kWarpLanes; ++first)
            for (int last = first; last < hw::kWarpLanes; ++last) {
              const hw::LaneMask run =
                  (hw::lanes_below(last + 1) >> first) << first;
              if ((mask & run) != 0 && conflict_of(a_, addrs, mask & run))
                return unknown(Engine::Enum, "a run of the lanes that may execute this load conflicts; whether exactly "
                                             "those lanes run it is not decided here");
            }
          if (clean.size() < kCleanWarpsKept) clean.insert(std::move(warp));
          continue;
        }
        auto c = conflict_of(a_, addrs, mask);
        if (!c) {
          if (clean.size() < kCleanWarpsKept) clean.insert(std::move(warp));
          continue;
        }
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
std::optional<SymbolicProperty> Decider::sample(const std::vector<VarId>& evars, term::Evaluator& fixed,
                                                const std::vector<std::pair<TermId, uint64_t>>& uniform_atoms,
                                                uint64_t constant, const std::vector<TermId>& uniform_conds,
                                                const std::vector<TermId>& deferred_conds, const std::vector<int>& showing,
                                                uint64_t residue, int64_t period, Property which) {
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
std::optional<SymbolicProperty> Decider::realise(const std::vector<VarId>& evars, term::Evaluator& fixed,
                                                 const std::vector<std::pair<TermId, uint64_t>>& uniform_atoms,
                                                 uint64_t constant, const std::vector<TermId>& uniform_conds,
                                                 const std::vector<TermId>& deferred_conds, const std::vector<int>& showing,
                                                 uint64_t residue, int64_t period, Property which) {
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

}  // namespace lp::symbolic_detail
