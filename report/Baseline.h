#pragma once
// Baselines: a JSON file of accepted findings, so a gate can be switched on in a repository that
// already has some. Format: {"version": 1, "findings": [{"rule", "file", "fingerprint", "message"}]}.
// A finding matches an entry when rule, file (normalised: '/' separators, no "./") and fingerprint
// agree; `message` is for the reader and only matched for findings without a fingerprint. Each
// entry accepts one finding, so a second copy of a known problem still fails the gate.
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "report/Findings.h"
#include "analyzer/support/Error.h"

namespace lp::report {

inline constexpr int kBaselineVersion = 1;
/// Larger baseline files are refused unread (a 100,000-finding baseline is about 25 MB).
inline constexpr uint64_t kMaxBaselineBytes = uint64_t{64} << 20;

/// A baseline file that cannot be read or is not a valid baseline.
class BaselineError : public Error {
 public:
  BaselineError(std::string file, std::string problem);
  const std::string& file() const { return file_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string file_, problem_;
};

struct BaselineEntry {
  std::string rule;
  std::string file;
  std::string fingerprint;
  std::string message;
  bool operator==(const BaselineEntry&) const = default;
};

struct Baseline {
  std::vector<BaselineEntry> entries;

  /// Every finding of the run, reported and already accepted, sorted like the reports.
  static Baseline from_run(const CheckRun& run);
  /// `name` is the file name used in error messages.
  static Baseline parse(std::string_view text, const std::string& name);
  static Baseline read(const std::string& path);
  std::string to_json() const;
  void write(const std::string& path) const;
};

/// Moves the findings the baseline accepts from run.findings to run.accepted, adds their number to
/// run.baselined and returns it.
size_t apply_baseline(CheckRun& run, const Baseline& baseline);

/// A file path as baselines store it: '/' separators, lexically normal, no leading "./".
std::string baseline_path(const std::string& file);

}  // namespace lp::report
