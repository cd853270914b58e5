#pragma once
// `layoutproof report`: one self-contained HTML page (inline CSS and SVG, nothing fetched) with a
// summary table and one section per finding, each with a picture of its counterexample
// (docs/report-html.md).
#include <string>

#include "report/pages/FindingsDoc.h"

namespace lp::report {

/// Largest tile or target grid drawn, per side; bigger ones are cut and the page says so.
inline constexpr int64_t kMaxGridSide = 64;

std::string render_html_report(const FindingsDoc& doc);

/// Escapes text for HTML element content and quoted attributes; invalid UTF-8 and control
/// characters other than tab and newline become U+FFFD.
std::string html_escape(std::string_view s);

}  // namespace lp::report
