#include "analyzer/support/Parallel.h"

#include <algorithm>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "analyzer/support/Governor.h"

namespace lp {

unsigned jobs_or_cores(unsigned jobs) { return jobs ? jobs : std::max(1u, std::thread::hardware_concurrency()); }

bool CorePool::try_take() {
  for (int n = free_.load(); n > 0;)
    if (free_.compare_exchange_weak(n, n - 1)) return true;
  return false;
}

void parallel_for(size_t n, CorePool* cores, const std::function<void(size_t)>& body) {
  const Budget budget = current_budget();
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr first;
  std::mutex mutex;  // guards `first` and `helpers`
  std::vector<std::thread> helpers;
  std::function<void()> work;
  // Before each index, every worker recruits one helper per core that came free, while indices
  // remain for them.
  auto recruit = [&] {
    if (!cores) return;
    while (!failed && next.load() < n && cores->try_take()) {
      std::lock_guard<std::mutex> lock(mutex);
      helpers.emplace_back([&] {
        BudgetScope scope(budget);
        work();
        cores->give_back();
      });
    }
  };
  work = [&] {
    for (size_t i; !failed && (i = next++) < n;) {
      recruit();
      try {
        body(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!first) first = std::current_exception();
        failed = true;
      }
    }
  };
  work();
  // A helper may recruit another until it ends, and it stays listed until joined here.
  for (;;) {
    std::thread t;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (helpers.empty()) break;
      t = std::move(helpers.back());
      helpers.pop_back();
    }
    t.join();
  }
  if (first) std::rethrow_exception(first);
}

void parallel_for(size_t n, unsigned jobs, const std::function<void(size_t)>& body) {
  if (jobs <= 1) return parallel_for(n, static_cast<CorePool*>(nullptr), body);
  CorePool cores(jobs - 1);
  parallel_for(n, &cores, body);
}

}  // namespace lp
