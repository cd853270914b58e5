#pragma once
// Loops run on several threads: the files of a run, and the instructions of a compiled kernel
// inside one file. The run's cores are one pool: each file being checked holds one, and a loop
// inside a file borrows the cores no other work holds, as they come free, so the run's last file
// (or its only expensive one: a PTX checked beside its .cu) uses every core once the others are
// done. Every worker works under the calling thread's budget (Governor.h), and the first exception
// a body throws is rethrown to the caller once every worker has stopped.
#include <atomic>
#include <cstddef>
#include <functional>

namespace lp {

/// The threads a run of `jobs` uses: `jobs`, or one per core for 0 (the options' default).
unsigned jobs_or_cores(unsigned jobs);

/// The cores a run may use beyond those its threads hold. Thread-safe.
class CorePool {
 public:
  explicit CorePool(unsigned free_cores) : free_(static_cast<int>(free_cores)) {}
  /// Takes a free core, if there is one.
  bool try_take();
  /// Returns a core taken with try_take, or one a finishing thread held from the start.
  void give_back() { ++free_; }

 private:
  std::atomic<int> free_;
};

/// Calls body(i) for every i in [0, n), each index once, on the calling thread and on one more
/// thread for each core `cores` lends while indices remain (null: the calling thread alone); the
/// order of the calls is not defined.
void parallel_for(size_t n, CorePool* cores, const std::function<void(size_t)>& body);

/// The same on up to `jobs` threads (the caller's among them).
void parallel_for(size_t n, unsigned jobs, const std::function<void(size_t)>& body);

}  // namespace lp
