#include "solver/Coverage.h"

#include <fmt/format.h>

#include <stdexcept>

#include "analyzer/ir/Checked.h"
#include "analyzer/support/Governor.h"
#include "solver/Obligation.h"
#include "solver/F2Layout.h"
#include "solver/QueryLog.h"
#include "solver/Z3Layout.h"

namespace lp {

namespace {

struct Target {
  std::vector<size_t> axis;  ///< index into layout.axes() per target entry
  std::vector<AxisRange> ranges;
  int64_t box_size = 1;
};

Target resolve(const Layout& l, const std::vector<AxisRange>& ranges) {
  Target t;
  t.ranges = ranges;
  if (ranges.empty()) throw std::invalid_argument("the coverage target names no axis");
  for (const AxisRange& r : ranges) {
    auto a = l.axis_index(r.axis);
    if (!a) throw std::invalid_argument(fmt::format("the target names axis '{}', which the layout does not have", r.axis.spelling()));
    if (r.hi < r.lo) throw std::invalid_argument(fmt::format("target range {}..{} of '{}' is empty", r.lo, r.hi, r.axis.spelling()));
    for (size_t x : t.axis)
      if (x == *a) throw std::invalid_argument(fmt::format("the target names axis '{}' twice", r.axis.spelling()));
    t.axis.push_back(*a);
    int64_t n = checked_add(checked_sub(r.hi, r.lo, "target size"), 1, "target size");
    t.box_size = checked_mul(t.box_size, n, "target size");
  }
  return t;
}

// Flat index of a point in the box, or -1 outside it.
int64_t box_index(const Target& t, const Point& p) {
  int64_t idx = 0;
  for (size_t k = 0; k < t.axis.size(); ++k) {
    int64_t v = p[t.axis[k]];
    if (v < t.ranges[k].lo || v > t.ranges[k].hi) return -1;
    idx = idx * (t.ranges[k].hi - t.ranges[k].lo + 1) + (v - t.ranges[k].lo);
  }
  return idx;
}

std::vector<int64_t> box_point(const Target& t, int64_t idx) {
  std::vector<int64_t> p(t.axis.size());
  for (size_t k = t.axis.size(); k-- > 0;) {
    int64_t n = t.ranges[k].hi - t.ranges[k].lo + 1;
    p[k] = t.ranges[k].lo + idx % n;
    idx /= n;
  }
  return p;
}

// The set of box points the layout reaches, or nullopt when the enumeration is too large.
std::optional<std::vector<bool>> reached(const Layout& l, const Target& t, const SolverLimits& limits) {
  if (l.size() > limits.max_enumeration / l.replica_count() || t.box_size > limits.max_enumeration) return std::nullopt;
  reserve_memory(static_cast<uint64_t>(t.box_size) / 8 + 8, "the coverage bitmap of the target");
  std::vector<bool> hit(static_cast<size_t>(t.box_size), false);
  for (int64_t i = 0; i < l.size(); ++i) {
    checkpoint();
    for (const Point& p : l.images(i))
      if (int64_t b = box_index(t, p); b >= 0) hit[static_cast<size_t>(b)] = true;
  }
  return hit;
}

CoverageResult by_enumeration(const Layout& l, const Target& t, const SolverLimits& limits) {
  CoverageResult r;
  r.engine = Engine::Enum;
  auto hit = reached(l, t, limits);
  if (!hit) {
    r.reason = fmt::format("the domain ({} x {} replicas) or the target ({} points) exceeds the enumeration limit of {}",
                           l.size(), l.replica_count(), t.box_size, limits.max_enumeration);
    return r;
  }
  for (int64_t b = 0; b < t.box_size; ++b)
    if (!(*hit)[static_cast<size_t>(b)]) {
      r.verdict = Verdict::Refuted;
      r.witness = CoverageWitness{box_point(t, b), {}};
      return r;
    }
  r.verdict = Verdict::Proven;
  return r;
}

CoverageResult by_f2(const Layout& l, const Target& t) {
  CoverageResult r;
  r.engine = Engine::F2;
  std::string why;
  auto f = to_f2(l, &why);
  if (!f) {
    r.reason = "the F2 engine does not apply: " + why;
    return r;
  }
  // The box must be a coset of a coordinate subspace: size 2^k and lo a multiple of 2^k.
  const size_t words = t.axis.size();
  auto project = [&](const F2Vec& v) {
    F2Vec p(words);
    for (size_t k = 0; k < words; ++k) p[k] = v[t.axis[k]];
    return p;
  };
  std::vector<F2Vec> generators;
  F2Vec lo(words);
  for (size_t k = 0; k < words; ++k) {
    int64_t n = t.ranges[k].hi - t.ranges[k].lo + 1;
    if ((n & (n - 1)) || t.ranges[k].lo < 0 || t.ranges[k].lo % n) {
      r.reason = fmt::format("the F2 engine does not apply: target range {}..{} is not an aligned power-of-two block",
                             t.ranges[k].lo, t.ranges[k].hi);
      return r;
    }
    lo[k] = static_cast<uint64_t>(t.ranges[k].lo);
    for (int b = 0; (int64_t{1} << b) < n; ++b) {
      F2Vec g(words, 0);
      g[k] = uint64_t{1} << b;
      generators.push_back(g);
    }
  }
  F2Basis span(words);
  for (size_t id = 0; id < f->cols.size(); ++id) span.insert(project(f->cols[id]), id);
  // Reachable projections: constant ^ span. The box lo ^ <generators> lies inside iff
  // lo ^ constant and every generator are in the span.
  F2Vec base = project(f->constant);
  for (size_t k = 0; k < words; ++k) base[k] ^= lo[k];
  auto as_point = [&](const F2Vec& v) {
    std::vector<int64_t> p(words);
    for (size_t k = 0; k < words; ++k) p[k] = static_cast<int64_t>(v[k]);
    return p;
  };
  if (!span.contains(base)) {
    r.verdict = Verdict::Refuted;
    r.witness = CoverageWitness{as_point(lo), {}};
    return r;
  }
  for (const F2Vec& g : generators)
    if (!span.contains(g)) {
      F2Vec p = lo;
      for (size_t k = 0; k < words; ++k) p[k] ^= g[k];
      r.verdict = Verdict::Refuted;
      r.witness = CoverageWitness{as_point(p), {}};
      return r;
    }
  r.verdict = Verdict::Proven;
  return r;
}

uint64_t target_magnitude(const Target& t) {
  uint64_t m = 0;
  for (const AxisRange& r : t.ranges)
    for (int64_t v : {r.lo, r.hi}) m = std::max(m, v < 0 ? static_cast<uint64_t>(-(v + 1)) + 1 : static_cast<uint64_t>(v));
  return m;
}

// A proof for every parameter value that needs no bit-blasting. A scalar layout whose modes, in
// some order, each stride at most one past everything the modes before them reach,
// 0 < S_k <= 1 + sum_{i<k} (E_i - 1) S_i, reaches every offset from its offset o to
// o + sum (E_i - 1) S_i (by induction: each mode's copies of the interval so far touch or overlap),
// so it covers a target range inside that interval. The order is the instance's (ascending
// stride); Z3 proves the inequalities over the integers for every admissible parameter value.
// Nullopt when the layout is not of this form or some value breaks an inequality (which says
// nothing: the bit-vector query decides).
constexpr unsigned kContiguityTimeoutMs = 2000;

// Precondition: integer_argument_form(l), and a target of one axis.
std::optional<std::string> contiguous_for_every_value(z3::context& ctx, const Layout& l, const Target& t,
                                                      const Parametric& params, const SolverLimits& limits) {
  const Z3IntegerParams ints(ctx, params);
  struct Term {
    int64_t instance_stride;
    z3::expr extent, stride;
  };
  std::vector<Term> modes;
  z3::expr broken = ctx.bool_val(false);  // some admissible value breaks a premise
  for (size_t k = 0; k < l.modes().size(); ++k) {
    const Mode& m = l.modes()[k];
    if (m.extent == 1) continue;  // an extent grows with its parameter: 1 at the largest is 1 always
    if (m.stride[0] <= 0) return std::nullopt;
    const z3::expr stride = ints.value(ParamUse::Field::Stride, k, m.stride[0]);
    broken = broken || stride <= ctx.int_val(0);
    modes.push_back(Term{m.stride[0], ints.value(ParamUse::Field::Extent, k, m.extent), stride});
  }
  std::stable_sort(modes.begin(), modes.end(), [](const Term& a, const Term& b) { return a.instance_stride < b.instance_stride; });
  z3::expr reach = ctx.int_val(0);
  for (const Term& m : modes) {
    broken = broken || m.stride > reach + ctx.int_val(1);
    reach = reach + (m.extent - ctx.int_val(1)) * m.stride;
  }
  const z3::expr offset = ctx.int_val(l.offset().empty() ? 0 : l.offset()[0]);
  broken = broken || ctx.int_val(t.ranges[0].lo) < offset || ctx.int_val(t.ranges[0].hi) > offset + reach;
  if (!ints.never(broken, kContiguityTimeoutMs, limits)) return std::nullopt;
  return std::string("for every parameter value, each mode, by stride, starts at most one past the offsets the modes "
                     "below it reach: every offset of the target is reached (Z3 over the integers)");
}

// The contiguity proof as a result of the Z3 engine: proven, or unknown when it does not apply.
CoverageResult by_contiguity(const Layout& l, const Target& t, const SolverLimits& limits, const Parametric& params) {
  CoverageResult r;
  r.engine = Engine::Z3;
  if (!integer_argument_form(l) || t.axis.size() != 1) return r;
  Z3Context z3_context(limits);
  if (std::optional<std::string> why = contiguous_for_every_value(z3_context(), l, t, params, limits)) {
    r.verdict = Verdict::Proven;
    r.reason = *why;
  }
  return r;
}

CoverageResult by_z3(const Layout& l, const Target& t, const SolverLimits& limits, const Parametric* params) {
  CoverageResult r;
  r.engine = Engine::Z3;
  if (params && !params->empty())
    if (CoverageResult c = by_contiguity(l, t, limits, *params); c.verdict == Verdict::Proven) return c;
  Z3Context z3_context(limits);
  z3::context& ctx = z3_context();
  try {
    Z3Layout enc(ctx, l, target_magnitude(t), 0, params);
    Z3Instance any = enc.instantiate("x_");
    std::vector<z3::expr> point;
    z3::expr in_box = ctx.bool_val(true);
    for (size_t k = 0; k < t.axis.size(); ++k) {
      point.push_back(ctx.bv_const(fmt::format("t{}", k).c_str(), enc.width()));
      in_box = in_box && z3::sge(point[k], enc.constant(t.ranges[k].lo)) && z3::sle(point[k], enc.constant(t.ranges[k].hi));
    }
    z3::expr hits = ctx.bool_val(true);
    for (size_t k = 0; k < t.axis.size(); ++k) hits = hits && any.image[t.axis[k]] == point[k];
    z3::expr_vector bound(ctx);
    for (auto& e : any.coord) bound.push_back(e);
    for (auto& e : any.replica) bound.push_back(e);
    // The parameters are chosen outside the quantifier: "some M leaves some target point bare".
    z3::expr uncovered = bound.empty() ? !(any.domain && hits) : z3::forall(bound, !(any.domain && hits));
    z3::solver s = make_solver(ctx, limits);
    s.add(in_box && enc.param_domain() && uncovered);
    switch (checked_check(s, &r.reason)) {
      case z3::unsat: r.verdict = Verdict::Proven; break;
      case z3::unknown: break;
      case z3::sat: {
        z3::model m = s.get_model();
        std::vector<int64_t> p, values;
        for (auto& e : point) p.push_back(enc.value(m, e));
        for (auto& e : enc.param_vars()) values.push_back(enc.value(m, e));
        r.verdict = Verdict::Refuted;
        r.witness = CoverageWitness{p, values};
        break;
      }
    }
  } catch (const EncodingError& e) {
    r.reason = std::string("cannot encode for Z3: ") + e.what();
  }
  return r;
}

// The re-check of "t is not covered": enumerate the domain where it is small, otherwise ask Z3
// the quantifier-free question "does any element reach t?", which must be unsat.
std::optional<std::string> confirm_uncovered(const Layout& instance, const Parametric* params, const Target& t,
                                             CoverageResult& r, const SolverLimits& limits) {
  const Layout l = params && !params->empty() ? instantiate(instance, *params, r.witness->params) : instance;
  const std::vector<int64_t>& p = r.witness->uncovered;
  bool inside = p.size() == t.ranges.size();
  for (size_t k = 0; k < p.size() && inside; ++k) inside = p[k] >= t.ranges[k].lo && p[k] <= t.ranges[k].hi;
  if (!inside) return "the point is outside the target";
  if (l.size() <= limits.max_enumeration / l.replica_count()) {
    for (int64_t i = 0; i < l.size(); ++i) {
      checkpoint();
      for (const Point& img : l.images(i)) {
        bool same = true;
        for (size_t k = 0; k < p.size(); ++k) same &= img[t.axis[k]] == p[k];
        if (same) return fmt::format("element {} reaches it", i);
      }
    }
    return std::nullopt;
  }
  Z3Context z3_context(limits);
  z3::context& ctx = z3_context();
  try {
    Z3Layout enc(ctx, l, target_magnitude(t));
    Z3Instance any = enc.instantiate("x_");
    z3::expr hits = any.domain;
    for (size_t k = 0; k < p.size(); ++k) hits = hits && any.image[t.axis[k]] == enc.constant(p[k]);
    z3::solver s = make_solver(ctx, limits);
    s.add(hits);
    std::string why;
    switch (checked_check(s, &why)) {
      case z3::unsat: return std::nullopt;
      case z3::sat: return std::string("Z3 finds an element that reaches it");
      case z3::unknown: return "Z3 could not confirm it: " + why;
    }
  } catch (const EncodingError& e) {
    return std::string("cannot encode the re-check for Z3: ") + e.what();
  }
  return std::string("unreachable");
}

// The counterexample people read first: the smallest parameter values (the first parameter most
// significant, each ascending) whose instance leaves a target point uncovered, and there the
// first uncovered point in the target's order (by_enumeration's witness). Within kMinimizePoints
// points over kMinimizeInstances instances; past either the witness stays.
std::optional<CoverageWitness> smallest_uncovered(const Layout& l, const Parametric& params, const Target& t,
                                                  const SolverLimits& limits, int64_t points) {
  return smallest_refuted<CoverageWitness>(
      l, params, points, [&](const Layout& inst) { return inst.size() * inst.replica_count() + t.box_size; },
      [&](const Layout& inst) { return by_enumeration(inst, t, limits).witness; });
}

bool minimize_uncovered(const Layout& l, const Parametric* params, const Target& t, CoverageResult& r,
                        const SolverLimits& limits) {
  const int64_t points = std::min(limits.max_enumeration, kMinimizePoints);
  if (!params || params->empty()) {
    if (l.size() * l.replica_count() + t.box_size > points) return false;
    CoverageResult e = by_enumeration(l, t, limits);
    if (e.verdict != Verdict::Refuted || e.witness->uncovered == r.witness->uncovered) return false;
    r.witness = std::move(e.witness);
    return true;
  }
  std::optional<CoverageWitness> w = smallest_uncovered(l, *params, t, limits, points);
  if (!w || (w->params == r.witness->params && w->uncovered == r.witness->uncovered)) return false;
  r.witness = std::move(w);
  return true;
}

}  // namespace

CoverageResult prove_covers(const Layout& layout, const std::vector<AxisRange>& ranges, Engine engine,
                            const SolverLimits& limits, const Parametric* params) {
  Target t = resolve(layout, ranges);
  if (QueryRecorder* rec = query_recorder()) {
    std::optional<Parametric> copy;
    if (params && !params->empty()) copy = *params;
    rec->add({Property::Coverage, layout_label(layout), [layout, ranges, copy](Engine e, const SolverLimits& l) {
                return Rerun{prove_covers(layout, ranges, e, l, copy ? &*copy : nullptr), ""};
              }});
  }
  const bool symbolic = params && !params->empty();
  Obligation<CoverageResult> o;
  o.confirm = [&](CoverageResult& r) { return confirm_uncovered(layout, params, t, r, limits); };
  o.minimize = [&](CoverageResult& r) { return minimize_uncovered(layout, params, t, r, limits); };
  o.describe = [&](CoverageResult& r) {
    if (!r.witness) return;
    std::string s;
    for (size_t k = 0; k < r.witness->uncovered.size(); ++k)
      s += fmt::format("{}{}={}", k ? ", " : "", t.ranges[k].axis.spelling(), r.witness->uncovered[k]);
    r.reason = "no element reaches " + s;
  };
  if (symbolic) {
    o.no_f2 = "the F2 engine does not take parameters";
    // Every instance enumerated: within the auto limit of parameter values when small, else
    // within the query's enumeration limit.
    o.by_enum = [&] {
      CoverageResult e;
      e.engine = Engine::Enum;
      // The instance at the largest values bounds every instance: values are counted, not built,
      // past what the limit allows.
      auto all = all_param_values(*params, limits.max_enumeration / (layout.size() * layout.replica_count()));
      if (!all) {
        e.reason = "the parameter values and domains together exceed the enumeration limit";
        return e;
      }
      for (const auto& values : *all) {
        e = by_enumeration(instantiate(layout, *params, values), t, limits);
        if (e.verdict != Verdict::Proven) {
          if (e.witness) e.witness->params = values;
          break;
        }
      }
      return e;
    };
    o.by_z3 = [&] { return by_z3(layout, t, limits, params); };
    o.argument = [&] { return by_contiguity(layout, t, limits, *params); };
    // Before Z3 (auto): the smallest values first (an uncovered point there is already the
    // smallest counterexample).
    o.search = [&] {
      CoverageResult r;
      r.engine = Engine::Enum;
      r.reason = "no uncovered point among the smallest parameter values";
      if (auto w = smallest_uncovered(layout, *params, t, limits, std::min(limits.max_enumeration, kSearchPoints))) {
        r.verdict = Verdict::Refuted;
        r.witness = std::move(w);
      }
      return r;
    };
    // Small when every instance together is: the exact total of their domains and targets.
    o.small = [&] {
      constexpr int64_t kMostSmallValueVectors = int64_t{1} << 16;
      int64_t vectors = 1;
      for (const ParamSpec& p : params->specs) {
        const int64_t c = param_value_count(p);
        if (c > kMostSmallValueVectors || vectors * c > kMostSmallValueVectors) return false;
        vectors *= c;
      }
      int64_t total = 0;
      visit_param_values(*params, vectors, [&](const std::vector<int64_t>& values) {
        const Layout inst = instantiate(layout, *params, values);
        total += inst.size() * inst.replica_count() + t.box_size;
        return total > kAutoEnumerationLimit;
      });
      return total <= kAutoEnumerationLimit;
    };
  } else {
    o.by_f2 = [&] { return by_f2(layout, t); };
    o.by_enum = [&] { return by_enumeration(layout, t, limits); };
    o.by_z3 = [&] { return by_z3(layout, t, limits, nullptr); };
    o.small = [&] {
      return layout.size() <= kAutoEnumerationLimit / layout.replica_count() && t.box_size <= kAutoEnumerationLimit;
    };
  }
  return decide(o, engine, limits);
}

}  // namespace lp
