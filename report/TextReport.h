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

struct TextOptions {
  bool verbose = false;      ///< one line per obligation: its verdict and what the proof rests on
  bool show_proven = false;  ///< a table of the proven obligations
};

/// What a proof rests on, in words: "f2; worst 1 wavefront, ideal 1; 16 issues x 8 base residues
/// (16-byte alignment)"; "" without one.
std::string proof_text(const rules::ProofSummary& p);

/// Every finding in file/line/column/rule order, then (as asked) the obligations and the table of
/// proven ones, then the summary line.
std::string text_report(const CheckRun& run, const TextOptions& options = {});

}  // namespace lp::report
