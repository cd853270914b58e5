#include "report/pages/MarkdownReport.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <fstream>

#include "report/pages/BankView.h"
#include "report/Common.h"
#include "report/pages/HtmlReport.h"

namespace lp::report {

namespace {

// Inline Markdown text that renders literally: one line, and every character that could start
// emphasis, a link, code, raw HTML or a table cell is backslash-escaped.
std::string md(std::string_view s) {
  if (s.empty()) return "-";
  std::string out;
  for (char ch : one_line(s)) {
    if (std::string_view("\\`*_[]<>|#!&").find(ch) != std::string_view::npos) out += '\\';
    out += ch;
  }
  return out;
}

std::string location(const SourceLoc& loc) {
  const std::string at = location_text(loc);
  return at.empty() ? "-" : at;
}

// The one-line gist of a counterexample, for the kinds that have pictures in the HTML page.
std::string gist_of(const rules::BankConflictCex& ce) {
  const BankView v = bank_view(ce);
  return fmt::format("worst phase {} of {}: bank {} delivers {} distinct words to lanes {} ({} wavefronts in all, {} ideal)",
                     v.worst, v.cost.phases.size(), v.phase().bank, v.phase().words.size(), fmt::join(v.colliding, ", "),
                     v.cost.wavefronts, v.cost.ideal);
}
std::string gist_of(const rules::InjectivityCex& ce) {
  return fmt::format("elements [{}] share the place [{}]", fmt::join(ce.indices, ","), fmt::join(ce.image, ","));
}
std::string gist_of(const rules::CoverageCex& ce) { return fmt::format("uncovered: [{}]", fmt::join(ce.uncovered, ",")); }
std::string gist_of(const rules::AlgebraCex& ce) {
  return fmt::format("at coordinate {}: expected {}, actual {}", ce.index ? ce.coordinate : "?", ce.expected, ce.actual);
}
template <class Cex>
std::string gist_of(const Cex&) {
  return {};
}

std::string gist(const rules::Finding& f) {
  try {
    return std::visit([](const auto& ce) -> std::string {
      if constexpr (std::is_same_v<std::decay_t<decltype(ce)>, std::monostate>) return {};
      else return gist_of(ce);
    }, f.counterexample);
  } catch (const std::exception& e) {
    return std::string("no picture: ") + e.what();
  }
}

}  // namespace

std::string render_markdown_report(const FindingsDoc& doc) {
  std::string s = "# LayoutProof report\n\n";
  s += fmt::format("{} findings. Pictures of each counterexample: index.html.\n\n", doc.findings.size());
  s += "| # | rule | severity | location | message |\n|---|---|---|---|---|\n";
  for (size_t i = 0; i < doc.findings.size(); ++i) {
    const rules::Finding& f = doc.findings[i].finding;
    s += fmt::format("| {} | {} | {} | {} | {} |\n", i + 1, md(f.rule_id), md(severity_name(f.severity)), md(location(f.loc)),
                     md(f.message));
  }
  for (size_t i = 0; i < doc.findings.size(); ++i) {
    const rules::Finding& f = doc.findings[i].finding;
    s += fmt::format("\n## {}. {} ({})\n\n{}: {}\n", i + 1, md(f.rule_id), md(severity_name(f.severity)), md(location(f.loc)),
                     md(f.message));
    for (const auto& n : f.notes) {
      const std::string loc = location(n.loc);
      s += fmt::format("- {}{}\n", loc == "-" ? "" : md(loc) + ": ", md(n.message));
    }
    if (std::string g = gist(f); !g.empty()) s += "\nCounterexample: " + md(g) + "\n";
    if (const auto& replay = doc.findings[i].replay) s += "\nGPU replay: " + md(replay_text(*replay)) + "\n";
  }
  return s;
}

void write_report_dir(const FindingsDoc& doc, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw ReportInputError("cannot create " + dir + ": " + ec.message());
  for (const auto& [name, text] : {std::pair{std::string("index.html"), render_html_report(doc)},
                                   std::pair{std::string("summary.md"), render_markdown_report(doc)}}) {
    const auto path = std::filesystem::path(dir) / name;
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out) throw ReportInputError("cannot write " + path.string());
  }
}

}  // namespace lp::report
