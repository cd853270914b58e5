#pragma once
// Shared machinery of the property provers: timing, Z3 solver set-up with limits, and the
// enumeration budget.
#include <optional>
#include <string>
#include <z3++.h>

#include "analyzer/ir/Checked.h"
#include "analyzer/ir/Layout.h"
#include "solver/Result.h"

namespace lp {

/// A Z3 context for one query, created under the query's memory cap (`SolverLimits::memory_mb`,
/// Z3's process-wide `memory_max_size`). Z3 returns no context once that cap is reached, which
/// z3::context would dereference; this throws z3::exception instead (the query is then unknown).
class Z3Context {
 public:
  explicit Z3Context(const SolverLimits& limits);
  ~Z3Context();
  Z3Context(const Z3Context&) = delete;
  Z3Context& operator=(const Z3Context&) = delete;
  z3::context& operator()() { return (*view_)(); }

 private:
  Z3_context raw_ = nullptr;
  std::optional<z3::scoped_context> view_;  ///< the C++ API's view of raw_; does not delete it
};

/// A Z3 solver over `ctx` with the query's time limit applied.
z3::solver make_solver(z3::context& ctx, const SolverLimits& limits);

/// Runs `solver.check()`, mapping Z3 exceptions (e.g. out of memory) to unknown.
z3::check_result checked_check(z3::solver& solver, std::string* reason);

/// Runs a property's decision and times it. A query asked after the run's time budget is spent
/// is unknown at once. An evaluation error of the user's layout (an overflow, a byte swizzle that
/// splits an element) makes the answer unknown, with that reason; so does Z3 giving up anywhere,
/// not only in check() (it runs out of memory while the query is built, past `memory_mb`).
template <class Result, class Decide>
Result timed_decision(Engine engine, const SolverLimits& limits, Decide&& decide) {
  Stopwatch clock;
  Result r;
  if (limits.out_of_time()) {
    r.reason = kTimeBudgetReason;
    return r;
  }
  auto undecided = [&](std::string reason) {
    r = Result{};
    r.engine = engine;
    r.reason = std::move(reason);
  };
  try {
    r = decide();
  } catch (const OverflowError& e) {
    undecided(std::string("evaluation overflowed: ") + e.what());
  } catch (const LayoutError& e) {
    undecided(e.what());
  } catch (const z3::exception& e) {
    undecided(std::string("Z3 gave up: ") + e.msg());
  }
  r.time_ms = clock.elapsed_ms();
  return r;
}

/// Domains up to this many points are enumerated by the auto engine when F2 does not apply.
inline constexpr int64_t kAutoEnumerationLimit = int64_t{1} << 18;
/// The same for the injectivity of scalar layouts, which are enumerated without allocating.
inline constexpr int64_t kAutoScalarEnumerationLimit = int64_t{1} << 22;
/// Lane addresses (issues x base residues x 32) the auto engine enumerates for a bank-conflict
/// proof that F2 does not decide.
inline constexpr int64_t kAutoConflictEnumerationLimit = int64_t{1} << 20;

}  // namespace lp
