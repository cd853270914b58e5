#include "findings/Finding.h"

#include <fmt/format.h>

namespace lp::rules {

bool CheckRun::passes_gate(Severity threshold) const {
  for (const Finding& f : findings)
    if (f.gates && f.severity >= threshold) return false;
  return true;
}

namespace {

using ojson = nlohmann::ordered_json;
using nlohmann::json;

// The path of `key` inside the item at `where` ("" for the finding itself).
std::string path(const std::string& where, const char* key) { return where.empty() ? key : where + "." + key; }

const json* member(const json& o, const char* key) {
  auto it = o.find(key);
  return it == o.end() || it->is_null() ? nullptr : &*it;
}

std::string required_string(const json& o, const char* key, const std::string& where) {
  const json* v = member(o, key);
  if (!v) throw FindingJsonError(path(where, key) + " is missing");
  if (!v->is_string()) throw FindingJsonError(path(where, key) + " must be a string");
  return v->get<std::string>();
}

// The location of a located item: none when "file" is absent or null, else a file with a line and
// a column of at least 1.
SourceLoc position_from_json(const json& o, const std::string& where) {
  const json* file = member(o, "file");
  if (!file) return {};
  if (!file->is_string()) throw FindingJsonError(path(where, "file") + " must be a string or null");
  size_t at[2] = {0, 0};
  const char* keys[2] = {"line", "column"};
  for (int k = 0; k < 2; ++k) {
    const json* v = member(o, keys[k]);
    if (!v || !v->is_number_integer() || v->get<int64_t>() < 1)
      throw FindingJsonError(path(where, keys[k]) + " must be an integer of at least 1 where a file is given");
    at[k] = static_cast<size_t>(v->get<int64_t>());
  }
  auto text = std::make_shared<SourceText>();
  text->name = file->get<std::string>();
  text->line_base = at[0];
  text->col_base = at[1];
  return SourceLoc{std::move(text), 0};
}

ojson located_json(const SourceLoc& loc, const std::string& message) {
  ojson j = ojson::object();
  put_position(j, loc);
  j["message"] = message;
  return j;
}

// "notes" or "trace": an array of located messages (absent or null: none).
template <class Item>
std::vector<Item> located_items(const json& o, const char* key, const std::string& where) {
  std::vector<Item> out;
  const json* a = member(o, key);
  if (!a) return out;
  if (!a->is_array()) throw FindingJsonError(path(where, key) + " must be an array");
  for (size_t i = 0; i < a->size(); ++i) {
    const json& item = (*a)[i];
    const std::string at = fmt::format("{}[{}]", path(where, key), i);
    if (!item.is_object()) throw FindingJsonError(at + " must be an object");
    out.push_back(Item{position_from_json(item, at), required_string(item, "message", at)});
  }
  return out;
}

}  // namespace

std::string file_of(const SourceLoc& loc) { return loc.source ? loc.source->name : std::string(); }

const char* kind_name(FindingKind k) { return vocabulary_name(kFindingKindNames, k, "violation"); }

void put_position(ojson& j, const SourceLoc& loc) {
  if (!loc.source) {
    j["file"] = nullptr;
    j["line"] = nullptr;
    j["column"] = nullptr;
    return;
  }
  const auto [line, column] = line_col_of(*loc.source, loc.offset);
  j["file"] = loc.source->name;
  j["line"] = line;
  j["column"] = column;
}

UnknownCause unknown_cause(const Finding& f) {
  if (f.limited) return UnknownCause::Limit;
  return f.data_dependent ? UnknownCause::DataDependent : UnknownCause::Model;
}

const char* unknown_cause_name(UnknownCause c) { return vocabulary_name(kUnknownCauseNames, c, "model"); }

ojson to_json(const Finding& f) {
  ojson j;
  j["rule"] = f.rule_id;
  j["severity"] = severity_name(f.severity);
  j["kind"] = kind_name(f.kind);
  put_position(j, f.loc);
  j["message"] = f.message;
  j["notes"] = ojson::array();
  for (const Note& n : f.notes) j["notes"].push_back(located_json(n.loc, n.message));
  j["counterexample"] = ojson(to_json(f.counterexample));
  j["trace"] = ojson::array();
  for (const TraceStep& t : f.trace) j["trace"].push_back(located_json(t.loc, t.message));
  j["fingerprint"] = f.fingerprint;
  j["gates"] = f.gates;
  if (f.kind == FindingKind::Unknown) j["limited"] = f.limited;
  if (f.kind == FindingKind::Unknown) j["dataDependent"] = f.data_dependent;
  if (f.kind == FindingKind::Unknown) j["cause"] = unknown_cause_name(unknown_cause(f));
  if (f.kind == FindingKind::Unknown) j["reason"] = f.reason.empty() ? f.message : f.reason;
  if (!f.compiled.empty()) {
    j["kernel"] = f.compiled.front().kernel;
    j["instances"] = ojson::array();
    for (const CompiledInstance& c : f.compiled)
      j["instances"].push_back(ojson{{"kernel", c.kernel}, {"instruction", c.opcode}, {"ptx", c.ptx}, {"ptxLine", c.ptx_line}});
  }
  return j;
}

Finding finding_from_json(const json& j) {
  const std::string where;
  if (!j.is_object()) throw FindingJsonError("a finding must be an object");
  Finding f;
  f.rule_id = required_string(j, "rule", where);
  const std::string severity = required_string(j, "severity", where);
  const auto s = severity_from_name(severity);
  if (!s) throw FindingJsonError(fmt::format("severity must be {}, not '{}'", severity_choices(), severity));
  f.severity = *s;
  const std::string kind = required_string(j, "kind", where);
  const auto k = vocabulary_value(kFindingKindNames, kind);
  if (!k) throw FindingJsonError(fmt::format("kind must be {}, not '{}'", vocabulary_choices(kFindingKindNames), kind));
  f.kind = *k;
  f.loc = position_from_json(j, where);
  f.message = required_string(j, "message", where);
  f.notes = located_items<Note>(j, "notes", where);
  f.trace = located_items<TraceStep>(j, "trace", where);
  if (const json* c = member(j, "counterexample")) f.counterexample = counterexample_from_json(*c);
  if (const json* fp = member(j, "fingerprint")) {
    if (!fp->is_string()) throw FindingJsonError("fingerprint must be a string");
    f.fingerprint = fp->get<std::string>();
  }
  if (const json* g = member(j, "gates")) {
    if (!g->is_boolean()) throw FindingJsonError("gates must be true or false");
    f.gates = g->get<bool>();
  }
  if (const json* l = member(j, "limited")) {
    if (!l->is_boolean()) throw FindingJsonError("limited must be true or false");
    f.limited = l->get<bool>();
  }
  if (const json* d = member(j, "dataDependent")) {
    if (!d->is_boolean()) throw FindingJsonError("dataDependent must be true or false");
    f.data_dependent = d->get<bool>();
  }
  if (const json* r = member(j, "reason")) {
    if (!r->is_string()) throw FindingJsonError("reason must be a string");
    f.reason = r->get<std::string>();
  }
  if (const json* instances = member(j, "instances")) {
    if (!instances->is_array()) throw FindingJsonError("instances must be an array");
    for (const json& c : *instances) {
      CompiledInstance x;
      x.kernel = required_string(c, "kernel", "instances");
      x.opcode = required_string(c, "instruction", "instances");
      x.ptx = required_string(c, "ptx", "instances");
      const json* line = member(c, "ptxLine");
      if (!line || !line->is_number_integer()) throw FindingJsonError("instances: ptxLine must be an integer");
      x.ptx_line = line->get<int64_t>();
      x.instruction = fmt::format("{} (PTX line {})", x.opcode, x.ptx_line);
      f.compiled.push_back(std::move(x));
    }
  }
  return f;
}

}  // namespace lp::rules
