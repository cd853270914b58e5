#pragma once
// `layoutproof check`: every annotated file under the given paths, parsed and checked by every
// registered rule, files in parallel, results cached by content.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rules/Finding.h"
#include "rules/Config.h"
#include "rules/PtxCheck.h"

namespace lp::rules {

struct CheckOptions {
  Config config;
  unsigned jobs = 0;                     ///< 0: one per core
  std::optional<std::string> cache_dir;  ///< nullopt: no cache (rules/ResultCache.h)
  /// Results that took less than this are not cached (reading an entry back costs about as much).
  double cache_min_check_ms = 2.0;
  /// Called after each file (done, total, path), from the checking threads one at a time.
  std::function<void(size_t, size_t, const std::string&)> progress;
  PtxSourcePolicy ptx_sources;  ///< source files PTX findings may quote besides the tree's
  /// Files, besides those checked, whose lines a finding on a generated statement may show (the
  /// probe of `layoutproof extract`); see rules/Origins.h.
  std::vector<std::string> shown_files;
};

/// Problems with the paths themselves (missing, unreadable, a symlink loop): reported as
/// findings of LP000 at no location, never thrown.
rules::CheckRun check_paths(const std::vector<std::string>& paths, const CheckOptions& options);

/// One document held in memory, checked as a file named `name` would be: its extension says how
/// annotations are written in it (.lp, .py, .cu, ..., or .ptx for a compiled kernel), and
/// findings are located in `text` under that name. No cache; `options.jobs` is not used.
rules::CheckRun check_source(const std::string& name, std::string text, const CheckOptions& options);

/// The files under `paths` that may hold annotations, in a stable order; problems go to `errors`.
std::vector<std::string> collect_files(const std::vector<std::string>& paths, std::vector<std::string>& errors);

}  // namespace lp::rules
