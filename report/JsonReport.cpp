#include "report/JsonReport.h"

#include "report/Common.h"

namespace lp::report {

using ojson = nlohmann::ordered_json;

ojson json_report_value(const CheckRun& run) {
  Summary s = summarize(run);
  ojson out;
  out["version"] = kJsonReportVersion;
  out["tool"] = {{"name", "LayoutProof"}, {"version", run.tool_version}};
  out["summary"] = {{"findings", s.findings}, {"errors", s.errors},     {"warnings", s.warnings},
                    {"notes", s.notes},       {"unknowns", s.unknowns}, {"baselined", s.baselined},
                    {"files", s.files},       {"obligations", s.obligations}, {"proven", s.proven}};
  ojson findings = ojson::array();
  for (const Finding* f : sorted_findings(run.findings)) findings.push_back(rules::to_json(*f));
  out["findings"] = std::move(findings);
  ojson obligations = ojson::array();
  for (const Obligation* o : sorted_obligations(run.obligations)) {
    ojson j;
    j["rule"] = o->rule_id;
    rules::put_position(j, o->loc);
    j["description"] = o->description;
    j["passed"] = o->passed;
    j["time_ms"] = o->time_ms;
    j["proof"] = ojson(rules::to_json(o->proof));
    obligations.push_back(std::move(j));
  }
  out["obligations"] = std::move(obligations);
  ojson assumptions = ojson::array();
  for (const Note& n : run.assumptions) {
    ojson j;
    rules::put_position(j, n.loc);
    j["message"] = n.message;
    assumptions.push_back(std::move(j));
  }
  out["assumptions"] = std::move(assumptions);
  return out;
}

std::string dump_json(const nlohmann::ordered_json& j) {
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string json_report(const CheckRun& run) { return dump_json(json_report_value(run)); }

}  // namespace lp::report
