#include "solver/Result.h"

#include <stdexcept>

namespace lp {

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Proven: return "proven";
    case Verdict::Refuted: return "refuted";
    case Verdict::Unknown: return "unknown";
  }
  return "unknown";
}

const char* engine_name(Engine e) {
  for (const auto& [engine, name] : kEngineNames)
    if (engine == e) return name.data();  // the table's literals end with NUL
  return "auto";
}

Engine engine_from_name(const std::string& name) {
  for (const auto& [engine, known] : kEngineNames)
    if (known == name) return engine;
  throw std::invalid_argument("unknown engine '" + name + "' (expected " + engine_choices() + ")");
}

std::vector<std::string> engine_names() {
  std::vector<std::string> names;
  for (const auto& entry : kEngineNames) names.emplace_back(entry.second);
  return names;
}

std::string engine_choices() {
  std::string s;
  for (size_t i = 0; i < kEngineNames.size(); ++i)
    s += (i == 0 ? "" : i + 1 == kEngineNames.size() ? " or " : ", ") + std::string(kEngineNames[i].second);
  return s;
}

}  // namespace lp
