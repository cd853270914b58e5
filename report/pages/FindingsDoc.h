#pragma once
// The findings JSON of `layoutproof check --format json` (docs/reports.md) read back for the HTML
// and Markdown reports: an object with a "findings" array, each finding read by the finding's own
// codec (rules::finding_from_json), so a field the writer writes is a field the reader requires;
// a finding without a counterexample still gets its section, only without a picture.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "findings/Finding.h"

namespace lp::report {

/// Malformed findings JSON; the message names the input and the offending place.
class ReportInputError : public std::runtime_error {
 public:
  explicit ReportInputError(const std::string& what) : std::runtime_error(what) {}
};

/// What `layoutproof replay --run` recorded for a finding (its "replay" object, docs/replay.md).
struct DocReplay {
  bool replayed = false;
  std::string why;  ///< why it was not replayed
  std::string device, arch, method, program;
  std::optional<int64_t> predicted, measured;  ///< measured: nullopt when the method measured nothing
  std::optional<bool> agrees;                  ///< nullopt when nothing was measured
};

/// A finding of the document: the finding itself (findings/Finding.h, read by its one codec) and what
/// `layoutproof replay --run` recorded for it.
struct ReportedFinding {
  rules::Finding finding;
  std::optional<DocReplay> replay;  ///< only in findings that went through `replay --run`
};

/// One line saying how the replay went: device, method, predicted vs measured, agreement.
std::string replay_text(const DocReplay& r);

struct FindingsDoc {
  std::vector<ReportedFinding> findings;
};

/// Parses `text` (named `name` in errors). Throws ReportInputError.
FindingsDoc parse_findings_doc(std::string_view text, const std::string& name);
/// The findings of `run` as the JSON report lists them (sorted), without a round trip through text.
FindingsDoc findings_doc(const rules::CheckRun& run);

}  // namespace lp::report
