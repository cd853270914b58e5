#include "solver/Injectivity.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <unordered_map>

#include "analyzer/ir/Checked.h"
#include "analyzer/support/Governor.h"
#include "solver/Obligation.h"
#include "solver/F2Layout.h"
#include "solver/QueryLog.h"
#include "solver/Z3Layout.h"

namespace lp {

namespace {

// What one entry of an unordered_map costs beside its value: node, allocator header, bucket.
constexpr uint64_t kHashNodeBytes = 64;

struct PointHash {
  size_t operator()(const Point& p) const {
    size_t h = 1469598103934665603ull;
    for (int64_t v : p) h = (h ^ static_cast<size_t>(v)) * 1099511628211ull;
    return h;
  }
};

// The offset of every index of a scalar layout, in index order, walked as an odometer (no
// allocation per point). Returns false when the affine part might overflow 62 bits; the caller
// then evaluates point by point (with checked arithmetic).
bool scalar_offsets(const Layout& l, std::vector<int64_t>& out) {
  const auto& modes = l.modes();
  const int64_t off = l.offset().empty() ? 0 : l.offset()[0];
  // |offset| + sum (extent-1)*|stride| bounds every partial sum; keep it well inside int64.
  constexpr int64_t kBound = int64_t{1} << 61;
  int64_t bound = off < 0 ? -off : off;
  if (bound >= kBound) return false;
  for (const Mode& m : modes) {
    int64_t s = m.stride[0] < 0 ? -m.stride[0] : m.stride[0];
    if (s != 0 && (m.extent > kBound / s || bound + m.extent * s >= kBound)) return false;
    bound += m.extent * s;
  }
  std::vector<size_t> fast;  // modes, fastest-varying first in the layout's index order
  for (size_t k = 0; k < modes.size(); ++k) fast.push_back(k);
  if (l.order() == IndexOrder::RowMajor) std::reverse(fast.begin(), fast.end());
  const int64_t n = l.size();
  reserve_memory(static_cast<uint64_t>(n) * sizeof(int64_t), "the offsets of the enumeration");
  out.resize(static_cast<size_t>(n));
  std::vector<int64_t> c(modes.size(), 0);
  int64_t v = off;
  const bool stages = !l.stages().empty();
  for (int64_t i = 0; i < n; ++i) {
    checkpoint();
    out[static_cast<size_t>(i)] = stages ? l.apply_stages(v) : v;
    for (size_t k : fast) {
      v += modes[k].stride[0];
      if (++c[k] < modes[k].extent) break;
      v -= modes[k].extent * modes[k].stride[0];
      c[k] = 0;
    }
  }
  return true;
}

// Injectivity of a scalar layout by enumeration: a bitmap over the image range when it is
// dense enough, else a sort. Reports the same witness as the point-by-point search: the first
// index whose offset an earlier index already has, and the first such earlier index.
InjectivityResult scalar_enumeration(const std::vector<int64_t>& vals) {
  InjectivityResult r;
  r.engine = Engine::Enum;
  const int64_t n = static_cast<int64_t>(vals.size());
  int64_t second = -1;  // the first index whose value occurred before
  if (n > 0) {
    auto [lo_it, hi_it] = std::minmax_element(vals.begin(), vals.end());
    const int64_t lo = *lo_it, hi = *hi_it;
    const uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;
    if (range <= static_cast<uint64_t>(n) * 64 + 4096) {
      reserve_memory(range / 8 + 8, "the enumeration's bitmap of offsets");
      std::vector<uint64_t> seen(static_cast<size_t>(range / 64 + 1), 0);
      for (int64_t i = 0; i < n; ++i) {
        checkpoint();
        uint64_t b = static_cast<uint64_t>(vals[static_cast<size_t>(i)]) - static_cast<uint64_t>(lo);
        uint64_t& w = seen[b / 64];
        const uint64_t bit = uint64_t{1} << (b % 64);
        if (w & bit) {
          second = i;
          break;
        }
        w |= bit;
      }
    } else {
      reserve_memory(static_cast<uint64_t>(n) * sizeof(int64_t), "the sorted offsets of the enumeration");
      std::vector<int64_t> sorted(vals);
      std::sort(sorted.begin(), sorted.end());
      auto dup = std::adjacent_find(sorted.begin(), sorted.end());
      if (dup != sorted.end()) {
        // Some value repeats: the first repeat in index order, found with a hash set.
        std::vector<int64_t>().swap(sorted);
        std::unordered_map<int64_t, int64_t> first;
        reserve_memory(static_cast<uint64_t>(n) * kHashNodeBytes, "the enumeration's table of offsets");
        first.reserve(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) {
          checkpoint();
          if (!first.emplace(vals[static_cast<size_t>(i)], i).second) {
            second = i;
            break;
          }
        }
      }
    }
  }
  if (second < 0) {
    r.verdict = Verdict::Proven;
    return r;
  }
  const int64_t v = vals[static_cast<size_t>(second)];
  int64_t owner = 0;
  while (vals[static_cast<size_t>(owner)] != v) ++owner;
  r.verdict = Verdict::Refuted;
  r.witness = InjectivityWitness{owner, second, 0, 0, Point{v}, {}};
  return r;
}

InjectivityResult by_enumeration(const Layout& l, const SolverLimits& limits) {
  InjectivityResult r;
  r.engine = Engine::Enum;
  int64_t n = l.size(), reps = l.replica_count();
  if (n > limits.max_enumeration / reps) {
    r.reason = fmt::format("{} points x {} replicas exceed the enumeration limit of {}", n, reps, limits.max_enumeration);
    return r;
  }
  if (l.is_scalar()) {
    std::vector<int64_t> vals;
    if (scalar_offsets(l, vals)) return scalar_enumeration(vals);
  }
  std::unordered_map<Point, std::pair<int64_t, int64_t>, PointHash> owner;
  // A hash node per point: the node, its Point's heap block and the bucket.
  reserve_memory(static_cast<uint64_t>(n * reps) * (kHashNodeBytes + sizeof(int64_t) * l.axes().size()),
                 "the enumeration's table of points");
  owner.reserve(static_cast<size_t>(n * reps));
  for (int64_t i = 0; i < n; ++i) {
    checkpoint();
    auto imgs = l.images(i);
    for (int64_t k = 0; k < static_cast<int64_t>(imgs.size()); ++k) {
      auto [it, fresh] = owner.emplace(imgs[static_cast<size_t>(k)], std::pair{i, k});
      if (!fresh && it->second.first != i) {
        r.verdict = Verdict::Refuted;
        r.witness = InjectivityWitness{it->second.first, i, it->second.second, k, it->first, {}};
        return r;
      }
    }
  }
  r.verdict = Verdict::Proven;
  return r;
}

InjectivityResult by_f2(const Layout& l) {
  InjectivityResult r;
  r.engine = Engine::F2;
  std::string why;
  auto f = to_f2(l, &why);
  if (!f) {
    r.reason = "the F2 engine does not apply: " + why;
    return r;
  }
  F2Basis basis(l.axes().size());
  const size_t nx = f->coord_bits();
  // Replica columns first: a dependency among them alone is replicas of one element meeting.
  for (size_t id = nx; id < f->input_bits(); ++id) basis.insert(f->cols[id], id);
  for (size_t id = 0; id < nx; ++id) {
    auto dep = basis.insert(f->cols[id], id);
    if (!dep) continue;
    // x' (the coordinate part of the dependency) with replica r' meets x = 0, replica 0.
    std::vector<bool> bits(f->input_bits(), false);
    for (size_t d : *dep) bits[d] = true;
    r.verdict = Verdict::Refuted;
    r.witness = InjectivityWitness{l.index_of(std::vector<int64_t>(l.modes().size(), 0)), l.index_of(f->coord_of(bits)), 0,
                                   f->replica_of(l, bits), {}, {}};
    return r;
  }
  r.verdict = Verdict::Proven;
  return r;
}

// A proof for every parameter value that needs no bit-blasting. A scalar layout whose modes, in
// some order, each stride past everything the modes before them reach, |S_k| > sum_{i<k} (E_i - 1)
// |S_i|, is injective: where two coordinates differ in the last such mode, the offsets differ by at
// least |S_k|, more than all earlier modes together can make up. The order is the instance's
// (ascending |stride|); Z3 proves the inequalities, and each stride's sign, over the integers for
// every admissible parameter value. Nullopt when the layout is not of this form or Z3 finds a
// parameter value breaking an inequality (which says nothing: the bit-vector search decides).
constexpr unsigned kNestingTimeoutMs = 2000;

// Precondition: integer_argument_form(l).
std::optional<std::string> nested_for_every_value(z3::context& ctx, const Layout& l, const Parametric& params,
                                                  const SolverLimits& limits) {
  const Z3IntegerParams ints(ctx, params);
  auto term = [&](ParamUse::Field field, size_t mode, int64_t constant) { return ints.value(field, mode, constant); };
  struct Term {
    int64_t instance_stride;
    z3::expr extent, magnitude;  // |stride| for every value, given the sign proven below
  };
  std::vector<Term> modes;
  z3::expr broken = ctx.bool_val(false);  // some admissible value breaks a premise
  for (size_t k = 0; k < l.modes().size(); ++k) {
    const Mode& m = l.modes()[k];
    if (m.extent == 1) continue;  // an extent grows with its parameter: 1 at the largest is 1 always
    if (m.stride[0] == 0) return std::nullopt;
    const z3::expr stride = term(ParamUse::Field::Stride, k, m.stride[0]);
    const bool positive = m.stride[0] > 0;
    broken = broken || (positive ? stride <= ctx.int_val(0) : stride >= ctx.int_val(0));
    modes.push_back(Term{positive ? m.stride[0] : -m.stride[0], term(ParamUse::Field::Extent, k, m.extent),
                         positive ? stride : -stride});
  }
  std::stable_sort(modes.begin(), modes.end(), [](const Term& a, const Term& b) { return a.instance_stride < b.instance_stride; });
  z3::expr reach = ctx.int_val(0);  // the largest offset the modes so far reach
  for (const Term& t : modes) {
    broken = broken || t.magnitude <= reach;
    reach = reach + (t.extent - ctx.int_val(1)) * t.magnitude;
  }
  if (!ints.never(broken, kNestingTimeoutMs, limits)) return std::nullopt;
  return std::string("for every parameter value, each mode strides past all the offsets the modes below it reach "
                     "(Z3 over the integers)");
}

// The nesting proof as a result of the Z3 engine: proven, or unknown when it does not apply.
InjectivityResult by_nesting(const Layout& l, const SolverLimits& limits, const Parametric& params) {
  InjectivityResult r;
  r.engine = Engine::Z3;
  if (!integer_argument_form(l)) return r;
  Z3Context z3_context(limits);
  if (std::optional<std::string> why = nested_for_every_value(z3_context(), l, params, limits)) {
    r.verdict = Verdict::Proven;
    r.reason = *why;
  }
  return r;
}

InjectivityResult by_z3(const Layout& l, const SolverLimits& limits, const Parametric* params) {
  InjectivityResult r;
  r.engine = Engine::Z3;
  if (params && !params->empty())
    if (InjectivityResult n = by_nesting(l, limits, *params); n.verdict == Verdict::Proven) return n;
  Z3Context z3_context(limits);
  z3::context& ctx = z3_context();
  try {
    Z3Layout enc(ctx, l, 0, 0, params);
    Z3Instance a = enc.instantiate("a_"), b = enc.instantiate("b_");
    z3::expr distinct = ctx.bool_val(false);
    for (size_t k = 0; k < a.coord.size(); ++k) distinct = distinct || (a.coord[k] != b.coord[k]);
    z3::expr same = ctx.bool_val(true);
    for (size_t x = 0; x < a.image.size(); ++x) same = same && (a.image[x] == b.image[x]);
    z3::solver s = make_solver(ctx, limits);
    s.add(a.domain && b.domain && distinct && same);
    switch (checked_check(s, &r.reason)) {
      case z3::unsat: r.verdict = Verdict::Proven; break;
      case z3::unknown: break;
      case z3::sat: {
        z3::model m = s.get_model();
        auto coords = [&](const Z3Instance& in) {
          std::vector<int64_t> c;
          for (const auto& e : in.coord) c.push_back(enc.value(m, e));
          return c;
        };
        auto replica = [&](const Z3Instance& in) {
          int64_t combo = 0;
          for (size_t t = 0; t < in.replica.size(); ++t)
            combo = combo * l.replicas()[t].extent + enc.value(m, in.replica[t]);
          return combo;
        };
        std::vector<int64_t> values;
        for (const auto& p : enc.param_vars()) values.push_back(enc.value(m, p));
        // Indices are numbered in the layout the parameter values give.
        const Layout inst = params && !params->empty() ? instantiate(l, *params, values) : l;
        r.verdict = Verdict::Refuted;
        r.witness = InjectivityWitness{inst.index_of(coords(a)), inst.index_of(coords(b)), replica(a), replica(b), {}, values};
        break;
      }
    }
  } catch (const EncodingError& e) {
    r.reason = std::string("cannot encode for Z3: ") + e.what();
  }
  return r;
}

// Each admissible parameter value in turn, exhaustively.
InjectivityResult by_enumeration_over_params(const Layout& l, const Parametric& params, const SolverLimits& limits) {
  InjectivityResult r;
  r.engine = Engine::Enum;
  // The instance at the largest values bounds every instance's size; the values are counted
  // before any is built.
  const int64_t most_values = limits.max_enumeration / (l.size() * l.replica_count());
  auto all = all_param_values(params, most_values);
  if (!all) {
    r.reason = "the parameter values and domains together exceed the enumeration limit";
    return r;
  }
  int64_t budget = limits.max_enumeration;
  for (const auto& values : *all) {
    Layout inst = instantiate(l, params, values);
    if (inst.size() * inst.replica_count() > budget) {
      r = InjectivityResult{};
      r.engine = Engine::Enum;
      r.reason = "the parameter values and domains together exceed the enumeration limit";
      return r;
    }
    budget -= inst.size() * inst.replica_count();
    r = by_enumeration(inst, limits);
    if (r.verdict != Verdict::Proven) {
      if (r.witness) r.witness->params = values;
      return r;
    }
  }
  return r;
}

// The auto engine enumerates domains up to this many points: scalar layouts take the
// allocation-free path above (a few ns a point, well below a Z3 query up to 2^22 points).
int64_t auto_enumeration_limit(const Layout& l) { return l.is_scalar() ? kAutoScalarEnumerationLimit : kAutoEnumerationLimit; }

// The concrete re-check of a collision: both indices (of the instance the parameters name) have
// the reported replicas, and those land on one point.
std::optional<std::string> confirm_collision(const Layout& instance, const Parametric* params, InjectivityResult& r) {
  InjectivityWitness& w = *r.witness;
  const Layout l = params && !params->empty() ? instantiate(instance, *params, w.params) : instance;
  if (w.index_a == w.index_b || w.index_a < 0 || w.index_b < 0 || w.index_a >= l.size() || w.index_b >= l.size())
    return fmt::format("indices {} and {} are not two elements", w.index_a, w.index_b);
  auto ia = l.images(w.index_a), ib = l.images(w.index_b);
  if (w.replica_a >= static_cast<int64_t>(ia.size()) || w.replica_b >= static_cast<int64_t>(ib.size()) ||
      ia[static_cast<size_t>(w.replica_a)] != ib[static_cast<size_t>(w.replica_b)])
    return fmt::format("indices {} and {} map to different points", w.index_a, w.index_b);
  w.image = ia[static_cast<size_t>(w.replica_a)];
  return std::nullopt;
}

// The counterexample people read first: the smallest parameter values (the first parameter
// most significant, each ascending) whose instance collides, and there the first index whose
// point an earlier index already has, with the first such earlier index (by_enumeration's
// witness). Enumerates at most kMinimizePoints points over at most kMinimizeInstances instances;
// past either the witness stays as found.

// The first collision of the smallest parameter values whose instance has one (values ascending,
// the first parameter most significant), enumerating at most `points` points over at most
// kMinimizeInstances instances; nullopt when none is found within them.
std::optional<InjectivityWitness> smallest_collision(const Layout& l, const Parametric& params, const SolverLimits& limits,
                                                     int64_t points) {
  return smallest_refuted<InjectivityWitness>(
      l, params, points, [](const Layout& inst) { return inst.size() * inst.replica_count(); },
      [&](const Layout& inst) { return by_enumeration(inst, limits).witness; });
}

bool minimize_collision(const Layout& l, const Parametric* params, InjectivityResult& r, const SolverLimits& limits) {
  const int64_t points = std::min(limits.max_enumeration, kMinimizePoints);
  if (!params || params->empty()) {
    if (l.size() * l.replica_count() > points) return false;
    InjectivityResult e = by_enumeration(l, limits);
    if (e.verdict != Verdict::Refuted ||
        (e.witness->index_a == r.witness->index_a && e.witness->index_b == r.witness->index_b))
      return false;
    r.witness = std::move(e.witness);
    return true;
  }
  // The witness's own values collide, so the search ends there at the latest.
  std::optional<InjectivityWitness> w = smallest_collision(l, *params, limits, points);
  if (!w || (w->params == r.witness->params && w->index_a == r.witness->index_a && w->index_b == r.witness->index_b))
    return false;
  r.witness = std::move(w);
  return true;
}

// The layout without its stages when every stage is a bijection of the integers (an offset; a
// swizzle, whose source and destination bits are disjoint; a byte swizzle that leaves the bytes
// inside an element alone): two indices collide in the layout exactly when they collide in it.
std::optional<Layout> bijective_core(const Layout& l) {
  if (l.stages().empty()) return std::nullopt;
  for (const Stage& s : l.stages())
    if (s.kind == Stage::Kind::Outer || s.kind == Stage::Kind::F2Linear)
      return std::nullopt;  // an outer layout or an F2 map need not be injective
    else if (s.kind == Stage::Kind::ByteSwizzle && (s.swizzle.dest_mask() & (std::max(1, s.element_bits / 8) - 1)) != 0)
      return std::nullopt;
  LayoutParts p = l.parts();
  p.stages.clear();
  return Layout::make(std::move(p));
}

}  // namespace

InjectivityResult prove_injective(const Layout& layout, Engine engine, const SolverLimits& limits,
                                  const Parametric* params) {
  const bool symbolic = params && !params->empty();
  if (QueryRecorder* rec = query_recorder()) {
    std::optional<Parametric> copy;
    if (symbolic) copy = *params;
    rec->add({Property::Injectivity, layout_label(layout), [layout, copy](Engine e, const SolverLimits& l) {
                return Rerun{prove_injective(layout, e, l, copy ? &*copy : nullptr), ""};
              }});
  }
  Obligation<InjectivityResult> o;
  o.confirm = [&](InjectivityResult& r) { return confirm_collision(layout, params, r); };
  o.minimize = [&](InjectivityResult& r) { return minimize_collision(layout, params, r, limits); };
  o.describe = [](InjectivityResult& r) {
    if (r.witness) r.reason = fmt::format("indices {} and {} both map to the same point", r.witness->index_a, r.witness->index_b);
  };
  if (symbolic) {
    // Over parameters, swizzles are peeled (bijective_core): no XOR is bit-blasted or evaluated,
    // and the nesting proof applies to the core. A collision is re-checked on the layout itself.
    const std::optional<Layout> core = bijective_core(layout);
    const Layout& decided = core ? *core : layout;
    o.no_f2 = "the F2 engine does not take parameters";
    o.by_enum = [&, decided] { return by_enumeration_over_params(decided, *params, limits); };
    o.by_z3 = [&, decided] { return by_z3(decided, limits, params); };
    // The nesting proof, run at most once: `small` asks it too.
    auto nesting = std::make_shared<std::optional<InjectivityResult>>();
    auto nested = [&limits, params, decided, nesting] {
      if (!*nesting) *nesting = by_nesting(decided, limits, *params);
      return **nesting;
    };
    o.argument = nested;
    // Before Z3 (auto): the smallest values first, where most mistakes show (a collision found
    // there is already the smallest counterexample).
    o.search = [&, decided] {
      InjectivityResult r;
      r.engine = Engine::Enum;
      r.reason = "no collision among the smallest parameter values";
      if (auto w = smallest_collision(decided, *params, limits, std::min(limits.max_enumeration, kSearchPoints))) {
        r.verdict = Verdict::Refuted;
        r.witness = std::move(w);
      }
      return r;
    };
    // Small when every instance together is: the exact total, not the count of values times the
    // largest instance. A parameter standing for a stride makes the Z3 bit-vector encoding
    // non-linear (it often times out): then up to the full enumeration limit, unless the nesting
    // proof applies (tens of milliseconds where enumerating 2^24 points takes half a second).
    o.small = [&, nested] {
      // The exact total, counted up to the full enumeration limit (the value vectors are counted
      // before any is built).
      constexpr int64_t kMostSmallValueVectors = int64_t{1} << 16;
      auto all = all_param_values(*params, std::min(limits.max_enumeration, kMostSmallValueVectors));
      if (!all) return false;
      int64_t total = 0;
      for (const auto& values : *all) {
        const Layout inst = instantiate(layout, *params, values);
        total += inst.size() * inst.replica_count();
        if (total > limits.max_enumeration) return false;
      }
      if (total <= auto_enumeration_limit(layout)) return true;
      bool nonlinear = false;
      for (const ParamUse& u : params->uses)
        nonlinear |= u.field == ParamUse::Field::Stride || u.field == ParamUse::Field::ReplicaStride;
      return nonlinear && layout.is_scalar() && nested().verdict != Verdict::Proven;
    };
  } else {
    o.by_f2 = [&] { return by_f2(layout); };
    o.by_enum = [&] { return by_enumeration(layout, limits); };
    o.by_z3 = [&] { return by_z3(layout, limits, nullptr); };
    o.small = [&] { return layout.size() <= auto_enumeration_limit(layout) / layout.replica_count(); };
  }
  return decide(o, engine, limits);
}

}  // namespace lp
