#pragma once
// Machine-readable report: {"version", "tool", "summary", "findings", "obligations"}.
// docs/reports.md documents every field; `version` is the format's version, bumped on any
// incompatible change.
#include <nlohmann/json.hpp>
#include <string>

#include "report/Findings.h"

namespace lp::report {

inline constexpr int kJsonReportVersion = 2;

nlohmann::ordered_json json_report_value(const CheckRun& run);

/// The report as text: two-space indent, a trailing newline, invalid UTF-8 replaced by U+FFFD.
std::string json_report(const CheckRun& run);

/// Serialises with the report conventions above (shared by every JSON-based output).
std::string dump_json(const nlohmann::ordered_json& j);

}  // namespace lp::report
