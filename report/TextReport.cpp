#include "report/TextReport.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "report/Common.h"

namespace lp::report {

namespace {

// File names come from the user's tree and are printed before the line number; a name with
// control bytes gets a sanitised copy of its SourceText so it cannot drive the terminal.
SourceLoc safe_loc(const SourceLoc& loc) {
  if (!loc.source || one_line(loc.source->name) == loc.source->name) return loc;
  auto copy = std::make_shared<SourceText>(*loc.source);
  copy->name = one_line(copy->name);
  return {copy, loc.offset};
}

std::string plural(size_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

}  // namespace

std::string render_finding(const Finding& f) {
  Diagnostic d;
  d.severity = f.severity;
  d.loc = safe_loc(f.loc);
  d.rule_id = one_line(f.rule_id);
  d.message = f.kind == FindingKind::Unknown ? "unknown: " + one_line(f.message) : one_line(f.message);
  for (const Note& n : f.notes) d.notes.push_back({safe_loc(n.loc), one_line(n.message)});
  if (f.kind == FindingKind::Unknown)
    d.notes.push_back({{}, "the solver could not decide this obligation: it is neither proven nor refuted"});
  for (const TraceStep& s : f.trace) d.notes.push_back({safe_loc(s.loc), one_line(s.message)});
  return d.render();
}

std::string summary_line(const CheckRun& run) {
  Summary s = summarize(run);
  std::string out = plural(s.findings, "finding", "findings");
  std::vector<std::string> by_severity;
  if (s.errors) by_severity.push_back(plural(s.errors, "error", "errors"));
  if (s.warnings) by_severity.push_back(plural(s.warnings, "warning", "warnings"));
  if (s.notes) by_severity.push_back(plural(s.notes, "note", "notes"));
  if (!by_severity.empty()) out += fmt::format(" ({})", fmt::join(by_severity, ", "));
  if (s.unknowns) out += ", " + plural(s.unknowns, "unknown", "unknowns");
  if (s.baselined) out += fmt::format(", {} baselined", s.baselined);
  out += ", in " + plural(s.files, "file", "files");
  if (s.proven == s.obligations)
    out += "; " + plural(s.proven, "obligation proven", "obligations proven");
  else
    out += fmt::format("; {} of {} proven", s.proven, plural(s.obligations, "obligation", "obligations"));
  return out;
}

std::string text_report(const CheckRun& run) {
  std::string out;
  for (const Finding* f : sorted_findings(run.findings)) out += render_finding(*f);
  out += summary_line(run);
  out += '\n';
  return out;
}

}  // namespace lp::report
