#pragma once
// Clang-style text: one diagnostic per finding (`file:line:col: error: message [rule-id]`, the
// source line, a caret, then notes with the counterexample and the trace), then a summary line.
#include <string>

#include "report/Findings.h"

namespace lp::report {

/// One finding as clang would print it, ending with a newline. Unknowns read
/// "unknown: <message>" and carry a note saying they are neither proven nor refuted.
/// Messages are made single-line and terminal-safe (see one_line in Common.h).
std::string render_finding(const Finding& f);

/// e.g. "3 findings (2 errors, 1 warning), 1 unknown, 2 baselined, in 5 files; 41 obligations proven"
std::string summary_line(const CheckRun& run);

/// Every finding in file/line/column/rule order, then the summary line.
std::string text_report(const CheckRun& run);

}  // namespace lp::report
