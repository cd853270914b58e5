#pragma once
// The performance benchmark behind `layoutproof bench` (docs/performance.md). One run measures:
//
//   corpus      `check` over the corpus (and a synthetic corpus of replicated entries, and each
//               directory of compiled kernels given), cold (fresh cache directory) and warm (the
//               same directory again): wall time and peak RSS, each run in a forked child so that
//               its memory is its own
//   properties  each property's proof time over the corpus obligations (count, median, p90, max)
//   scaling     injectivity and a warp's bank-conflict proof on tiles 8x8 .. 4096x4096 (row- and
//               column-major, padded, swizzled, byte-swizzled) and on parameter ranges
//   engines     every query (corpus and scaling) with z3, enum, f2 and auto: each engine's time,
//               auto / fastest, and every disagreement between engines that decided (a soundness
//               bug, reported loudly and failing the run)
//   parametric  the parametric obligations (bench/ParametricSet.h), each decided for every value by
//               the auto engine: verdict against the argued truth, time
//   ptx         `check` of each PTX file (the PTX front end) on one core: lines, obligations, wall time
//   cuda        each CUDA file given: nvcc's own PTX compile (the baseline, timed in the same run)
//               beside `check --cuda` (the kernels as the host code launches them; nvcc and the
//               analysis timed apart) and `check` of that PTX alone (every legal launch), each the
//               binary in a process of its own: the analysis / nvcc ratios
//   limits      the worst inputs the gate has met, each in its own process with its budget: within
//               the budget plus 10% and under its memory cap (bench/Limits.h); the result cache on
//               a large tree, uncached, cold and warm
//   targets     the targets, each with the measured value and whether it is met
//
// Timing is wall-clock on whatever machine runs it: the numbers are for reports, not for tests.
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "solver/QueryLog.h"
#include "solver/Result.h"

namespace lp::bench {

using json = nlohmann::ordered_json;

struct BenchOptions {
  std::vector<std::string> paths;   ///< the corpus (files and directories)
  std::vector<std::string> ptx_paths;  ///< PTX files (and directories) timed one by one on one core
  std::vector<std::string> cuda_paths;  ///< CUDA files timed against nvcc (the cuda section)
  /// Directories of compiled kernels (a Triton cache) each checked as a whole with every core,
  /// cold and warm, as the corpus is (rows of the corpus section, with their own target).
  std::vector<std::string> kernel_dirs;
  std::vector<std::string> nvcc_args;   ///< passed to nvcc and `check --cuda` after the file (e.g. -I DIR)
  double ptx_alone_budget_s = 60;       ///< --time-budget of the check of the PTX alone
  size_t synthetic_entries = 150;   ///< replicate the corpus to this many files (0: none)
  int repeats = 3;                  ///< corpus runs and obligations are repeated (medians); engine rounds at least
  int64_t max_tile = 4096;          ///< largest tile side of the scaling section (0: no scaling)
  int param_max_log2 = 20;          ///< largest parameter range 2^k of the scaling section
  bool engines = true;              ///< compare the engines on the corpus queries
  unsigned jobs = 0;                ///< `check` parallelism (0: one per core)
  bool isolate = true;              ///< fork a child for each corpus run and each query's engine runs
  unsigned z3_timeout_ms = 1000;    ///< per Z3 query in the comparisons (a timeout is "undecided")
  bool limits = true;               ///< run the limits section
  bool parametric = true;           ///< run the parametric section
  std::string layoutproof = "/proc/self/exe";  ///< the binary the limits section runs
  size_t cache_files = 100000;      ///< files of the limits section's cache case (0: none)
  /// Progress lines (section names), e.g. to stderr; may be empty.
  std::function<void(const std::string&)> progress;
};

/// One engine's run of one query.
struct EngineRun {
  std::string engine;
  std::string verdict;      ///< proven | refuted | unknown
  std::string detail;       ///< what else must agree (wavefronts and ideal)
  std::string reason;       ///< why unknown
  double time_ms = 0;       ///< the fastest of its runs
  int runs = 0;
  double peak_rss_mb = 0;   ///< the run's own peak (isolated), else the process's so far
};

/// A benchmark query: the source ("corpus", "scaling", "params"), the property, a label.
struct BenchQuery {
  std::string source, property, family, size, label;
  std::function<Rerun(Engine, const SolverLimits&)> run;
};

/// Runs every engine on `q`: once each (verdict; with `opt.isolate` in its own child, so that its
/// peak RSS is its own), then the engines under 200 ms again in interleaved rounds for their times.
std::vector<EngineRun> run_engines(const BenchQuery& q, const BenchOptions& opt);

/// The comparison of one query's runs: the fastest deciding engine, auto / fastest, and whether
/// the engines that decided agree (verdict, and detail where neither saw an access error).
json compare_runs(const BenchQuery& q, const std::vector<EngineRun>& runs);

/// The scaling queries: tile families x sizes (8 .. max_tile) for injectivity and a warp's
/// ld.shared.b32 access, and the parametric layouts up to 2^param_max_log2.
std::vector<BenchQuery> scaling_queries(int64_t max_tile, int param_max_log2);

/// The whole benchmark as JSON (see the file comment for the sections).
json run_bench(const BenchOptions& options);

/// The human-readable tables of a run_bench result.
std::string render_tables(const json& result);

/// count, median, p90, max of `values` (ms), as JSON.
json summary_stats(std::vector<double> values);

}  // namespace lp::bench
