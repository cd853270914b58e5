// The run's cores as one pool (analyzer/support/Parallel.h): a loop inside a file runs every index
// once, borrows the cores the pool lends as they come free, and returns them.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "analyzer/support/Parallel.h"

namespace {

// The threads a loop's bodies ran on.
struct Threads {
  std::mutex mutex;
  std::condition_variable changed;
  std::set<std::thread::id> seen;
  void add() {
    std::lock_guard<std::mutex> lock(mutex);
    seen.insert(std::this_thread::get_id());
    changed.notify_all();
  }
  // Waits (at most 10 s, so a failure cannot hang the suite) until `n` threads have run a body.
  bool wait_for(size_t n) {
    std::unique_lock<std::mutex> lock(mutex);
    return changed.wait_for(lock, std::chrono::seconds(10), [&] { return seen.size() >= n; });
  }
};

// How many cores the pool lends now (taking them all, then giving them back).
int free_cores(lp::CorePool& pool) {
  int n = 0;
  while (pool.try_take()) ++n;
  for (int k = 0; k < n; ++k) pool.give_back();
  return n;
}

}  // namespace

TEST_CASE("parallel_for: without a pool every index runs once, on the calling thread", "[support][parallel]") {
  std::vector<int> runs(100, 0);
  Threads threads;
  lp::parallel_for(runs.size(), static_cast<lp::CorePool*>(nullptr), [&](size_t i) {
    ++runs[i];
    threads.add();
  });
  for (int r : runs) CHECK(r == 1);
  CHECK(threads.seen == std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST_CASE("parallel_for: the pool's free cores run indices, each once, and are returned", "[support][parallel]") {
  lp::CorePool pool(3);
  std::vector<std::atomic<int>> runs(200);
  Threads threads;
  lp::parallel_for(runs.size(), &pool, [&](size_t i) {
    ++runs[i];
    threads.add();
    // Every body waits until a second thread ran one: the helpers must really work.
    threads.wait_for(2);
  });
  for (auto& r : runs) CHECK(r.load() == 1);
  CHECK(threads.seen.size() >= 2);
  CHECK(threads.seen.size() <= 4);
  CHECK(free_cores(pool) == 3);
}

TEST_CASE("parallel_for: a core given back while the loop runs is borrowed for the rest of it", "[support][parallel]") {
  // As a run's other file finishing: the pool lends nothing when the loop starts, and a core from
  // the first body on.
  lp::CorePool pool(0);
  Threads threads;
  std::atomic<int> count{0};
  lp::parallel_for(50, &pool, [&](size_t i) {
    if (i == 0) pool.give_back();
    ++count;
    threads.add();
    if (i > 0) threads.wait_for(2);
  });
  CHECK(count.load() == 50);
  CHECK(threads.seen.size() == 2);
  CHECK(free_cores(pool) == 1);
}

TEST_CASE("parallel_for: the first exception reaches the caller once every worker stopped", "[support][parallel]") {
  lp::CorePool pool(2);
  std::atomic<int> running{0};
  CHECK_THROWS_AS(lp::parallel_for(64, &pool,
                                   [&](size_t i) {
                                     ++running;
                                     if (i == 5) throw std::runtime_error("index 5");
                                     --running;
                                   }),
                  std::runtime_error);
  CHECK(running.load() == 1);  // only the body that threw did not finish
  CHECK(free_cores(pool) == 2);
}

TEST_CASE("parallel_for: a number of jobs runs every index once", "[support][parallel]") {
  for (unsigned jobs : {0u, 1u, 2u, 8u}) {
    std::vector<std::atomic<int>> runs(97);
    lp::parallel_for(runs.size(), jobs, [&](size_t i) { ++runs[i]; });
    for (auto& r : runs) CHECK(r.load() == 1);
  }
}
