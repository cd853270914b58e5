#pragma once
// `layoutproof check`: every annotated file under the given paths, parsed and checked by every
// registered rule, files in parallel, results cached by content.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frontend/ptx/KernelFacts.h"
#include "analyzer/support/Governor.h"
#include "findings/Finding.h"
#include "rules/Config.h"

namespace lp::rules {

/// A PTX file the run compiled from a CUDA translation unit (`check --cuda`, `check -p`).
struct CompiledPtxFile {
  /// What the front end reads besides the PTX, instead of CheckOptions::ptx: the unit's source and
  /// host launches, the run's `--launch` options and kernel filter.
  ptx::FrontEndInputs inputs;
  /// The name the PTX's lines are shown under: its path when it is kept (`--keep-ptx`), else a
  /// name that says it is not ("<PTX of src/a.cu for sm_90>").
  std::string shown_as;
};

struct CheckOptions {
  Config config;
  unsigned jobs = 0;                     ///< 0: one per core
  std::optional<std::string> cache_dir;  ///< nullopt: no cache (rules/ResultCache.h)
  /// Results that took less than this are not cached (reading an entry back costs about as much).
  double cache_min_check_ms = 2.0;
  /// Called after each file (done, total, path), from the checking threads one at a time.
  std::function<void(size_t, size_t, const std::string&)> progress;
  /// What the PTX front end reads besides the PTX: sources findings may quote besides the tree's,
  /// `--launch` options, the translation unit's host launches (`--cuda`). The configuration's
  /// `[ptx.launch]` is added from `config`.
  ptx::FrontEndInputs ptx;
  /// The PTX files among the paths that the run compiled, by path.
  std::map<std::string, CompiledPtxFile> compiled;
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

/// The budget of a run under `config`: its time budget from now and its memory budget
/// (analyzer/support/Governor.h).
Budget run_budget(const Config& config);

/// Whether `path` names a PTX file (by its extension): checked by the PTX front end.
bool is_ptx_path(const std::string& path);

/// True when a finding says an input could not be read as a compiled kernel (LP011): `check`
/// exits 2 for it.
bool is_input_error(const rules::Finding& f);

/// The files under `paths` that may hold annotations, in a stable order; problems go to `errors`.
std::vector<std::string> collect_files(const std::vector<std::string>& paths, std::vector<std::string>& errors);

}  // namespace lp::rules
