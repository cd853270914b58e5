#pragma once
// `layoutproof report`'s summary.md: the findings as a Markdown table plus one short section each.
#include <string>

#include "report/pages/FindingsDoc.h"

namespace lp::report {

std::string render_markdown_report(const FindingsDoc& doc);

/// Writes DIR/index.html and DIR/summary.md, creating DIR. Throws ReportInputError when it cannot.
void write_report_dir(const FindingsDoc& doc, const std::string& dir);

}  // namespace lp::report
