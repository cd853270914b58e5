#pragma once
// The results of checking one file, cached on disk by content: a hash of the file's path and
// text, the configuration, the engine and the running build (a rebuilt binary never reuses
// another build's results).
//
// Policy, so that a warm run is never slower than one without the cache:
//   - only results that took at least `min_check_ms` to compute are stored: a cheaper file is
//     checked again faster than its entry is read back;
//   - files without annotations never touch the cache (the check does nothing an entry saves);
//   - results with an unknown a limit left undecided (time, memory: Finding::limited) are never
//     stored; an unknown that is the same every run (a modelling gap) is;
//   - the directory is kept under `max_bytes` by removing the least recently used entries (an
//     entry's modification time is refreshed when it is used) after a run that wrote any.
// Entries are read back defensively: anything out of range (a location past the end of the file,
// an unknown enum value) makes the entry damaged, and it is recomputed and overwritten; an entry
// records the key of the inputs it was computed from, and one that names other inputs (an entry
// copied over another file's) is ignored the same way.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/diag/Diagnostic.h"
#include "findings/Finding.h"
#include "rules/Config.h"

namespace lp::rules {

/// What checking one file gave.
struct FileResult {
  std::vector<rules::Finding> findings;
  std::vector<rules::Obligation> obligations;
  std::vector<Note> assumptions;  ///< CheckRun::assumptions of this file
};

struct CacheOptions {
  std::string dir;
  double min_check_ms = 2.0;                        ///< cheaper results are not stored
  uint64_t max_bytes = uint64_t{256} << 20;         ///< the directory's size bound
};

class ResultCache {
 public:
  explicit ResultCache(CacheOptions options) : options_(std::move(options)) {}

  /// The key of `text` read from `path`, checked under `config`; `inputs` is what else its results
  /// depend on (the run's CuTe definitions, for a file that names one: rule LP012).
  static std::string key(const std::string& path, const std::string& text, const Config& config, const std::string& inputs);
  /// The stored result of `key`, its locations in `source`; nullopt when absent or damaged.
  std::optional<FileResult> lookup(const std::string& key, const std::shared_ptr<const SourceText>& source) const;
  /// Stores `result` (its locations in `source`, or in the other files a compiled kernel's findings
  /// quote) when the policy above allows it; true when it was written.
  bool store(const std::string& key, const FileResult& result, double check_ms,
             const std::shared_ptr<const SourceText>& source) const;
  /// Removes the least recently used entries until the directory is under its bound again.
  void evict() const;

  const CacheOptions& options() const { return options_; }

 private:
  CacheOptions options_;
};

}  // namespace lp::rules
