#pragma once
// One entry point for `check --format`: every report format by name.
#include <optional>
#include <string>
#include <string_view>

#include "report/Findings.h"
#include "report/SarifReport.h"
#include "report/TextReport.h"

namespace lp::report {

enum class Format { Text, Json, Sarif, Junit, CodeQuality };

/// "text", "json", "sarif", "junit" or "codequality"; nullopt for anything else.
std::optional<Format> parse_format(std::string_view name);

/// The complete report in `format`, deterministic for a given run (SARIF options aside).
std::string render_report(Format format, const CheckRun& run, const SarifOptions& sarif = {}, const TextOptions& text = {});

}  // namespace lp::report
