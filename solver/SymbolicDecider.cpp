// The Decider's sampling and obligations: samples of the domain, the confirmation, re-check and
// minimisation of refutations (the enumerations and Z3 queries are SymbolicEnumeration.cpp's and
// SymbolicZ3.cpp's).
#include "solver/SymbolicDecider.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <random>
#include <set>

#include "solver/Obligation.h"

namespace lp::symbolic_detail {

namespace {

// Random samples of the whole domain tried for a violation before Z3.
constexpr int kSearchSamples = 256;
// Warps drawn with per-lane values of loaded data before Z3 is asked (violation_with_loaded_values).
constexpr int kOpaqueActivitySamples = 64;

}  // namespace

Decider::Decider(const SymbolicAccess& a, Engine engine, const SolverLimits& limits)
    : a_(a), P_(*a.pool), engine_(engine), limits_(limits), vars_(access_vars(a)) {
  opaque_ = std::any_of(vars_.begin(), vars_.end(), [&](VarId v) { return P_.var(v).kind != VarKind::Uniform; });
  activity_known_ = a.active_exact && !P_.opaque(a.active);
}

/// Whether a sample of the domain shows a violation of `which`: the seed's values, with each
/// free block extent and the warp moved to the ends of their domains and to whole warps between.
/// Cheap, and never a proof.
bool Decider::sampled_violation(Property which, const SymbolicWitness& seed) const {
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
SymbolicProperty Decider::sampled_refutation(Property which) {
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
std::optional<SymbolicProperty> Decider::violation_with_loaded_values(Property which, Draw& draw) {
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

SymbolicProperty Decider::decide_property(Property which) {
  if (which == Property::Conflicts && !a_.instr) {
    SymbolicProperty p;
    p.reason = "no bank model for this instruction (shared-memory atomics were not measured)";
    return p;
  }
  SymbolicProperty p = decide(obligation(which), engine_, limits_);
  if (p.verdict == Verdict::Unknown && p.engine == Engine::Z3) renew_context();  // it may be spent
  return p;
}

// ---- outcome helpers ----
SymbolicProperty Decider::proven(Engine e) {
  SymbolicProperty p;
  p.verdict = Verdict::Proven;
  p.engine = e;
  return p;
}
SymbolicProperty Decider::unknown(Engine e, std::string why) {
  SymbolicProperty p;
  p.verdict = Verdict::Unknown;
  p.engine = e;
  p.reason = std::move(why);
  return p;
}
// Z3 answering unknown on these complete bit-vector queries: its time or memory ran out.
SymbolicProperty Decider::limited_unknown(Engine e, std::string why) {
  SymbolicProperty p = unknown(e, std::move(why));
  p.limited = true;
  return p;
}

// ---- what the values of `ev` do ----

/// The violation of `which` by the warp at `ev`'s values, as a witness with its summary; nullopt
/// when the warp satisfies the property (or does not execute).
std::optional<std::pair<SymbolicWitness, std::string>> Decider::violation(Property which, term::Evaluator& ev) const {
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
SymbolicProperty Decider::confirm(Property which, Engine e, term::Evaluator& ev) {
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

std::string Decider::conflict_summary(const SymbolicWitness& w) const {
  return fmt::format("{} wavefronts where {} {} ideal", w.wavefronts, w.ideal, w.ideal == 1 ? "is" : "are");
}
std::string Decider::bounds_summary(int lane, int64_t offset, int64_t address, int64_t extent) const {
  if (a_.base)
    return fmt::format("lane {} accesses byte offset {} of a {}-byte buffer", lane, offset, extent);
  return fmt::format("lane {} accesses shared address {}, outside the {} bytes of shared memory", lane, address, extent);
}

// The model's per-lane unknowns chose which lanes execute; that choice cannot be evaluated.
std::string Decider::activity_reason() const {
  return fmt::format("a conflict is possible when some of the lanes that may execute it do, but which lanes execute it "
                     "is not modelled ({})", P_.opaque(a_.active) ? P_.opaque_reason(a_.active) : "a divergent loop");
}

// ---- the obligations ----
Obligation<SymbolicProperty> Decider::obligation(Property which) {
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

SymbolicProperty Decider::pick(const SymbolicResult& r, Property which) {
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
std::optional<std::string> Decider::recheck(const SymbolicProperty& p, Property which) const {
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
bool Decider::minimise(SymbolicProperty& p, Property which) {
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

}  // namespace lp::symbolic_detail
