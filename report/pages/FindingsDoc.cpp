#include "report/pages/FindingsDoc.h"

#include <fmt/format.h>

#include "report/Common.h"

namespace lp::report {

namespace {

using nlohmann::json;

// A string field: absent or null reads as "", any other non-string is an error.
std::string str_field(const json& o, const char* key, const std::string& where) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return {};
  if (!it->is_string()) throw ReportInputError(fmt::format("{}: \"{}\" must be a string", where, key));
  return it->get<std::string>();
}

int64_t int_field(const json& o, const char* key, const std::string& where) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return 0;
  if (!it->is_number_integer()) throw ReportInputError(fmt::format("{}: \"{}\" must be an integer", where, key));
  return it->get<int64_t>();
}

std::optional<int64_t> opt_int(const json& o, const char* key, const std::string& where) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return std::nullopt;
  return int_field(o, key, where);
}

DocReplay replay_of(const json& r, const std::string& where) {
  if (!r.is_object()) throw ReportInputError(where + ": must be an object");
  DocReplay d;
  d.why = str_field(r, "why", where);
  d.program = str_field(r, "program", where);
  d.replayed = !d.program.empty();
  d.device = str_field(r, "device", where);
  d.arch = str_field(r, "arch", where);
  d.method = str_field(r, "method", where);
  d.predicted = opt_int(r, "predicted", where);
  d.measured = opt_int(r, "measured", where);
  if (auto a = r.find("agrees"); a != r.end() && !a->is_null()) {
    if (!a->is_boolean()) throw ReportInputError(where + ": \"agrees\" must be true, false or null");
    d.agrees = a->get<bool>();
  }
  return d;
}

}  // namespace

std::string replay_text(const DocReplay& r) {
  if (!r.replayed) return "not replayed: " + (r.why.empty() ? std::string("no reason recorded") : r.why);
  std::string s = fmt::format("replayed on {} ({})", r.device.empty() ? "an unnamed GPU" : r.device, r.arch);
  s += r.measured ? fmt::format(" with {}", r.method) : std::string(" but not measured");
  if (r.predicted) s += fmt::format(": predicted {}", *r.predicted);
  if (r.measured) s += fmt::format(", measured {}", *r.measured);
  if (r.agrees) s += *r.agrees ? "; agrees" : "; DISAGREES with the prediction";
  return s;
}

FindingsDoc parse_findings_doc(std::string_view text, const std::string& name) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    throw ReportInputError(fmt::format("{}: not valid JSON (byte {}): {}", name, e.byte, e.what()));
  } catch (const json::exception& e) {  // out_of_range 406: a number too large for a double
    throw ReportInputError(fmt::format("{}: not valid JSON: {}", name, e.what()));
  }
  if (!root.is_object()) throw ReportInputError(name + ": expected a JSON object from `layoutproof check --format json`");
  auto fs = root.find("findings");
  if (fs == root.end() || !fs->is_array()) throw ReportInputError(name + ": has no \"findings\" array");
  FindingsDoc doc;
  for (size_t i = 0; i < fs->size(); ++i) {
    const json& f = (*fs)[i];
    const std::string where = fmt::format("{}: findings[{}]", name, i);
    ReportedFinding d;
    try {
      d.finding = rules::finding_from_json(f);
    } catch (const rules::FindingJsonError& e) {
      throw ReportInputError(where + ": " + e.what());
    }
    if (auto r = f.find("replay"); r != f.end() && !r->is_null()) d.replay = replay_of(*r, where + ".replay");
    doc.findings.push_back(std::move(d));
  }
  return doc;
}

FindingsDoc findings_doc(const rules::CheckRun& run) {
  FindingsDoc doc;
  for (const rules::Finding* f : sorted_findings(run.findings)) doc.findings.push_back(ReportedFinding{*f, std::nullopt});
  return doc;
}

}  // namespace lp::report
