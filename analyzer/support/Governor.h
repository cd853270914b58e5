#pragma once
// The resource governor of a run: one wall-clock deadline and one memory budget that every
// long-running piece of LayoutProof respects (the engines, the algebra's legality checks,
// parameter enumeration, the output writers).
//
// The budget is installed per thread (BudgetScope): `check` installs the run's budget in each of
// its workers, a command its own. Work that can run long calls checkpoint() in its loops and
// reserve_memory() before a large allocation; both throw BudgetExhausted when the budget is
// spent, and the engines turn that into an Unknown with its reason, never a crash or a hang.
// Z3 keeps to the same budget through its own timeout and memory cap (solver/Engines.h).
//
// Memory is the process's resident set (what a user's `time -v` or a CI runner's cgroup sees), so
// the budget bounds the whole run. With parallel workers the process is shared: whichever worker
// finds it past the budget stops.
#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include "analyzer/support/Error.h"

namespace lp {

using SteadyClock = std::chrono::steady_clock;

/// The budget ran out: `what()` says which and is the Unknown's reason.
class BudgetExhausted : public Error {
 public:
  explicit BudgetExhausted(const std::string& what) : Error(what) {}
};

struct Budget {
  std::optional<SteadyClock::time_point> deadline;
  std::optional<uint64_t> memory_bytes;  ///< resident set size the process may reach
  /// What the deadline is, for the reason of an Unknown ("the run's time budget (--time-budget)").
  std::string deadline_name = "the run's time budget";
  /// What the memory budget is ("the memory budget ([solver] memory-mb)").
  std::string memory_name = "the memory budget";

  /// A budget that ends `seconds` from now.
  static SteadyClock::time_point after(double seconds);
};

/// Installs `budget` on this thread while it lives. Nested scopes keep the tighter of each limit
/// (and its name); the outer budget is restored when the scope ends.
class BudgetScope {
 public:
  explicit BudgetScope(const Budget& budget);
  ~BudgetScope();
  BudgetScope(const BudgetScope&) = delete;
  BudgetScope& operator=(const BudgetScope&) = delete;

 private:
  Budget saved_;
};

/// The budget installed on this thread (no limits when none is).
const Budget& current_budget();

/// Cheap enough for inner loops: counts calls and every kCheckpointInterval-th one compares the
/// clock and the resident memory with this thread's budget. Throws BudgetExhausted.
void checkpoint();
inline constexpr unsigned kCheckpointInterval = 1024;
/// Checks the budget now (not only every kCheckpointInterval-th call). Throws BudgetExhausted.
void check_budget();
/// Before allocating about `bytes` bytes for `what`: throws BudgetExhausted when the resident
/// memory plus `bytes` would pass the budget.
void reserve_memory(uint64_t bytes, const char* what);
/// Whether this thread's deadline has passed.
bool out_of_time();
/// Milliseconds left before this thread's deadline (nullopt without one; 0 once it passed).
std::optional<uint64_t> time_left_ms();

/// The resident set size of this process in bytes (0 if the system does not say).
uint64_t resident_bytes();
/// resident_bytes(), but when it is above `threshold`, measured again after the allocator gives
/// back the free memory it keeps: glibc keeps what each thread's arena freed (Z3 contexts of
/// helper threads that ended), which the run does not hold and may use again.
uint64_t resident_bytes_held(uint64_t threshold);

}  // namespace lp
