#include "solver/Injectivity.h"

#include <fmt/format.h>

#include <unordered_map>

#include "analyzer/ir/Checked.h"
#include "solver/Engines.h"
#include "solver/F2Layout.h"
#include "solver/Z3Layout.h"

namespace lp {

namespace {

struct PointHash {
  size_t operator()(const Point& p) const {
    size_t h = 1469598103934665603ull;
    for (int64_t v : p) h = (h ^ static_cast<size_t>(v)) * 1099511628211ull;
    return h;
  }
};

InjectivityResult by_enumeration(const Layout& l, const SolverLimits& limits) {
  InjectivityResult r;
  r.engine = Engine::Enum;
  int64_t n = l.size(), reps = l.replica_count();
  if (n > limits.max_enumeration / reps) {
    r.reason = fmt::format("{} points x {} replicas exceed the enumeration limit of {}", n, reps, limits.max_enumeration);
    return r;
  }
  std::unordered_map<Point, std::pair<int64_t, int64_t>, PointHash> owner;
  owner.reserve(static_cast<size_t>(n * reps));
  for (int64_t i = 0; i < n; ++i) {
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

InjectivityResult by_z3(const Layout& l, const SolverLimits& limits, const Parametric* params) {
  InjectivityResult r;
  r.engine = Engine::Z3;
  z3::context ctx;
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
  auto all = all_param_values(params, limits.max_enumeration);
  // The instance at the largest values bounds every instance's size.
  if (!all || static_cast<int64_t>(all->size()) > limits.max_enumeration / (l.size() * l.replica_count())) {
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

// Every counterexample is re-checked by concrete evaluation before it is reported.
void revalidate(const Layout& instance, const Parametric* params, InjectivityResult& r) {
  if (r.verdict != Verdict::Refuted) return;
  InjectivityWitness& w = *r.witness;
  const Layout l = params && !params->empty() ? instantiate(instance, *params, w.params) : instance;
  auto ia = l.images(w.index_a), ib = l.images(w.index_b);
  bool ok = w.index_a != w.index_b && w.replica_a < static_cast<int64_t>(ia.size()) &&
            w.replica_b < static_cast<int64_t>(ib.size()) &&
            ia[static_cast<size_t>(w.replica_a)] == ib[static_cast<size_t>(w.replica_b)];
  if (!ok) {
    r.verdict = Verdict::Unknown;
    r.reason = fmt::format("internal error: the {} engine's counterexample ({} vs {}) failed the concrete re-check",
                           engine_name(r.engine), w.index_a, w.index_b);
    r.witness.reset();
    return;
  }
  w.image = ia[static_cast<size_t>(w.replica_a)];
  r.reason = fmt::format("indices {} and {} both map to the same point", w.index_a, w.index_b);
}

}  // namespace

InjectivityResult prove_injective(const Layout& layout, Engine engine, const SolverLimits& limits,
                                  const Parametric* params) {
  const bool symbolic = params && !params->empty();
  return timed_decision<InjectivityResult>(engine, [&] {
    InjectivityResult r;
    if (symbolic) {
      switch (engine) {
        case Engine::F2:
          r.engine = Engine::F2;
          r.reason = "the F2 engine does not take parameters";
          break;
        case Engine::Enum: r = by_enumeration_over_params(layout, *params, limits); break;
        case Engine::Z3: r = by_z3(layout, limits, params); break;
        case Engine::Auto: {
          auto all = all_param_values(*params, kAutoEnumerationLimit);
          bool small = all && static_cast<int64_t>(all->size()) * layout.size() * layout.replica_count() <= kAutoEnumerationLimit;
          r = small ? by_enumeration_over_params(layout, *params, limits) : by_z3(layout, limits, params);
          break;
        }
      }
    } else {
      switch (engine) {
        case Engine::Enum: r = by_enumeration(layout, limits); break;
        case Engine::F2: r = by_f2(layout); break;
        case Engine::Z3: r = by_z3(layout, limits, nullptr); break;
        case Engine::Auto: {
          r = by_f2(layout);
          if (r.verdict != Verdict::Unknown) break;
          if (layout.size() <= kAutoEnumerationLimit / layout.replica_count()) r = by_enumeration(layout, limits);
          else r = by_z3(layout, limits, nullptr);
          break;
        }
      }
    }
    revalidate(layout, params, r);
    return r;
  });
}

}  // namespace lp
