#include "report/Baseline.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "analyzer/support/ReadFile.h"
#include "report/Common.h"
#include "report/JsonReport.h"

namespace lp::report {

BaselineError::BaselineError(std::string file, std::string problem)
    : Error(fmt::format("baseline {}: {}", file, problem)), file_(std::move(file)),
      problem_(std::move(problem)) {}

std::string baseline_path(const std::string& file) {
  std::string p = file;
  for (char& c : p)
    if (c == '\\') c = '/';
  if (p.empty()) return p;
  std::string normal = std::filesystem::path(p).lexically_normal().generic_string();
  while (normal.rfind("./", 0) == 0) normal.erase(0, 2);
  return normal == "." ? std::string() : normal;
}

namespace {

using Key = std::tuple<std::string, std::string, std::string>;  // rule, file, fingerprint or message

Key key_of(const std::string& rule, const std::string& file, const std::string& fingerprint,
           const std::string& message) {
  return {rule, baseline_path(file), fingerprint.empty() ? "message:" + message : "fingerprint:" + fingerprint};
}

BaselineEntry entry_of(const Finding& f) { return {f.rule_id, baseline_path(file_of(f.loc)), f.fingerprint, f.message}; }

std::string field(const nlohmann::json& entry, const char* name, size_t index, const std::string& file) {
  auto it = entry.find(name);
  if (it == entry.end()) throw BaselineError(file, fmt::format("findings[{}] has no \"{}\"", index, name));
  if (!it->is_string())
    throw BaselineError(file, fmt::format("findings[{}].{} is {}, not a string", index, name, it->type_name()));
  return it->get<std::string>();
}

}  // namespace

Baseline Baseline::from_run(const CheckRun& run) {
  Baseline b;
  std::vector<Finding> all = run.findings;
  all.insert(all.end(), run.accepted.begin(), run.accepted.end());
  for (const Finding* f : sorted_findings(all)) b.entries.push_back(entry_of(*f));
  return b;
}

Baseline Baseline::parse(std::string_view text, const std::string& name) {
  nlohmann::json j;
  try {
    j = parse_json_document(text, name);
  } catch (const FileReadError& e) {
    throw BaselineError(e.path(), e.problem());
  }
  if (!j.is_object()) throw BaselineError(name, fmt::format("the top level is {}, not an object", j.type_name()));
  auto version = j.find("version");
  if (version == j.end()) throw BaselineError(name, "no \"version\"");
  if (!version->is_number_integer() || version->get<long long>() != kBaselineVersion)
    throw BaselineError(name, fmt::format("unsupported version {} (this LayoutProof reads version {})",
                                          version->dump(), kBaselineVersion));
  auto findings = j.find("findings");
  if (findings == j.end()) throw BaselineError(name, "no \"findings\"");
  if (!findings->is_array())
    throw BaselineError(name, fmt::format("\"findings\" is {}, not an array", findings->type_name()));
  Baseline b;
  for (size_t i = 0; i < findings->size(); ++i) {
    const nlohmann::json& e = (*findings)[i];
    if (!e.is_object()) throw BaselineError(name, fmt::format("findings[{}] is {}, not an object", i, e.type_name()));
    BaselineEntry entry{field(e, "rule", i, name), field(e, "file", i, name), field(e, "fingerprint", i, name),
                        field(e, "message", i, name)};
    b.entries.push_back(std::move(entry));
  }
  return b;
}

Baseline Baseline::read(const std::string& path) {
  std::string text;
  try {
    text = read_regular_file(path, kMaxBaselineBytes);
  } catch (const FileReadError& e) {
    throw BaselineError(e.path(), e.problem());
  }
  return parse(text, path);
}

std::string Baseline::to_json() const {
  nlohmann::ordered_json j;
  j["version"] = kBaselineVersion;
  j["findings"] = nlohmann::ordered_json::array();
  for (const BaselineEntry& e : entries)
    j["findings"].push_back(
        {{"rule", e.rule}, {"file", e.file}, {"fingerprint", e.fingerprint}, {"message", e.message}});
  return dump_json(j);
}

void Baseline::write(const std::string& path) const {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw BaselineError(path, "cannot be opened for writing");
  out << to_json();
  out.flush();
  if (!out) throw BaselineError(path, "write error");
}

size_t apply_baseline(CheckRun& run, const Baseline& baseline) {
  std::map<Key, size_t> budget;  // how many findings each key may still accept
  for (const BaselineEntry& e : baseline.entries) ++budget[key_of(e.rule, e.file, e.fingerprint, e.message)];
  // Decide in report order so which of several identical findings is accepted is deterministic.
  std::vector<const Finding*> order = sorted_findings(run.findings);
  std::vector<bool> accept(run.findings.size(), false);
  for (const Finding* f : order) {
    auto it = budget.find(key_of(f->rule_id, file_of(f->loc), f->fingerprint, f->message));
    if (it == budget.end() || it->second == 0) continue;
    --it->second;
    accept[static_cast<size_t>(f - run.findings.data())] = true;
  }
  std::vector<Finding> kept;
  size_t moved = 0;
  for (size_t i = 0; i < run.findings.size(); ++i) {
    if (accept[i]) {
      run.accepted.push_back(std::move(run.findings[i]));
      ++moved;
    } else {
      kept.push_back(std::move(run.findings[i]));
    }
  }
  run.findings = std::move(kept);
  run.baselined += moved;
  return moved;
}

}  // namespace lp::report
