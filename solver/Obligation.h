#pragma once
// One proof obligation and the one portfolio that decides it. A property (injectivity, coverage,
// composition, bank conflicts, a rule's own enumeration) states what its engines are, whether its
// domain is small, and how a refutation is confirmed by concrete evaluation; `decide` then answers
// every obligation the same way: within the query's and the run's limits (timed_decision), by the
// engine asked for or by the auto policy, and with every refutation re-checked before it is
// returned.
#include <functional>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "analyzer/ir/Parametric.h"
#include "solver/Engines.h"

namespace lp {

/// What a minimization (Obligation::minimize) may enumerate: points over all instances, and
/// parameter value vectors.
inline constexpr int64_t kMinimizePoints = int64_t{1} << 22;
inline constexpr int64_t kMinimizeInstances = 4096;
/// What a search of the smallest parameter values before Z3 (Obligation::search) may enumerate.
inline constexpr int64_t kSearchPoints = int64_t{1} << 16;

/// The smallest parameter values whose instance of `l` a concrete check refutes: the counterexample
/// people read first (values ascending, the first parameter most significant). Visits at most
/// kMinimizeInstances instances within `points` enumerated points, each instance costing
/// `cost(instance)`; `refute(instance)` gives the instance's witness, or none where it holds. The
/// witness found gets `params` = the values.
template <class Witness, class Cost, class Refute>
std::optional<Witness> smallest_refuted(const Layout& l, const Parametric& params, int64_t points, Cost cost,
                                        Refute refute) {
  std::optional<Witness> found;
  visit_param_values(params, kMinimizeInstances, [&](const std::vector<int64_t>& values) {
    const Layout inst = instantiate(l, params, values);
    const int64_t c = cost(inst);
    if (c > points) return true;  // out of budget
    points -= c;
    found = refute(inst);
    if (!found) return false;
    found->params = values;
    return true;
  });
  return found;
}

/// Invariant: a Result is an Outcome (verdict, engine, time, reason) plus the property's witness
/// fields, and a default-constructed Result is unknown with no witness.

template <class Result>
struct Obligation {
  /// The engines with a form for this obligation. An empty one answers unknown, saying why
  /// (`no_f2`, ...): e.g. a layout with parameters has no F2 form.
  std::function<Result()> by_f2, by_enum, by_z3;
  std::string no_f2 = "the F2 engine does not apply", no_enum = "the domain cannot be enumerated",
              no_z3 = "there is no Z3 encoding";
  /// Whether the domain is within the auto engine's enumeration limit (kAutoEnumerationLimit and
  /// friends); asked by the auto engine only, inside the query's limits. Empty: not small.
  std::function<bool()> small;
  /// Optional: a bounded search for a refutation that the auto engine runs before Z3 on a large
  /// domain; only a refutation or a settled unknown it finds is kept (it cannot prove).
  std::function<Result()> search;
  /// Optional: an argument of one engine that needs no search (Z3 over the integers, under a
  /// short timeout) and, where it applies, is cheaper than any search; the auto engine tries it
  /// first on a domain that is not small (after `search`, which is then run first too) and keeps
  /// only a proof. The engine it belongs to runs it as its own first step.
  std::function<Result()> argument;
  /// Optional: after any engine, a verdict that is not unknown is completed here (its one-line
  /// reason, derived fields). Runs after the re-check.
  std::function<void(Result&)> describe;
  /// Confirms a refutation by concrete evaluation: nullopt when it holds, else what failed.
  std::function<std::optional<std::string>(Result&)> confirm;
  /// Optional: after a confirmed refutation, rewrites the counterexample into a smaller one for
  /// people (smallest parameter values, then smallest indices), within its own small budget;
  /// returns whether it did. The result is confirmed again; one that fails, or a minimization that
  /// runs out of the run's budget, leaves the original counterexample.
  std::function<bool(Result&)> minimize;
};

namespace detail {

template <class Result>
Result run_engine(const std::function<Result()>& engine, Engine which, const std::string& why_not) {
  if (engine) return engine();
  Result r;
  r.engine = which;
  r.reason = why_not;
  return r;
}

}  // namespace detail

/// Decides `o` with `engine` (Auto: the portfolio's one policy, decide_auto) within `limits`.
template <class Result>
Result decide(const Obligation<Result>& o, Engine engine, const SolverLimits& limits) {
  return timed_decision<Result>(engine, limits, [&] {
    auto f2 = [&] { return detail::run_engine(o.by_f2, Engine::F2, o.no_f2); };
    auto enumerate = [&] { return detail::run_engine(o.by_enum, Engine::Enum, o.no_enum); };
    auto z3 = [&] { return detail::run_engine(o.by_z3, Engine::Z3, o.no_z3); };
    Result r;
    switch (engine) {
      case Engine::F2: r = f2(); break;
      case Engine::Enum: r = enumerate(); break;
      case Engine::Z3: r = z3(); break;
      case Engine::Auto: {
        // A small domain is enumerated (decide_auto). Otherwise, with an argument: the search for
        // the smallest refutation first (microseconds where a mistake shows at small values), then
        // the argument (tens of milliseconds, mostly Z3's start), then the engines.
        const bool small = o.small && o.small();
        bool searched = false;
        if (o.argument && !small) {
          if (o.search) {
            searched = true;
            if (Result found = o.search(); found.verdict == Verdict::Refuted || found.settled) {
              r = std::move(found);
              break;
            }
          }
          if (Result a = o.argument(); a.verdict == Verdict::Proven) {
            r = std::move(a);
            break;
          }
        }
        r = decide_auto<Result>(small, f2, enumerate, [&] {
          if (o.search && !searched) {
            if (Result found = o.search(); found.verdict == Verdict::Refuted || found.settled) return found;
          }
          return z3();
        });
        break;
      }
    }
    if (r.verdict == Verdict::Refuted && o.confirm) {
      if (std::optional<std::string> failed = o.confirm(r)) {
        const Engine by = r.engine;
        r = Result{};
        r.engine = by;
        r.reason = fmt::format("internal error: the {} engine's counterexample failed the concrete re-check: {}",
                               engine_name(by), *failed);
        return r;
      }
    }
    if (r.verdict == Verdict::Refuted && o.minimize) {
      Result smaller = r;
      bool rewritten = false;
      try {
        rewritten = o.minimize(smaller);
      } catch (const BudgetExhausted&) {
        rewritten = false;
      }
      if (rewritten && (!o.confirm || !o.confirm(smaller))) r = std::move(smaller);
    }
    if (r.verdict != Verdict::Unknown && o.describe) o.describe(r);
    return r;
  });
}

}  // namespace lp
