#pragma once
// The findings of a `layoutproof check` run: what the rules produce and every output format (text,
// JSON, SARIF, JUnit, HTML, CUDA replays) receives. Part of the rules layer (its own small library,
// lp_findings, so report/ and replay/ depend on it without linking the rules); nothing downstream
// re-derives a verdict.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/diag/Diagnostic.h"
#include "analyzer/support/BuildInfo.h"
#include "findings/Counterexample.h"

namespace lp::rules {

/// What a rule is, for rule metadata (SARIF `tool.driver.rules`, docs links, config).
/// Invariant: `id` is stable across releases (e.g. "LP002"); `name` is kebab-case
/// ("bank-conflict"); `help_uri` points at docs/rules/<id>.md.
struct RuleInfo {
  std::string id;
  std::string name;
  std::string short_description;
  std::string full_description;
  std::string help_uri;
  Severity default_severity = Severity::Error;
  /// Free-form categories ("banks", "tma", "swizzle", ...): SARIF `properties.tags`, which GitHub
  /// code scanning shows as filters.
  std::vector<std::string> tags;
};

/// One step of a counterexample trace (SARIF codeFlows): a place and what happens there.
struct TraceStep {
  SourceLoc loc;  ///< may have a null source (then the step has no location)
  std::string message;
};

enum class FindingKind {
  Violation,  ///< a property was refuted; the counterexample was re-checked by evaluation
  Unknown,    ///< the solver could not decide (timeout, too large); fails the gate by default
  Invalid,    ///< the annotation itself is wrong (e.g. names an undeclared buffer)
  /// Refuted for some launches and proven under a condition on the launch (a compiled kernel whose
  /// launch is not known): the counterexample is one launchable witness; does not fail the gate
  /// unless `[gate] launch-dependent-fails` says so.
  LaunchDependent,
};

/// The compiled-kernel instruction a finding is about (the PTX front end's findings).
struct CompiledInstance {
  std::string kernel;       ///< demangled: "void row_sum<32>(float*, float const*)"
  std::string instruction;  ///< as the message names it: "st.shared.f32 (PTX line 133)"
  std::string opcode;       ///< the instruction without its place: "st.shared.f32"
  std::string ptx;          ///< the PTX as the notes show it: a path, or "<PTX of a.cu for sm_90>"
  int64_t ptx_line = 0;
};

struct Finding {
  std::string rule_id;
  Severity severity = Severity::Error;
  FindingKind kind = FindingKind::Violation;
  SourceLoc loc;                  ///< the annotation the finding is about
  std::string message;            ///< one line, no trailing period
  std::vector<Note> notes;        ///< the counterexample in words (lanes, addresses, banks, ...)
  Counterexample counterexample;  ///< the same, typed (findings/Counterexample.h); monostate if none
  std::vector<TraceStep> trace;   ///< where the pieces of the counterexample come from
  /// Stable identity for baselines: independent of line numbers, so a finding moved by an edit
  /// above it stays baselined (rule id + file + the annotation's normalised text).
  std::string fingerprint;
  /// Whether the finding counts for the CI gate (a launch-dependent one by default does not).
  bool gates = true;
  /// An unknown a time or memory limit left undecided (Outcome::limited): another run may decide
  /// it, so it is never cached. Other unknowns (a modelling gap) are the same every run.
  bool limited = false;
  /// An unknown whose access depends only on data the kernel loads (a histogram's bin, a gather
  /// through loaded indices): no model decides it, and `[gate] data-dependent` sets its severity
  /// apart from other unknowns, so a project can accept this class explicitly.
  bool data_dependent = false;
  /// An unknown's reason on its own (the message ends with it): what is not modelled or decided,
  /// or which limit stopped the proof. Empty for other findings.
  std::string reason;
  /// The compiled instructions the finding is about: none for an annotation's finding, one as a
  /// rule reports it, several once findings alike but for their instruction (a template's
  /// instantiations, an unrolled loop's copies of one source line, one line compiled for two
  /// architectures) are shown as one (report/Fold.h); the first is the one whose notes are shown.
  std::vector<CompiledInstance> compiled;
};

/// Why an unknown is undecided, as a user acts on it: a time or memory limit stopped its proof
/// (raise the limit), its access depends on data the kernel loads (no model decides it; a
/// project may accept the class), or the reason names a construct the model or the engines do not
/// decide (a longer limit will not help).
enum class UnknownCause { Limit, DataDependent, Model };
UnknownCause unknown_cause(const Finding& f);
/// The JSON report's `cause`.
inline constexpr Vocabulary<UnknownCause, 3> kUnknownCauseNames{
    {{UnknownCause::Limit, "limit"}, {UnknownCause::DataDependent, "data-dependent"}, {UnknownCause::Model, "model"}}};
const char* unknown_cause_name(UnknownCause c);

/// What a decided obligation rests on (`check --verbose`, `--show-proven`, the JSON report):
/// the engine that decided it and the domain it covered. Only what the proof established is set.
struct ProofSummary {
  std::string engine;             ///< "f2", "enum" or "z3": the engine that decided; parts decided by several join them, "enum+f2"
  std::optional<int64_t> points;  ///< the domain decided: elements x replicas, target points, box elements
  /// Accesses: the worst issued instruction's wavefronts and its ideal, how many issued
  /// instructions and base residues (bytes modulo the swizzle period, at `base_alignment`) the
  /// proof covers.
  std::optional<int64_t> wavefronts, ideal, issues, base_residues, base_alignment;
};

/// One proof obligation the run decided, passed or not (JUnit test cases, statistics).
struct Obligation {
  std::string rule_id;
  SourceLoc loc;
  std::string description;  ///< e.g. "sA: ldmatrix.x4 access is conflict-free"
  bool passed = false;
  double time_ms = 0;
  std::optional<ProofSummary> proof;  ///< absent when no engine decided (unknown, or not a proof)
};

struct CheckRun {
  std::string tool_version;
  /// The git revision, Z3 and hardware-model versions (SARIF tool.driver.properties); runs built
  /// by hand have none.
  std::optional<ToolVersions> versions;
  std::vector<RuleInfo> rules;  ///< every rule that ran, for metadata
  std::vector<Finding> findings;
  std::vector<Obligation> obligations;
  /// What the verdicts rest on besides the code: each compiled kernel's launch domain and where it
  /// comes from (`check --verbose`, the JSON report's "assumptions").
  std::vector<Note> assumptions;
  std::vector<std::string> files;  ///< every file checked, as given (relative paths stay relative)
  size_t baselined = 0;            ///< findings accepted by the baseline and left out of `findings`
  /// The findings the baseline accepted (apply_baseline moves them here and counts them in
  /// `baselined`): a re-written baseline keeps them, JUnit shows their obligations as skipped.
  std::vector<Finding> accepted;

  /// The CI gate: no finding at `threshold` or above.
  bool passes_gate(Severity threshold) const;
};

/// A proof summary as JSON (only its set fields), and back; null for none. Throws
/// FindingJsonError for a malformed one.
nlohmann::json to_json(const std::optional<ProofSummary>& proof);
std::optional<ProofSummary> proof_from_json(const nlohmann::json& j);

/// The path of a location's file as the report should show it ("" without a source).
std::string file_of(const SourceLoc& loc);

/// The JSON report's `kind`: its names and the reader's parser.
inline constexpr Vocabulary<FindingKind, 4> kFindingKindNames{{{FindingKind::Violation, "violation"},
                                                                 {FindingKind::Unknown, "unknown"},
                                                                 {FindingKind::Invalid, "invalid"},
                                                                 {FindingKind::LaunchDependent, "launch-dependent"}}};
const char* kind_name(FindingKind k);

/// A location as the JSON report writes it: "file", "line", "column" (1-based, columns in bytes),
/// all null without a location.
void put_position(nlohmann::ordered_json& j, const SourceLoc& loc);

/// A finding as the JSON report lists it (docs/reports.md), and back: the one finding type's one
/// codec, shared by the JSON report, `layoutproof report` and `layoutproof replay`. The reader
/// takes what the writer writes: "rule", "severity", "kind" and "message" are required; the
/// location is all null or a file with a line and column; "notes" and "trace" are located messages;
/// "counterexample" and "fingerprint" may be absent. A location read back has no text: its
/// SourceText is the file's name, empty, based at that line and column. Throws FindingJsonError
/// naming the field's path.
nlohmann::ordered_json to_json(const Finding& f);
Finding finding_from_json(const nlohmann::json& j);

}  // namespace lp::rules
