#include "solver/ParametricConflicts.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

#include "analyzer/ir/Checked.h"
#include "hw/SmemInstr.h"

namespace lp {

std::vector<bool> affine_stride_params(const Parametric& smem, const Parametric& lanes, const std::vector<size_t>& which) {
  std::vector<bool> out;
  for (size_t p : which) {
    bool affine = true;
    for (const ParamUse& u : smem.uses) {
      const auto n = std::count(u.term.params.begin(), u.term.params.end(), p);
      if (n > 1 || (n == 1 && u.field != ParamUse::Field::Stride)) affine = false;
    }
    for (const ParamUse& u : lanes.uses)
      if (std::count(u.term.params.begin(), u.term.params.end(), p) > 0) affine = false;
    out.push_back(affine);
  }
  return out;
}

namespace {

__extension__ using Wide = __int128;

Wide floor_div(Wide a, Wide b) {  // b != 0
  Wide q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
Wide ceil_div(Wide a, Wide b) { return -floor_div(-a, b); }
Wide gcd(Wide a, Wide b) {  // a, b >= 0
  while (b != 0) a = std::exchange(b, a % b);
  return a;
}

// The closed interval of j with |a + j*b| <= r for some a in [a_lo, a_hi]; b != 0.
std::pair<Wide, Wide> window(Wide a_lo, Wide a_hi, Wide b, Wide r) {
  // a + j*b in [-r, r]  <=>  j*b in [-r - a, r - a]; over every a: [-r - a_hi, r - a_lo].
  const Wide lo = -r - a_hi, hi = r - a_lo;
  return b > 0 ? std::pair{ceil_div(lo, b), floor_div(hi, b)} : std::pair{ceil_div(hi, b), floor_div(lo, b)};
}

struct Representatives {
  std::vector<int64_t> indices;  ///< ascending indices j into the parameter's admissible values
  int64_t modulus = 1;           ///< C: j and j' congruent modulo C, outside windows, decide alike
  int64_t in_windows = 0;        ///< how many of the indices lie in windows
};

// Most pairs of offset groups examined over all issues before the argument gives up (the
// per-instance enumeration then decides, or the query is unknown).
constexpr int64_t kMostGroupPairs = int64_t{1} << 22;

// The indices j whose instances decide every j in [0, count), from the instances at j = 0 and
// j = 1 (ParametricConflicts.h). Nullopt when the two instances are not of the form the argument
// needs or more than `budget` indices would be needed.
std::optional<Representatives> representatives(const SmemAccess& a0, const SmemAccess& a1, int64_t count,
                                               int64_t budget) {
  if (a0.lane_values() != LaneValues::Coordinates || a1.lane_values() != LaneValues::Coordinates) return std::nullopt;
  const Layout &e0 = a0.element_part(), &e1 = a1.element_part();
  // Only strides may differ between the two instances.
  if (e0.modes().size() != e1.modes().size() || e0.stages() != e1.stages() || e0.offset() != e1.offset() ||
      e0.order() != e1.order() || a0.smem_dims() != a1.smem_dims() || a0.issue_count() != a1.issue_count() ||
      a0.active() != a1.active() || a0.absolute_swizzle().has_value() != a1.absolute_swizzle().has_value() ||
      a0.base_period() != a1.base_period())
    return std::nullopt;
  std::vector<std::pair<int64_t, int64_t>> strides;  // (value at j = 0, step) of each stride that moves
  for (size_t k = 0; k < e0.modes().size(); ++k) {
    if (e0.modes()[k].extent != e1.modes()[k].extent) return std::nullopt;
    const int64_t s0 = e0.modes()[k].stride[0], s1 = e1.modes()[k].stride[0];
    if (s0 != s1) strides.push_back({s0, checked_sub(s1, s0)});
  }
  const int64_t bytes = a0.element_bytes();
  // The period of the element stages (elements) and how far the stages move an offset.
  int64_t period = 1;
  Wide displacement = 0;
  for (const Stage& s : e0.stages()) {
    int64_t p = 1;
    switch (s.kind) {
      case Stage::Kind::AddOffset: displacement += s.offset < 0 ? -Wide{s.offset} : Wide{s.offset}; break;
      case Stage::Kind::Swizzle: p = s.swizzle.period(); break;
      case Stage::Kind::F2Linear: p = s.f2.period(); break;
      case Stage::Kind::ByteSwizzle: p = std::max<int64_t>(1, s.swizzle.period() / std::max(1, s.element_bits / 8)); break;
      case Stage::Kind::Outer: return std::nullopt;  // an outer layout moves offsets by more than a period
    }
    period = std::max(period, p);
    if (p > 1) displacement += p;
  }
  const int64_t byte_period = a0.absolute_swizzle() ? a0.absolute_swizzle()->swizzle.period() : 1;
  const Wide pi = std::max<Wide>({a0.base_period(), Wide{bytes} * period, byte_period});
  if (pi > (Wide{1} << 40) || (pi & (pi - 1)) != 0) return std::nullopt;
  const Wide moved = Wide{bytes} * displacement + byte_period;  // |address - (base + bytes*o)| <= moved
  const Wide apart = pi + 2 * moved;                           // offsets this far apart share nothing
  const Wide edge = pi + moved + a0.instr().bytes;             // beyond this, a bound holds or fails for sure
  const Wide end = a0.arch().max_smem_bytes_per_block;

  // Each touched offset as (f, g) per issue, grouped by g: the extremes of f.
  const int used = hw::address_lane_count(a0.instr());
  const int n = a0.elements_per_access();
  std::map<int64_t, std::pair<int64_t, int64_t>> all_groups;
  std::vector<std::pair<Wide, Wide>> windows;
  Wide step_gcd = 0;
  int64_t group_pairs = 0;
  // `sides`: the window separates values on two sides of a bound, so it must hold the values next
  // to the crossing even when no value lies within r of it (else one stretch would span both sides).
  auto add_window = [&](Wide a_lo, Wide a_hi, Wide b, Wide r, bool sides = false) {
    auto [lo, hi] = window(a_lo, a_hi, b, r);
    if (sides) {
      --lo;
      ++hi;
    }
    lo = std::max<Wide>(lo, 0);
    hi = std::min<Wide>(hi, count - 1);
    if (lo <= hi) windows.push_back({lo, hi});
  };
  try {
    for (int64_t q = 0; q < a0.issue_count(); ++q) {
      std::map<int64_t, std::pair<int64_t, int64_t>> groups;
      auto touch = [&](const std::vector<int64_t>& c) {
        const int64_t idx = a0.smem_index(c);
        const int64_t f = e0.base_of(e0.split(idx))[0], g = checked_sub(e1.base_of(e1.split(idx))[0], f);
        step_gcd = gcd(step_gcd, Wide{bytes} * (g < 0 ? -Wide{g} : Wide{g}));
        for (auto* m : {&groups, &all_groups}) {
          auto [it, fresh] = m->emplace(g, std::pair{f, f});
          it->second.first = std::min(it->second.first, f);
          it->second.second = std::max(it->second.second, f);
        }
      };
      for (int lane = 0; lane < used; ++lane) {
        if (!a0.is_active(lane)) continue;
        std::vector<int64_t> c = a0.coordinate(lane, q);
        if (c != a1.coordinate(lane, q)) return std::nullopt;  // the lane map moves with the parameter
        touch(c);
        if (n > 1 && a0.vector_mode())
          for (int k = 1; k < n; ++k) {
            std::vector<int64_t> ck = c;
            ck[*a0.vector_mode()] += k;
            if (ck[*a0.vector_mode()] < a0.smem_dims()[*a0.vector_mode()]) touch(ck);
          }
      }
      group_pairs += static_cast<int64_t>(groups.size() * groups.size());
      if (group_pairs > kMostGroupPairs) return std::nullopt;
      for (auto x = groups.begin(); x != groups.end(); ++x)
        for (auto y = std::next(x); y != groups.end(); ++y)
          add_window(Wide{bytes} * (Wide{x->second.first} - y->second.second),
                     Wide{bytes} * (Wide{x->second.second} - y->second.first), Wide{bytes} * (Wide{x->first} - y->first),
                     apart);
    }
  } catch (const AccessError&) {
    return std::nullopt;  // a coordinate outside the buffer: the instances show it, value by value
  } catch (const OverflowError&) {
    return std::nullopt;
  }
  for (const auto& [g, f] : all_groups) {
    if (g == 0) continue;
    add_window(Wide{bytes} * f.first, Wide{bytes} * f.second, Wide{bytes} * g, edge, true);
    add_window(Wide{bytes} * f.first - end, Wide{bytes} * f.second - end, Wide{bytes} * g, edge, true);
  }
  // A stride that could become 0 or 1 changes which mode is contiguous.
  for (const auto& [s0, step] : strides) add_window(s0, s0, step, 2);

  std::sort(windows.begin(), windows.end());
  Representatives out;
  out.modulus = static_cast<int64_t>(pi / gcd(pi, step_gcd));  // no step: one class
  auto take = [&](Wide j) {
    out.indices.push_back(static_cast<int64_t>(j));
    return static_cast<int64_t>(out.indices.size()) <= budget;
  };
  // Between windows, the smallest j of each residue class; in windows, every j.
  auto stretch = [&](Wide from, Wide to) {  // [from, to]
    if (to - from + 1 <= out.modulus) {
      for (Wide j = from; j <= to; ++j)
        if (!take(j)) return false;
      return true;
    }
    for (Wide j = from; j < from + out.modulus; ++j)
      if (!take(j)) return false;
    return true;
  };
  Wide next = 0;  // the first j not yet covered
  for (const auto& [lo, hi] : windows) {
    if (hi < next) continue;
    if (lo > next && !stretch(next, lo - 1)) return std::nullopt;
    for (Wide j = std::max(lo, next); j <= hi; ++j) {
      if (!take(j)) return std::nullopt;
      ++out.in_windows;
    }
    next = hi + 1;
  }
  if (next < count && !stretch(next, count - 1)) return std::nullopt;
  return out;
}

// The value of parameter `p` at index j: first + multiple * j.
int64_t value_at(const ParamSpec& p, int64_t j) { return param_end_value(p, false) + p.multiple * j; }

}  // namespace

std::optional<ConflictsOverValues> prove_conflict_free_over_values(const ParametricConflictQuery& query, Engine engine,
                                                                  const SolverLimits& limits) {
  ConflictsOverValues out;
  int64_t vectors = 1;
  for (const ParamSpec& s : query.specs) {
    const int64_t c = param_value_count(s);
    vectors = c == 0 ? 0 : vectors > INT64_MAX / c ? INT64_MAX : vectors * c;
  }
  out.value_vectors = vectors;
  // The parameter decided by residue classes: the one with the most values among those that may be.
  std::optional<size_t> periodic;
  for (size_t i = 0; i < query.specs.size(); ++i)
    if (i < query.affine_in_strides.size() && query.affine_in_strides[i] && param_value_count(query.specs[i]) > 1 &&
        (!periodic || param_value_count(query.specs[i]) > param_value_count(query.specs[*periodic])))
      periodic = i;

  std::vector<std::vector<int64_t>> chosen;
  if (periodic) {
    const ParamSpec& p = query.specs[*periodic];
    std::vector<ParamSpec> others = query.specs;
    others.erase(others.begin() + static_cast<std::ptrdiff_t>(*periodic));
    const auto combos = all_param_values(Parametric{others, {}}, kMostConflictInstances);
    bool reduced = combos.has_value();
    int64_t modulus = 1, in_windows = 0;
    for (size_t c = 0; reduced && c < combos->size(); ++c) {
      auto full = [&](int64_t j) {
        std::vector<int64_t> v = (*combos)[c];
        v.insert(v.begin() + static_cast<std::ptrdiff_t>(*periodic), value_at(p, j));
        return v;
      };
      std::optional<Representatives> reps;
      try {
        reps = representatives(query.make(full(0)), query.make(full(1)), param_value_count(p),
                               kMostConflictInstances - static_cast<int64_t>(chosen.size()));
      } catch (const AccessError&) {
        // An instance that cannot be modelled: the plain enumeration meets it and says why.
      }
      if (!reps) {
        reduced = false;
        break;
      }
      modulus = std::max(modulus, reps->modulus);
      in_windows += reps->in_windows;
      for (int64_t j : reps->indices) chosen.push_back(full(j));
    }
    if (reduced && static_cast<int64_t>(chosen.size()) < vectors) {
      out.reduction = fmt::format(
          "{} by residue classes: {} decided, of which {} where two offsets or an offset and a bound come near, one by "
          "one; every other value has the verdict of the decided value of its residue modulo {} steps of {}",
          p.name, chosen.size(), in_windows, modulus, p.multiple);
    } else {
      chosen.clear();
      out.reduction.clear();
    }
  }
  if (out.reduction.empty()) {
    auto all = all_param_values(Parametric{query.specs, {}}, kMostConflictInstances);
    if (!all) return std::nullopt;
    chosen = std::move(*all);
  }
  std::sort(chosen.begin(), chosen.end());
  for (std::vector<int64_t>& values : chosen) {
    ConflictInstance inst;
    inst.values = std::move(values);
    try {
      inst.access = query.make(inst.values);
    } catch (const AccessError& e) {
      inst.invalid = e.what();
      out.instances.push_back(std::move(inst));
      break;
    }
    inst.result = prove_conflict_free(*inst.access, engine, limits);
    const bool stop = inst.result.verdict == Verdict::Unknown;
    out.instances.push_back(std::move(inst));
    if (stop) break;
  }
  return out;
}

}  // namespace lp
