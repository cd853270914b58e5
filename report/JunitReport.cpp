#include "report/JunitReport.h"

#include <fmt/format.h>

#include <map>
#include <tuple>

#include "report/Common.h"
#include "report/TextReport.h"

namespace lp::report {

std::string xml_escape(std::string_view s, bool attribute) {
  std::string out;
  out.reserve(s.size());
  for_each_code_point(s, [&](char32_t cp, bool valid) {
    bool allowed = valid && (cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) ||
                             (cp >= 0xE000 && cp <= 0xFFFD) || cp >= 0x10000);
    if (!allowed) {
      append_utf8(out, 0xFFFD);
      return;
    }
    switch (cp) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\r': out += "&#13;"; break;  // a raw CR would be normalised to LF by any parser
      case '\n': out += attribute ? "&#10;" : "\n"; break;
      case '\t': out += attribute ? "&#9;" : "\t"; break;
      default: append_utf8(out, cp);
    }
  });
  return out;
}

namespace {

struct Case {
  std::string name;
  Position pos;
  double time_ms = 0;
  std::vector<const Finding*> findings;  ///< empty for a passed obligation
  const Finding* accepted = nullptr;     ///< the baseline accepted this obligation's finding
  bool failed = false;                   ///< obligation not passed
};

struct Suite {
  std::vector<Case> cases;
};

using Key = std::tuple<std::string, std::string, size_t, size_t>;  // rule, file, line, column

Key key_of(const std::string& rule, const SourceLoc& loc) {
  Position p = position_of(loc);
  return {rule, p.file, p.line, p.column};
}

std::string case_name(const Position& p, const std::string& what, const std::string& rule) {
  std::string name = p.line ? fmt::format("{}:{}: {}", p.line, p.column, what) : what;
  return rule.empty() ? name : fmt::format("{} [{}]", name, rule);
}

std::string seconds(double ms) { return fmt::format("{:.3f}", ms / 1000.0); }

const char* kNoFile = "(no file)";

}  // namespace

std::string junit_report(const CheckRun& run) {
  std::map<std::string, Suite> suites;
  for (const std::string& f : run.files) suites[f];

  // Failed obligations, in order, by key: each finding goes to the first one with its key that has
  // no finding yet (or shares the first when there are more findings than obligations).
  std::map<Key, std::vector<std::pair<std::string, size_t>>> failed;
  for (const Obligation* o : sorted_obligations(run.obligations)) {
    Position p = position_of(o->loc);
    std::string file = p.file.empty() ? kNoFile : p.file;
    Suite& s = suites[file];
    s.cases.push_back({case_name(p, o->description, o->rule_id), p, o->time_ms, {}, nullptr, !o->passed});
    if (!o->passed) failed[key_of(o->rule_id, o->loc)].push_back({file, s.cases.size() - 1});
  }
  auto attach = [&](const Finding* f, bool accepted) -> bool {
    auto it = failed.find(key_of(f->rule_id, f->loc));
    if (it == failed.end()) return false;
    Case* target = nullptr;
    for (auto& [file, i] : it->second) {
      Case& c = suites[file].cases[i];
      if (c.findings.empty() && !c.accepted) {
        target = &c;
        break;
      }
    }
    if (!target) target = &suites[it->second.front().first].cases[it->second.front().second];
    if (accepted && !target->accepted && target->findings.empty())
      target->accepted = f;
    else if (!accepted)
      target->findings.push_back(f);
    return true;
  };
  for (const Finding* f : sorted_findings(run.findings)) {
    if (attach(f, false)) continue;
    Position p = position_of(f->loc);
    suites[p.file.empty() ? kNoFile : p.file].cases.push_back(
        {case_name(p, f->message, f->rule_id), p, 0, {f}, nullptr, true});
  }
  for (const Finding* f : sorted_findings(run.accepted)) attach(f, true);

  size_t total_tests = 0, total_failures = 0, total_errors = 0, total_skipped = 0;
  double total_ms = 0;
  std::string body;
  for (const auto& [file, suite] : suites) {
    size_t failures = 0, errors = 0, skipped = 0;
    double ms = 0;
    std::string cases;
    for (const Case& c : suite.cases) {
      ms += c.time_ms;
      cases += fmt::format("    <testcase name=\"{}\" classname=\"{}\" file=\"{}\"", xml_escape(c.name, true),
                           xml_escape(file, true), xml_escape(c.pos.file, true));
      if (c.pos.line) cases += fmt::format(" line=\"{}\"", c.pos.line);
      cases += fmt::format(" time=\"{}\"", seconds(c.time_ms));
      if (!c.failed) {
        cases += "/>\n";
        continue;
      }
      cases += ">\n";
      bool all_unknown = !c.findings.empty();
      std::string text;
      for (const Finding* f : c.findings) {
        all_unknown = all_unknown && f->kind == FindingKind::Unknown;
        text += render_finding(*f);
      }
      if (!c.findings.empty()) {
        const Finding& first = *c.findings.front();
        const char* tag = all_unknown ? "error" : "failure";
        (all_unknown ? errors : failures)++;
        cases += fmt::format("      <{} message=\"{}\" type=\"{}\">{}</{}>\n", tag,
                             xml_escape((all_unknown ? "unknown: " : "") + first.message, true),
                             xml_escape(all_unknown ? "unknown" : first.rule_id, true), xml_escape(text, false), tag);
      } else if (c.accepted) {
        ++skipped;
        cases += fmt::format("      <skipped message=\"{}\"/>\n",
                             xml_escape("accepted by the baseline: " + c.accepted->message, true));
      } else {
        // A refuted obligation must never pass silently, even if its finding went missing.
        ++failures;
        cases += "      <failure message=\"not proven, and no finding was reported\" type=\"internal\"/>\n";
      }
      cases += "    </testcase>\n";
    }
    body += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{}\">\n",
                        xml_escape(file, true), suite.cases.size(), failures, errors, skipped, seconds(ms));
    body += cases;
    body += "  </testsuite>\n";
    total_tests += suite.cases.size();
    total_failures += failures;
    total_errors += errors;
    total_skipped += skipped;
    total_ms += ms;
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"LayoutProof\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{}\">\n",
                     total_tests, total_failures, total_errors, total_skipped, seconds(total_ms));
  out += body;
  out += "</testsuites>\n";
  return out;
}

}  // namespace lp::report
