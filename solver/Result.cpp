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
  switch (e) {
    case Engine::Auto: return "auto";
    case Engine::Z3: return "z3";
    case Engine::Enum: return "enum";
    case Engine::F2: return "f2";
  }
  return "auto";
}

Engine engine_from_name(const std::string& name) {
  if (name == "auto") return Engine::Auto;
  if (name == "z3") return Engine::Z3;
  if (name == "enum") return Engine::Enum;
  if (name == "f2") return Engine::F2;
  throw std::invalid_argument("unknown engine '" + name + "' (expected z3, enum, f2 or auto)");
}

}  // namespace lp
