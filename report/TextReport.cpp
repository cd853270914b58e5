#include "report/TextReport.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <map>
#include <set>

#include "report/Common.h"
#include "report/Fold.h"
#include "analyzer/support/KernelName.h"

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

// "2 errors", "1 warning", "3 notes": the findings of `s` by severity, those it has.
std::vector<std::string> by_severity(const Summary& s) {
  std::vector<std::string> out;
  if (s.errors) out.push_back(plural(s.errors, "error", "errors"));
  if (s.warnings) out.push_back(plural(s.warnings, "warning", "warnings"));
  if (s.notes) out.push_back(plural(s.notes, "note", "notes"));
  return out;
}

}  // namespace

std::string render_finding(const Finding& f) {
  Diagnostic d;
  d.severity = f.severity;
  d.loc = safe_loc(f.loc);
  d.rule_id = one_line(f.rule_id);
  d.message = f.kind == FindingKind::Unknown ? "unknown: " + one_line(f.message) : one_line(f.message);
  for (const Note& n : f.notes) d.notes.push_back({safe_loc(n.loc), one_line(n.message)});
  // What to do about an unknown, by its cause; data-dependent ones carry their own note (findings/Finding.h).
  if (f.kind == FindingKind::Unknown && rules::unknown_cause(f) == rules::UnknownCause::Limit)
    d.notes.push_back({{}, "a time or memory limit stopped this proof: it is neither proven nor refuted; to decide it, "
                           "raise the limit (--timeout-ms, [solver] timeout-ms, --time-budget, --memory-mb) or try "
                           "another engine (--engine enum|z3|f2)"});
  else if (f.kind == FindingKind::Unknown && rules::unknown_cause(f) == rules::UnknownCause::Model)
    d.notes.push_back({{}, "the solver could not decide this obligation: it is neither proven nor refuted; no limit "
                           "stopped it, so a longer one will not decide it: the reason above names what is not "
                           "modelled or decided"});
  for (const TraceStep& s : f.trace) d.notes.push_back({safe_loc(s.loc), one_line(s.message)});
  return d.render();
}


std::string summary_line(const CheckRun& run) {
  Summary s = summarize(run);
  std::string out = plural(s.findings, "finding", "findings");
  if (const std::vector<std::string> counts = by_severity(s); !counts.empty()) out += fmt::format(" ({})", fmt::join(counts, ", "));
  if (s.unknowns) out += ", " + plural(s.unknowns, "unknown", "unknowns");
  if (s.baselined) out += fmt::format(", {} baselined", s.baselined);
  out += ", in " + plural(s.files, "file", "files");
  if (s.proven == s.obligations)
    out += "; " + plural(s.proven, "obligation proven", "obligations proven");
  else
    out += fmt::format("; {} of {} proven", s.proven, plural(s.obligations, "obligation", "obligations"));
  return out;
}

std::string proof_text(const rules::ProofSummary& p) {
  std::vector<std::string> parts{p.engine};
  if (p.points) parts.push_back(plural(static_cast<size_t>(*p.points), "point", "points"));
  if (p.wavefronts && p.ideal)
    parts.push_back(fmt::format("worst {}, ideal {}", plural(static_cast<size_t>(*p.wavefronts), "wavefront", "wavefronts"), *p.ideal));
  if (p.issues) {
    std::string s = plural(static_cast<size_t>(*p.issues), "issue", "issues");
    if (p.base_residues)
      s += fmt::format(" x {}", plural(static_cast<size_t>(*p.base_residues), "base residue", "base residues"));
    if (p.base_alignment) s += fmt::format(" ({}-byte alignment)", *p.base_alignment);
    parts.push_back(s);
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

namespace {

const char* obligation_verdict(const Obligation& o) {
  if (o.passed) return "proven";
  return o.proof ? "refuted" : "not proven";
}

std::string obligation_lines(const CheckRun& run) {
  std::string out;
  for (const Note& n : run.assumptions) {
    const Position p = position_of(n.loc);
    const std::string where = p.file.empty() ? "<no location>" : fmt::format("{}:{}:{}", one_line(p.file), p.line, p.column);
    out += fmt::format("{}: assumes: {}\n", where, one_line(n.message));
  }
  for (const Obligation* o : sorted_obligations(run.obligations)) {
    const Position p = position_of(o->loc);
    const std::string where = p.file.empty() ? "<no location>" : fmt::format("{}:{}:{}", one_line(p.file), p.line, p.column);
    out += fmt::format("{}: {}: {} [{}] ({}{:.1f} ms)\n", where, obligation_verdict(*o), one_line(o->description), o->rule_id,
                       o->proof ? proof_text(*o->proof) + "; " : "", o->time_ms);
  }
  return out;
}

std::string proven_table(const CheckRun& run) {
  std::vector<std::array<std::string, 5>> rows;
  for (const Obligation* o : sorted_obligations(run.obligations)) {
    if (!o->passed) continue;
    const Position p = position_of(o->loc);
    rows.push_back({p.file.empty() ? "-" : fmt::format("{}:{}:{}", one_line(p.file), p.line, p.column), o->rule_id,
                    o->proof ? proof_text(*o->proof) : "-", fmt::format("{:.1f} ms", o->time_ms), one_line(o->description)});
  }
  std::string out = fmt::format("{}:\n", plural(rows.size(), "proven obligation", "proven obligations"));
  if (rows.empty()) return out;
  const std::array<std::string, 5> head{"location", "rule", "proof", "time", "obligation"};
  std::array<size_t, 5> width{};
  for (size_t c = 0; c < 5; ++c) {
    width[c] = head[c].size();
    for (const auto& r : rows) width[c] = std::max(width[c], r[c].size());
  }
  auto line = [&](const std::array<std::string, 5>& r) {
    return fmt::format("  {:<{}}  {:<{}}  {:<{}}  {:>{}}  {}\n", r[0], width[0], r[1], width[1], r[2], width[2], r[3], width[3], r[4]);
  };
  out += line(head);
  for (const auto& r : rows) out += line(r);
  return out;
}

// The findings on compiled kernels counted per kernel ("  row_sum<32>: 2 errors, 1 unknown"), a
// folded finding once for each kernel it lists; nothing when they are in one kernel at most (the
// headlines name it).
std::string kernel_lines(const CheckRun& run) {
  std::map<std::string, Summary> kernels;
  for (const Finding& f : run.findings) {
    std::set<std::string> seen;
    for (const rules::CompiledInstance& c : f.compiled)
      if (seen.insert(c.kernel).second) count_finding(kernels[c.kernel], f);
  }
  if (kernels.size() < 2) return "";
  std::string out = "findings by kernel:\n";
  for (const auto& [kernel, n] : kernels) {
    std::vector<std::string> parts = by_severity(n);
    if (n.unknowns) parts.push_back(plural(n.unknowns, "unknown", "unknowns"));
    out += fmt::format("  {}: {}\n", one_line(short_kernel_name(kernel)), fmt::join(parts, ", "));
  }
  return out;
}

}  // namespace

std::string text_report(const CheckRun& run, const TextOptions& options) {
  std::string out;
  for (const Finding* f : sorted_findings(run.findings)) out += render_finding(*f);
  if (options.verbose) out += obligation_lines(run);
  if (options.show_proven) out += proven_table(run);
  out += kernel_lines(run);
  out += summary_line(run);
  out += '\n';
  return out;
}

}  // namespace lp::report
