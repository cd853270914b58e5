#include "report/SarifReport.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <set>

#include "report/Common.h"
#include "report/JsonReport.h"

namespace lp::report {

namespace {

using ojson = nlohmann::ordered_json;

bool is_unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_' || c == '~';
}

std::string percent_encode(std::string_view s) {
  std::string out;
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (is_unreserved(c) || c == '/')
      out += ch;
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

std::string forward_slashes(std::string p) {
  for (char& c : p)
    if (c == '\\') c = '/';
  return p;
}

bool is_drive_path(const std::string& p) {
  return p.size() >= 3 && std::isalpha(static_cast<unsigned char>(p[0])) && p[1] == ':' && p[2] == '/';
}

bool is_absolute_path(const std::string& p) { return (!p.empty() && p[0] == '/') || is_drive_path(p); }

bool has_scheme(const std::string& uri) {
  size_t colon = uri.find(':');
  if (colon == std::string::npos || colon == 0 || !std::isalpha(static_cast<unsigned char>(uri[0]))) return false;
  for (size_t i = 1; i < colon; ++i) {
    char c = uri[i];
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') return false;
  }
  return colon > 1;  // "C:/x" is a Windows drive, not a scheme
}

std::string level_of(Severity s) { return severity_name(s); }  // SARIF levels share clang's names

// SARIF columns default to UTF-16 code units; ours are bytes, so convert on the line's prefix.
size_t utf16_column(const std::string& line, size_t byte_column) {
  size_t units = 0;
  for_each_code_point(std::string_view(line).substr(0, std::min(line.size(), byte_column - 1)),
                      [&](char32_t cp, bool valid) { units += valid && cp >= 0x10000 ? 2 : 1; });
  return units + 1 + (byte_column - 1 > line.size() ? byte_column - 1 - line.size() : 0);
}

// file:// URI of an absolute path with forward slashes; a drive's colon stays as it is.
std::string file_uri(const std::string& p) {
  if (is_drive_path(p)) return "file:///" + p.substr(0, 2) + percent_encode(p.substr(2));
  return "file://" + percent_encode(p);
}

ojson artifact_location(const std::string& file) {
  std::string p = forward_slashes(file);
  if (is_absolute_path(p)) return {{"uri", file_uri(p)}};
  return {{"uri", path_to_uri(p)}, {"uriBaseId", "%SRCROOT%"}};
}

ojson physical_location(const SourceLoc& loc) {
  Position pos = position_of(loc);
  std::string line = source_line(loc);
  ojson region = {{"startLine", pos.line}, {"startColumn", utf16_column(line, pos.column)}};
  region["snippet"] = {{"text", line}};
  return {{"artifactLocation", artifact_location(pos.file)}, {"region", std::move(region)}};
}

ojson message(const std::string& text) { return {{"text", text.empty() ? std::string("(no message)") : text}}; }

ojson location_with_message(const SourceLoc& loc, const std::string& text) {
  ojson j = ojson::object();
  if (loc.source) j["physicalLocation"] = physical_location(loc);
  j["message"] = message(text);
  return j;
}

ojson rule_descriptor(const RuleInfo& r, const SarifOptions& opt) {
  const std::string& full = !r.full_description.empty()    ? r.full_description
                            : !r.short_description.empty() ? r.short_description
                                                           : r.id;
  ojson j;
  j["id"] = r.id;
  if (!r.name.empty()) j["name"] = r.name;
  j["shortDescription"] = message(r.short_description.empty() ? r.id : r.short_description);
  j["fullDescription"] = message(full);
  std::string help;
  if (has_scheme(r.help_uri))
    help = r.help_uri;
  else if (!r.help_uri.empty() && !opt.help_uri_base.empty())
    help = opt.help_uri_base + (opt.help_uri_base.back() == '/' ? "" : "/") + path_to_uri(r.help_uri);
  if (!help.empty()) j["helpUri"] = help;
  j["help"] = message(full);
  j["defaultConfiguration"] = {{"level", level_of(r.default_severity)}};
  ojson tags = ojson::array({"layoutproof"});
  for (const std::string& t : r.tags) tags.push_back(t);
  // GitHub reads precision and problem.severity to rank alerts: violations are re-checked by
  // evaluation before they are reported, so they are not heuristic.
  j["properties"] = {{"tags", std::move(tags)},
                     {"precision", "very-high"},
                     {"problem.severity", r.default_severity == Severity::Note ? "recommendation"
                                                                               : level_of(r.default_severity)}};
  return j;
}

std::string root_uri(const SarifOptions& opt) {
  std::string root = opt.source_root ? *opt.source_root : std::filesystem::current_path().string();
  root = forward_slashes(root);
  if (root.empty() || root.back() != '/') root += '/';
  return file_uri(root);
}

}  // namespace

std::string path_to_uri(const std::string& path) {
  std::string p = forward_slashes(path);
  while (p.rfind("./", 0) == 0) p.erase(0, 2);
  return percent_encode(p);
}

ojson sarif_report_value(const CheckRun& run, const SarifOptions& opt) {
  // Rules sorted by id; a finding whose rule is not described still gets a descriptor, so every
  // result's ruleIndex is valid.
  std::map<std::string, RuleInfo> rules;
  for (const RuleInfo& r : run.rules) rules.emplace(r.id, r);
  for (const Finding& f : run.findings)
    if (!rules.count(f.rule_id)) {
      RuleInfo r;
      r.id = f.rule_id;
      r.default_severity = f.severity;
      rules.emplace(f.rule_id, std::move(r));
    }
  ojson rule_array = ojson::array();
  std::map<std::string, size_t> index;
  for (const auto& [id, r] : rules) {
    index[id] = rule_array.size();
    rule_array.push_back(rule_descriptor(r, opt));
  }

  ojson driver;
  driver["name"] = "LayoutProof";
  driver["version"] = run.tool_version;
  driver["semanticVersion"] = run.tool_version;
  if (!opt.information_uri.empty()) driver["informationUri"] = opt.information_uri;
  if (run.versions)
    driver["properties"] = {{"gitRevision", run.versions->git_revision},
                            {"z3Version", run.versions->z3},
                            {"hardwareModel", run.versions->hardware_model}};
  driver["rules"] = std::move(rule_array);

  ojson results = ojson::array();
  for (const Finding* f : sorted_findings(run.findings)) {
    ojson r;
    r["ruleId"] = f->rule_id;
    r["ruleIndex"] = index.at(f->rule_id);
    r["level"] = level_of(f->severity);
    // GitHub shows message.text only, so the counterexample in words goes there too.
    std::string text = f->kind == FindingKind::Unknown ? "unknown (neither proven nor refuted): " + f->message
                                                       : f->message;
    for (const Note& n : f->notes) text += "\n" + n.message;
    r["message"] = message(text);
    r["locations"] = ojson::array();
    if (f->loc.source) r["locations"].push_back({{"physicalLocation", physical_location(f->loc)}});
    // The kernels a compiled finding is in (SARIF 2.1.0 section 3.33): each once, as functions.
    ojson kernels = ojson::array();
    std::set<std::string> seen;
    for (const rules::CompiledInstance& c : f->compiled)
      if (seen.insert(c.kernel).second) kernels.push_back({{"fullyQualifiedName", c.kernel}, {"kind", "function"}});
    if (!kernels.empty()) {
      if (r["locations"].empty()) r["locations"].push_back(ojson::object());
      r["locations"][0]["logicalLocations"] = std::move(kernels);
    }
    ojson related = ojson::array();
    for (const Note& n : f->notes)
      if (n.loc.source) {
        ojson rel = location_with_message(n.loc, n.message);
        rel["id"] = related.size();
        related.push_back(std::move(rel));
      }
    if (!related.empty()) r["relatedLocations"] = std::move(related);
    if (!f->fingerprint.empty()) r["partialFingerprints"] = {{kFingerprintKey, f->fingerprint}};
    if (!f->trace.empty()) {
      ojson steps = ojson::array();
      for (const TraceStep& s : f->trace) steps.push_back({{"location", location_with_message(s.loc, s.message)}});
      r["codeFlows"] = ojson::array({{{"threadFlows", ojson::array({{{"locations", std::move(steps)}}})}}});
    }
    r["properties"] = {{"kind", kind_name(f->kind)}, {"counterexample", ojson(rules::to_json(f->counterexample))}};
    results.push_back(std::move(r));
  }

  ojson sarif_run;
  sarif_run["tool"] = {{"driver", std::move(driver)}};
  // Reports are written only by runs that completed; internal errors exit 2 without one.
  sarif_run["invocations"] = ojson::array({{{"executionSuccessful", true}}});
  sarif_run["originalUriBaseIds"] = {{"%SRCROOT%", {{"uri", root_uri(opt)}}}};
  sarif_run["results"] = std::move(results);
  sarif_run["columnKind"] = "utf16CodeUnits";

  ojson out;
  out["$schema"] = kSarifSchemaUri;
  out["version"] = "2.1.0";
  out["runs"] = ojson::array({std::move(sarif_run)});
  return out;
}

std::string sarif_report(const CheckRun& run, const SarifOptions& opt) { return dump_json(sarif_report_value(run, opt)); }

}  // namespace lp::report
