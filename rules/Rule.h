#pragma once
// The rule framework, modelled on clang-tidy: one rule per file (rules/*Rule.cpp), each with a
// stable id, a name, a docs page (docs/rules/<id>.md) and tests; a rule registers itself with
// LP_REGISTER_RULE, so adding a rule is adding one file.
//
// A rule looks at one file's facts, whatever front end produced them: the annotations (their
// statements and the buffer graph built from them) and, for a compiled kernel, the PTX front end's
// facts (frontend/ptx/KernelFacts.h). It reports findings and the obligations it decided through a
// FindingSink, which applies the statement's `allow` suppressions and the configured severity.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "frontend/ptx/KernelFacts.h"
#include "analyzer/support/Parallel.h"
#include "findings/Finding.h"
#include "rules/AlgebraSteps.h"
#include "rules/BufferGraph.h"
#include "rules/Config.h"
#include "rules/CuteDefinitions.h"

namespace lp::rules {

/// The compiled modules of a run (its .ptx files, given or compiled), for annotations that name
/// compiled kernels (`expect ACCESS compiled ...`, rule LP015).
struct RunCompiled {
  std::vector<std::shared_ptr<const ptx::CompiledModule>> modules;
  std::optional<std::string> incomplete;  ///< why some PTX of the run was not read (the run's budget)
};

/// What a rule sees of one file.
struct FileContext {
  const annotate::ParseResult& file;
  const BufferGraph& graph;
  const AlgebraSteps& algebra;
  const Config& config;
  const CuteDefinitions* cute = nullptr;  ///< every `cute "EXPR" = LAYOUT` of the run (rule LP012)
  /// A compiled module's facts (a .ptx file); then `file` holds no statements.
  const ptx::CompiledModule* compiled = nullptr;
  /// The run's compiled modules, read when an annotated file of the run names a compiled kernel.
  const RunCompiled* run_compiled = nullptr;
  /// The run's cores a rule may borrow to decide this file's obligations in parallel (those the
  /// other files leave); null: the calling thread alone.
  CorePool* cores = nullptr;
};

/// The layout `name` stands for: a buffer's declared layout, or the layout a compose/divide
/// computes. Absent for neither; for a compose/divide without a result, `missing` (when given)
/// then says why.
inline std::optional<NamedLayout> layout_of(const FileContext& ctx, const std::string& name, std::string* missing = nullptr) {
  if (auto named = ctx.graph.layout_of(name)) return named;
  if (const AlgebraStep* s = ctx.algebra.step(name)) {
    if (s->result) return NamedLayout{*s->result, {}, s->stmt->loc};
    if (missing) *missing = s->result_missing;
  }
  return std::nullopt;
}

/// Where a rule's results go. Findings on a statement that allows the rule are dropped; the
/// severity comes from the configuration (or the rule's default), unknowns take the configured
/// unknown severity; an "off" rule reports nothing, its unknowns included.
class FindingSink {
 public:
  FindingSink(const rules::RuleInfo& rule, const Config& config, std::vector<rules::Finding>& findings,
              std::vector<rules::Obligation>& obligations);

  /// Reports a finding about `stmt` (fills rule id, severity and fingerprint). An `allow` of
  /// the rule on `stmt` or on `related` (the expectation that states the property, the buffer
  /// the finding is about) drops it.
  void report(const annotate::Statement& stmt, rules::Finding finding,
              std::initializer_list<const annotate::Statement*> related = {});
  /// Reports a finding that belongs to no statement (a diagnostic of the file itself, a compiled
  /// instruction) with the configured severity; a diagnostic that was only a warning stays a
  /// warning. A launch-dependent finding takes `[gate] launch-dependent` and gates only when
  /// `[gate] launch-dependent-fails` says so.
  void report_at(const SourceLoc& loc, rules::Finding finding, Severity diagnostic_severity = Severity::Error);
  /// Records a decided obligation (passed or not) for statistics and JUnit.
  void obligation(const annotate::Statement& stmt, SourceLoc loc, std::string description, bool passed, double time_ms,
                  std::optional<rules::ProofSummary> proof = std::nullopt);
  /// The same for an obligation that belongs to no statement (a compiled instruction); nothing when
  /// the rule is off.
  void obligation_at(SourceLoc loc, std::string description, bool passed, double time_ms,
                     std::optional<rules::ProofSummary> proof = std::nullopt);

 private:
  const rules::RuleInfo& rule_;
  const Config& config_;
  std::vector<rules::Finding>& findings_;
  std::vector<rules::Obligation>& obligations_;
};

class Rule {
 public:
  virtual ~Rule() = default;
  virtual const rules::RuleInfo& info() const = 0;
  virtual void check(const FileContext& ctx, FindingSink& sink) const = 0;
};

/// Every registered rule, ordered by id.
const std::vector<const Rule*>& all_rules();

namespace detail {
struct Registration {
  explicit Registration(std::unique_ptr<Rule> rule);
};
}  // namespace detail

}  // namespace lp::rules

#define LP_REGISTER_RULE(RuleClass) \
  static const ::lp::rules::detail::Registration lp_rule_registration_##RuleClass{std::make_unique<RuleClass>()}
