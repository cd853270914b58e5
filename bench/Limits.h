#pragma once
// The limits section of `layoutproof bench`: the worst inputs the gate has met (docs/security.md),
// each run as its own `layoutproof` process with its budget, timed from the outside and measured
// for its peak resident memory. A case is met when it ends within its time bound (its budget plus
// 10%) and under its memory cap, and says what it answered.
//
// The cache case checks a tree of `cache_files` replicated corpus files three times: without the
// cache, with a cold cache and with a warm one; the warm run must not be slower than the uncached
// one, and the cache must stay within its size bound.
#include <cstddef>
#include <string>

#include "bench/Bench.h"

namespace lp::bench {

struct LimitsOptions {
  std::string layoutproof;  ///< the binary to run (the benchmark's own, /proc/self/exe, by default)
  std::string corpus_file;  ///< an annotated file the cache case replicates
  size_t cache_files = 100000;
  std::function<void(const std::string&)> progress;
};

/// Every case as JSON: {"cases": [{name, command, wall_s, limit_s, peak_rss_mb, cap_mb, exit,
/// answer, met}], "cache": {...}}.
json limits_section(const LimitsOptions& options);

}  // namespace lp::bench
