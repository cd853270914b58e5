#pragma once
// What a proof obligation comes back with. "Proven" is only ever said when Z3 returned unsat on
// a faithful encoding, an exhaustive enumeration covered the whole domain, or the F2 engine
// decided an exactly-linear layout by rank; everything else is Refuted (with a counterexample
// that concrete evaluation has confirmed) or Unknown (with the reason).
#include <chrono>
#include <cstdint>
#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analyzer/support/Vocabulary.h"

namespace lp {

enum class Verdict { Proven, Refuted, Unknown };
enum class Engine { Auto, Z3, Enum, F2 };

/// The verdicts' names in reports and query logs.
inline constexpr Vocabulary<Verdict, 3> kVerdictNames{
    {{Verdict::Proven, "proven"}, {Verdict::Refuted, "refuted"}, {Verdict::Unknown, "unknown"}}};
const char* verdict_name(Verdict v);

/// The engines a user names (`--engine`, the Python module's `engine=`), in the order help texts
/// list them: the one table the names, the parser and every list of choices come from.
inline constexpr Vocabulary<Engine, 4> kEngineNames{
    {{Engine::Z3, "z3"}, {Engine::Enum, "enum"}, {Engine::F2, "f2"}, {Engine::Auto, "auto"}}};
const char* engine_name(Engine e);
/// A name of kEngineNames; throws std::invalid_argument naming the choices otherwise.
Engine engine_from_name(const std::string& name);
/// kEngineNames' names, for a command line's choices.
std::vector<std::string> engine_names();
/// "z3, enum, f2 or auto": the choices as a help text or a diagnostic says them.
std::string engine_choices();

/// Wall-clock time since construction, for the times that findings and statistics carry.
class Stopwatch {
 public:
  double elapsed_ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

/// Per-query resource limits. A query that hits one is Unknown, never Proven. The run's own time
/// and memory budget (analyzer/support/Governor.h) bounds every query as well.
struct SolverLimits {
  unsigned timeout_ms = 20000;        ///< Z3 wall-clock per query, all of its checks together
  unsigned memory_mb = 2048;          ///< Z3 memory per query (a process-wide cap in Z3)
  int64_t max_enumeration = int64_t{1} << 24;  ///< points an enumeration may visit
};

/// The outcome common to every property.
struct Outcome {
  Verdict verdict = Verdict::Unknown;
  Engine engine = Engine::Auto;  ///< the engine that decided
  double time_ms = 0;
  std::string reason;  ///< why Unknown, or a one-line summary of the counterexample
  /// Unknown because a limit stopped it (the query's or the run's time, memory): a run with more
  /// may decide it. An unknown for any other reason (a modelling gap) is the same every run.
  bool limited = false;
  /// Unknown however it is searched: the values found violate the property in the model, and the
  /// model cannot say whether they occur (which lanes execute is not modelled), so no engine can
  /// prove it and none can refute it. The portfolio stops at such an answer.
  bool settled = false;
};

}  // namespace lp
