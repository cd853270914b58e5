#pragma once
// The configuration a repository keeps in `.layoutproof.toml`:
//
//   [rules]
//   bank-conflict = "warning"      # by name or id; "error" | "warning" | "note" | "off"
//   [solver]
//   engine = "auto"                # auto | z3 | enum | f2
//   timeout-ms = 20000
//   memory-mb = 2048               # the run's memory budget (resident memory, also `check
//                                  # --memory-mb`) and Z3's cap; past it a proof is unknown
//   [gate]
//   unknown = "error"              # severity of undecided proofs; "off" ignores them
//   data-dependent = "note"        # severity of unknowns whose access depends only on data the
//                                  # kernel loads (default: as `unknown`)
//   time-budget-s = 600            # the whole run (also `check --time-budget`); then unknowns
//   launch-dependent = "warning"   # severity of verdicts that hold only for some launches
//   launch-dependent-fails = false # whether those fail the gate
//   [ptx.launch]
//   "transposeNaive" = "block(32, 8)"  # how a compiled kernel is launched (docs/ptx.md)
//   [cache]
//   max-mb = 256                   # the result cache's size; least recently used entries go first
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include "analyzer/diag/Diagnostic.h"
#include "frontend/ptx/KernelFacts.h"
#include "findings/Finding.h"
#include "solver/Result.h"
#include "analyzer/support/Error.h"

namespace lp::rules {

class ConfigError : public Error {
 public:
  explicit ConfigError(const std::string& what) : Error(what) {}
};

struct Config {
  std::map<std::string, std::optional<Severity>> rule_severity;  ///< by id or name; nullopt = off
  std::optional<Severity> unknown_severity = Severity::Error;      ///< nullopt = unknowns ignored
  /// Unknowns whose access depends only on loaded data (Finding::data_dependent); nullopt =
  /// ignored. Unless configured, the same as unknown_severity.
  std::optional<Severity> data_dependent_severity = Severity::Error;
  /// Findings that hold for some launches only (FindingKind::LaunchDependent): their severity
  /// (nullopt = not reported) and whether they fail the gate.
  std::optional<Severity> launch_dependent_severity = Severity::Warning;
  bool launch_dependent_fails = false;
  /// `[ptx.launch]`: how compiled kernels are launched, by kernel name.
  std::vector<ptx::StatedLaunch> ptx_launches;
  Engine engine = Engine::Auto;
  SolverLimits limits;
  /// Seconds for the whole `check` run; proofs asked after it are Unknown. nullopt: no budget.
  std::optional<double> time_budget_s;
  /// The result cache's size bound in MiB (`[cache] max-mb`); the least recently used go first.
  unsigned cache_max_mb = 256;
  std::string text;  ///< the file's text (part of the cache key)

  /// The severity of `rule`'s findings: configured, else the rule's default; nullopt = off.
  std::optional<Severity> severity_of(const rules::RuleInfo& rule) const;
  /// The severity of an unknown finding: its class's (data-dependent or not); nullopt = not reported.
  std::optional<Severity> unknown_severity_of(const Finding& f) const {
    return f.data_dependent ? data_dependent_severity : unknown_severity;
  }
};

/// A configuration is a few lines; anything larger is refused unread.
inline constexpr uint64_t kMaxConfigBytes = 64 * 1024;

/// Parses a `.layoutproof.toml` (a regular file of at most kMaxConfigBytes); throws ConfigError
/// naming the file, line and problem.
Config load_config(const std::string& path);
/// The same on text already read; `name` is the file name used in errors.
Config parse_config(std::string text, const std::string& name);

}  // namespace lp::rules
