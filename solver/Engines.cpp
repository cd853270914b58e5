#include "solver/Engines.h"

#include <algorithm>
#include <climits>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace lp {

namespace {

thread_local std::optional<SteadyClock::time_point> tl_z3_deadline;

// Deleting a Z3 context can take seconds after a query that timed out (Z3 frees the terms of its
// search one by one: 6.7 s for 500 MB, measured on Z3 4.8.12), so contexts are deleted on a thread
// of their own and a timeout stays a timeout. The queue drains before the process's static
// objects go; a driver that has nothing left to do but this exits at once (z3_teardown_pending).
// It holds a few contexts at most: a rule that asks one small query per instruction makes
// contexts faster than one thread deletes them, and each waiting holds its memory (a gigabyte
// in all, on a file of 200 kernels); past that, the caller deletes its own.
class Z3Reaper {
 public:
  static Z3Reaper& instance() {
    static Z3Reaper reaper;
    return reaper;
  }

  void push(Z3_context c) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (queue_.size() < kMaxWaiting) {
        queue_.push_back(c);
        if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
        wake_.notify_one();
        return;
      }
    }
    delete_context(c);
  }

  bool pending() {
    std::lock_guard<std::mutex> lock(mutex_);
    return busy_ || !queue_.empty();
  }

  ~Z3Reaper() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_one();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void run() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      wake_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left
      Z3_context c = queue_.front();
      queue_.pop_front();
      busy_ = true;
      lock.unlock();
      delete_context(c);
      lock.lock();
      busy_ = false;
    }
  }

  static constexpr size_t kMaxWaiting = 4;

  // A context deleted after Z3 ran past its memory cap may throw Z3's own exception (not a
  // std::exception); nothing may escape it.
  static void delete_context(Z3_context c) {
    try {
      Z3_del_context(c);
    } catch (...) {
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Z3_context> queue_;
  bool busy_ = false, stop_ = false;
  std::thread thread_;
};

}  // namespace

bool z3_teardown_pending() { return Z3Reaper::instance().pending(); }

Z3QueryClock::Z3QueryClock(unsigned timeout_ms) : saved_(tl_z3_deadline) {
  tl_z3_deadline = SteadyClock::now() + std::chrono::milliseconds(timeout_ms);
}

Z3QueryClock::~Z3QueryClock() { tl_z3_deadline = saved_; }

uint64_t z3_memory_cap_mb(const SolverLimits& limits) {
  uint64_t cap_mb = limits.memory_mb;
  if (const auto& budget = current_budget().memory_bytes) {
    // Z3 counts its allocations process-wide (every thread's contexts, and those still being
    // deleted); the process's resident memory includes them. What Z3 may hold is the budget less
    // what the rest of the process holds, so threads computing this at once agree on it, and a
    // context made while another query runs does not pull the cap below that query's.
    // Half the budget held outside Z3 is more than the checker's own data: ask the allocator first.
    const uint64_t z3_bytes = Z3_get_estimated_alloc_size(), resident = resident_bytes_held(z3_bytes + *budget / 2);
    const uint64_t others = resident > z3_bytes ? resident - z3_bytes : 0;
    cap_mb = std::min<uint64_t>(cap_mb, others < *budget ? (*budget - others) >> 20 : 0);
  }
  return std::min<uint64_t>(cap_mb, INT32_MAX);
}

Z3Context::Z3Context(const SolverLimits& limits) : cap_mb_(z3_memory_cap_mb(limits)) {
  // Below what Z3 already holds, the cap would fail allocations anywhere, deletions included.
  if (cap_mb_ <= (Z3_get_estimated_alloc_size() >> 20) + 1)
    throw z3::exception("out of memory: the run's memory budget leaves Z3 no room for a context");
  z3::set_param("memory_max_size", static_cast<int>(cap_mb_));
  Z3_config cfg = Z3_mk_config();
  raw_ = Z3_mk_context_rc(cfg);
  Z3_del_config(cfg);
  if (!raw_) throw z3::exception("out of memory: Z3 could not create a context under its memory cap");
  view_.emplace(raw_);
}

Z3Context::~Z3Context() {
  view_.reset();
  Z3Reaper::instance().push(raw_);
}

unsigned z3_check_timeout_ms(const SolverLimits& limits) {
  uint64_t ms = limits.timeout_ms;
  if (tl_z3_deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*tl_z3_deadline - SteadyClock::now()).count();
    ms = std::min<uint64_t>(ms, static_cast<uint64_t>(std::max<int64_t>(0, left)));
  }
  if (const auto left = time_left_ms()) ms = std::min(ms, *left);
  // Z3 stops some time after its timer fires (measured here: 30 to 210 ms past a 2 s timeout on a
  // non-linear query); it is asked for the time less a reserve for that, so the query as a whole
  // ends within its limit.
  ms -= std::min<uint64_t>(ms / 10, kZ3StopReserveMs);
  return static_cast<unsigned>(std::max<uint64_t>(1, ms));
}

z3::solver make_solver(z3::context& ctx, const SolverLimits& limits) {
  z3::solver s(ctx);
  z3::params p(ctx);
  p.set("timeout", z3_check_timeout_ms(limits));
  s.set(p);
  return s;
}

z3::check_result checked_check(z3::solver& solver, std::string* reason) {
  try {
    z3::check_result r = solver.check();
    // A check whose timeout the run's budget cut short says so: the budget, not Z3, decided.
    if (r == z3::unknown && reason)
      *reason = out_of_time() ? current_budget().deadline_name + " was spent while Z3 worked"
                              : "Z3 returned unknown: " + solver.reason_unknown();
    return r;
  } catch (const z3::exception& e) {
    if (reason) *reason = std::string("Z3 gave up: ") + e.msg();
    return z3::unknown;
  }
}

}  // namespace lp
