#include "analyzer/support/Parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "analyzer/support/Governor.h"

namespace lp {

void parallel_for(size_t n, unsigned jobs, const std::function<void(size_t)>& body) {
  const unsigned threads = static_cast<unsigned>(std::min<size_t>(std::max(1u, jobs), n));
  if (threads <= 1) {
    for (size_t i = 0; i < n; ++i) body(i);
    return;
  }
  const Budget budget = current_budget();
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr first;
  std::mutex error_mutex;
  auto worker = [&] {
    BudgetScope scope(budget);
    for (size_t i; !failed && (i = next++) < n;) {
      try {
        body(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!first) first = std::current_exception();
        failed = true;
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (first) std::rethrow_exception(first);
}

}  // namespace lp
