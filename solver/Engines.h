#pragma once
// Shared machinery of the property provers: timing, Z3 solver set-up with limits, and the
// enumeration budget.
#include <new>
#include <optional>
#include <string>
#include <z3++.h>

#include "analyzer/ir/Checked.h"
#include "analyzer/ir/Layout.h"
#include "analyzer/support/Governor.h"
#include "solver/Result.h"

namespace lp {

/// What Z3 may allocate in all (MiB, Z3's process-wide count): `SolverLimits::memory_mb`, or less
/// where the run's memory budget, less what the rest of the process holds, leaves less.
uint64_t z3_memory_cap_mb(const SolverLimits& limits);

/// A Z3 context for one query, created under z3_memory_cap_mb (Z3's process-wide
/// `memory_max_size`). Z3 returns no context once that cap is reached, which z3::context would
/// dereference; this throws z3::exception instead (the query is then unknown).
class Z3Context {
 public:
  explicit Z3Context(const SolverLimits& limits);
  ~Z3Context();
  Z3Context(const Z3Context&) = delete;
  Z3Context& operator=(const Z3Context&) = delete;
  z3::context& operator()() { return (*view_)(); }
  /// Z3's process-wide memory cap (MiB) when this context was made.
  uint64_t cap_mb() const { return cap_mb_; }

 private:
  Z3_context raw_ = nullptr;
  uint64_t cap_mb_ = 0;
  std::optional<z3::scoped_context> view_;  ///< the C++ API's view of raw_; does not delete it
};

/// Whether Z3 contexts of finished queries are still being deleted (in the background: deleting
/// one can take seconds). A driver whose results are all written may then exit without waiting.
bool z3_teardown_pending();

/// Time Z3 is given to stop after its timer fires: at most a tenth of a check's time, at most this.
inline constexpr uint64_t kZ3StopReserveMs = 200;
/// The timeout of the next Z3 check: what is left of the query's `timeout_ms` (the checks of one
/// query share it, see Z3QueryClock) and of the run's time budget, less the stop reserve, at
/// least 1 ms.
unsigned z3_check_timeout_ms(const SolverLimits& limits);
/// A Z3 solver over `ctx` with the timeout z3_check_timeout_ms gives.
z3::solver make_solver(z3::context& ctx, const SolverLimits& limits);

/// Runs `solver.check()`, mapping Z3 exceptions (e.g. out of memory) to unknown.
z3::check_result checked_check(z3::solver& solver, std::string* reason);

/// While alive, the Z3 checks on this thread share one deadline: `timeout_ms` from now.
class Z3QueryClock {
 public:
  explicit Z3QueryClock(unsigned timeout_ms);
  ~Z3QueryClock();
  Z3QueryClock(const Z3QueryClock&) = delete;
  Z3QueryClock& operator=(const Z3QueryClock&) = delete;

 private:
  std::optional<SteadyClock::time_point> saved_;
};

/// Runs a property's decision and times it. A query asked after the run's time budget is spent
/// is unknown at once; one that spends the budget, or the memory budget, meanwhile is unknown with
/// that reason (analyzer/support/Governor.h). An evaluation error of the user's layout (an
/// overflow, a byte swizzle that splits an element) makes the answer unknown, with that reason;
/// so does Z3 giving up anywhere, not only in check() (it runs out of memory while the query is
/// built, past `memory_mb`), and an allocation the system refuses.
template <class Result, class Decide>
Result timed_decision(Engine engine, const SolverLimits& limits, Decide&& decide) {
  Stopwatch clock;
  Result r;
  if (out_of_time()) {
    r.reason = current_budget().deadline_name + " was spent before this proof";
    r.limited = true;
    return r;
  }
  auto undecided = [&](std::string reason, bool limited = false) {
    r = Result{};
    r.engine = engine;
    r.reason = std::move(reason);
    r.limited = limited;
  };
  try {
    Z3QueryClock z3_clock(limits.timeout_ms);
    r = decide();
  } catch (const OverflowError& e) {
    undecided(std::string("evaluation overflowed: ") + e.what());
  } catch (const LayoutError& e) {
    undecided(e.what());
  } catch (const z3::exception& e) {
    undecided(std::string("Z3 gave up: ") + e.msg(), true);
  } catch (const BudgetExhausted& e) {
    undecided(e.what(), true);
  } catch (const std::bad_alloc&) {
    undecided("the system refused memory for this proof", true);
  }
  r.time_ms = clock.elapsed_ms();
  return r;
}

/// The auto engine's policy, one for every property: F2 where it decides; else an exhaustive
/// enumeration when `small` (the domain is within the auto limit); else, or when that enumeration
/// cannot decide (an enumeration with limits of its own), Z3; and when Z3 is undecided (a
/// non-linear encoding times out) and nothing was enumerated yet, an enumeration within the
/// query's own limits, which may still cover the whole domain. Each engine is a callable giving
/// the property's result; a property without an F2 form (parameters) passes one that returns an
/// undecided result.
template <class Result, class F2, class Enumerate, class Z3>
Result decide_auto(bool small, F2&& f2, Enumerate&& enumerate, Z3&& z3) {
  if (Result r = f2(); r.verdict != Verdict::Unknown) return r;
  if (small) {
    if (Result e = enumerate(); e.verdict != Verdict::Unknown || e.settled) return e;
  }
  Result r = z3();
  if (r.verdict == Verdict::Unknown && !small) {
    if (Result e = enumerate(); e.verdict != Verdict::Unknown) return e;
  }
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
