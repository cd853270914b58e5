#include "analyzer/support/Governor.h"

#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fmt/format.h>

namespace lp {

namespace {

thread_local Budget tl_budget;
thread_local unsigned tl_calls = 0;
constexpr int64_t kTrimIntervalMs = 100;

[[noreturn]] void out_of_time_error(const Budget& b) { throw BudgetExhausted(b.deadline_name + " was spent"); }

[[noreturn]] void out_of_memory_error(const Budget& b, uint64_t resident, uint64_t more, const char* what) {
  const uint64_t mib = uint64_t{1} << 20;
  if (more == 0)
    throw BudgetExhausted(fmt::format("{} of {} MiB was reached ({} MiB resident)", b.memory_name, *b.memory_bytes / mib,
                                      resident / mib));
  throw BudgetExhausted(fmt::format("{} of {} MiB does not allow {} ({} MiB more, {} MiB resident)", b.memory_name,
                                    *b.memory_bytes / mib, what, (more + mib - 1) / mib, resident / mib));
}

}  // namespace

SteadyClock::time_point Budget::after(double seconds) {
  return SteadyClock::now() + std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(seconds));
}

BudgetScope::BudgetScope(const Budget& budget) : saved_(tl_budget) {
  if (budget.deadline && (!tl_budget.deadline || *budget.deadline < *tl_budget.deadline)) {
    tl_budget.deadline = budget.deadline;
    tl_budget.deadline_name = budget.deadline_name;
  }
  if (budget.memory_bytes && (!tl_budget.memory_bytes || *budget.memory_bytes < *tl_budget.memory_bytes)) {
    tl_budget.memory_bytes = budget.memory_bytes;
    tl_budget.memory_name = budget.memory_name;
  }
}

BudgetScope::~BudgetScope() { tl_budget = saved_; }

const Budget& current_budget() { return tl_budget; }

void checkpoint() {
  if (++tl_calls % kCheckpointInterval == 0) check_budget();
}

void check_budget() {
  const Budget& b = tl_budget;
  if (b.deadline && SteadyClock::now() >= *b.deadline) out_of_time_error(b);
  if (b.memory_bytes) {
    const uint64_t resident = resident_bytes_held(*b.memory_bytes);
    if (resident > *b.memory_bytes) out_of_memory_error(b, resident, 0, "");
  }
}

void reserve_memory(uint64_t bytes, const char* what) {
  const Budget& b = tl_budget;
  if (!b.memory_bytes) return;
  const uint64_t resident = bytes > *b.memory_bytes ? resident_bytes() : resident_bytes_held(*b.memory_bytes - bytes);
  if (bytes > *b.memory_bytes || resident > *b.memory_bytes - bytes) out_of_memory_error(b, resident, bytes, what);
}

bool out_of_time() { return tl_budget.deadline && SteadyClock::now() >= *tl_budget.deadline; }

std::optional<uint64_t> time_left_ms() {
  if (!tl_budget.deadline) return std::nullopt;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*tl_budget.deadline - SteadyClock::now());
  return static_cast<uint64_t>(std::max<int64_t>(0, left.count()));
}

uint64_t resident_bytes() {
  // /proc/self/statm: size resident shared text lib data dt, in pages. A raw read: no allocation,
  // so it works when memory is what ran out.
  const int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[128];
  const ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = '\0';
  unsigned long long size = 0, resident = 0;
  if (std::sscanf(buf, "%llu %llu", &size, &resident) != 2) return 0;
  return static_cast<uint64_t>(resident) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

uint64_t resident_bytes_held(uint64_t threshold) {
  const uint64_t resident = resident_bytes();
  if (resident <= threshold) return resident;
  // malloc_trim walks every arena: at most once per 100 ms, the plain reading in between.
  static std::atomic<int64_t> last_trim_ms{-kTrimIntervalMs};
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now().time_since_epoch()).count();
  int64_t last = last_trim_ms.load();
  if (now - last < kTrimIntervalMs || !last_trim_ms.compare_exchange_strong(last, now)) return resident;
  malloc_trim(0);
  return resident_bytes();
}

}  // namespace lp
