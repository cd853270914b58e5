#include "report/CodeQualityReport.h"

#include <fmt/format.h>

#include <map>

#include "report/Common.h"
#include "report/JsonReport.h"

namespace lp::report {

const char* codequality_severity(Severity severity) {
  switch (severity) {
    case Severity::Error: return "critical";
    case Severity::Warning: return "major";
    case Severity::Note: return "info";
  }
  return "critical";
}

std::string codequality_report(const CheckRun& run) {
  using ojson = nlohmann::ordered_json;
  ojson issues = ojson::array();
  std::map<std::string, size_t> seen;
  for (const Finding* f : sorted_findings(run.findings)) {
    const Position p = position_of(f->loc);
    std::string path = p.file;
    while (path.rfind("./", 0) == 0) path.erase(0, 2);
    // GitLab requires a location; a finding about the run itself (an unreadable directory) has
    // no file, and is shown on the repository's root.
    if (path.empty()) path = ".";
    std::string fingerprint = f->fingerprint.empty() ? f->rule_id + ":" + path + ":" + f->message : f->fingerprint;
    if (const size_t n = ++seen[fingerprint]; n > 1) fingerprint += fmt::format("#{}", n);
    ojson issue;
    issue["description"] =
        f->kind == FindingKind::Unknown ? "unknown (neither proven nor refuted): " + f->message : f->message;
    issue["check_name"] = f->rule_id;
    issue["fingerprint"] = fingerprint;
    issue["severity"] = codequality_severity(f->severity);
    issue["location"] = {{"path", path}, {"lines", {{"begin", p.line > 0 ? p.line : 1}}}};
    issues.push_back(std::move(issue));
  }
  return dump_json(issues);
}

}  // namespace lp::report
