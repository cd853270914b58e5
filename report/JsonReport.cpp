#include "report/JsonReport.h"

#include "report/Common.h"

namespace lp::report {

namespace {

using ojson = nlohmann::ordered_json;

// file/line/column of a location; all null when it has none.
void put_position(ojson& j, const SourceLoc& loc) {
  if (!loc.source) {
    j["file"] = nullptr;
    j["line"] = nullptr;
    j["column"] = nullptr;
    return;
  }
  Position p = position_of(loc);
  j["file"] = p.file;
  j["line"] = p.line;
  j["column"] = p.column;
}

ojson located_message(const SourceLoc& loc, const std::string& message) {
  ojson j = ojson::object();
  put_position(j, loc);
  j["message"] = message;
  return j;
}

}  // namespace

ojson json_report_value(const CheckRun& run) {
  Summary s = summarize(run);
  ojson out;
  out["version"] = kJsonReportVersion;
  out["tool"] = {{"name", "LayoutProof"}, {"version", run.tool_version}};
  out["summary"] = {{"findings", s.findings}, {"errors", s.errors},     {"warnings", s.warnings},
                    {"notes", s.notes},       {"unknowns", s.unknowns}, {"baselined", s.baselined},
                    {"files", s.files},       {"obligations", s.obligations}, {"proven", s.proven}};
  ojson findings = ojson::array();
  for (const Finding* f : sorted_findings(run.findings)) {
    ojson j;
    j["rule"] = f->rule_id;
    j["severity"] = severity_name(f->severity);
    j["kind"] = kind_name(f->kind);
    put_position(j, f->loc);
    j["message"] = f->message;
    j["notes"] = ojson::array();
    for (const Note& n : f->notes) j["notes"].push_back(located_message(n.loc, n.message));
    j["counterexample"] = ojson(rules::to_json(f->counterexample));
    j["trace"] = ojson::array();
    for (const TraceStep& t : f->trace) j["trace"].push_back(located_message(t.loc, t.message));
    j["fingerprint"] = f->fingerprint;
    findings.push_back(std::move(j));
  }
  out["findings"] = std::move(findings);
  ojson obligations = ojson::array();
  for (const Obligation* o : sorted_obligations(run.obligations)) {
    ojson j;
    j["rule"] = o->rule_id;
    put_position(j, o->loc);
    j["description"] = o->description;
    j["passed"] = o->passed;
    j["time_ms"] = o->time_ms;
    j["proof"] = ojson(rules::to_json(o->proof));
    obligations.push_back(std::move(j));
  }
  out["obligations"] = std::move(obligations);
  return out;
}

std::string dump_json(const nlohmann::ordered_json& j) {
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string json_report(const CheckRun& run) { return dump_json(json_report_value(run)); }

}  // namespace lp::report
