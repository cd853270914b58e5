#include "solver/Result.h"

#include <stdexcept>

#include "analyzer/support/Vocabulary.h"

namespace lp {

const char* verdict_name(Verdict v) { return vocabulary_name(kVerdictNames, v, "unknown"); }

const char* engine_name(Engine e) { return vocabulary_name(kEngineNames, e, "auto"); }

Engine engine_from_name(const std::string& name) {
  if (const auto e = vocabulary_value(kEngineNames, name)) return *e;
  throw std::invalid_argument("unknown engine '" + name + "' (expected " + engine_choices() + ")");
}

std::vector<std::string> engine_names() { return vocabulary_names(kEngineNames); }

std::string engine_choices() { return vocabulary_choices(kEngineNames); }

}  // namespace lp
