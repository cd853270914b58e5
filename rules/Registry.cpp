#include <fmt/format.h>

#include <algorithm>
#include <xxhash.h>

#include "rules/Rule.h"

namespace lp::rules {

namespace {

// Function-local so registrations from other translation units find it constructed.
std::vector<std::unique_ptr<Rule>>& registry() {
  static std::vector<std::unique_ptr<Rule>> rules;
  return rules;
}

std::string fingerprint_of(const rules::RuleInfo& rule, const SourceLoc& loc, const std::string& message) {
  // Rule, file and the statement's own text (whitespace-normalised): stable when lines move.
  if (!loc.source) return fmt::format("{}:{:016x}", rule.id, XXH3_64bits(message.data(), message.size()));
  const SourceText& src = *loc.source;
  size_t end = src.text.find('\n', loc.offset);
  std::string text = src.text.substr(loc.offset, end == std::string::npos ? std::string::npos : end - loc.offset);
  std::string norm;
  for (char c : text)
    if (c != ' ' && c != '\t' && c != '\r') norm += c;
  const std::string key = src.name + "\n" + norm + "\n" + message;
  return fmt::format("{}:{:016x}", rule.id, XXH3_64bits(key.data(), key.size()));
}

}  // namespace

detail::Registration::Registration(std::unique_ptr<Rule> rule) { registry().push_back(std::move(rule)); }

const std::vector<const Rule*>& all_rules() {
  static const std::vector<const Rule*> sorted = [] {
    std::vector<const Rule*> v;
    for (auto& r : registry()) v.push_back(r.get());
    std::sort(v.begin(), v.end(), [](auto* a, auto* b) { return a->info().id < b->info().id; });
    return v;
  }();
  return sorted;
}

FindingSink::FindingSink(const rules::RuleInfo& rule, const Config& config, std::vector<rules::Finding>& findings,
                         std::vector<rules::Obligation>& obligations)
    : rule_(rule), config_(config), findings_(findings), obligations_(obligations) {}

void FindingSink::report(const annotate::Statement& stmt, rules::Finding f,
                         std::initializer_list<const annotate::Statement*> related) {
  std::string id = rule_.id;
  std::transform(id.begin(), id.end(), id.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  auto allows = [&](const annotate::Statement* s) {
    if (s)
      for (const annotate::Suppression& a : s->allows)
        if (a.rule.text == rule_.name || a.rule.text == id) return true;
    return false;
  };
  if (allows(&stmt)) return;
  for (const annotate::Statement* s : related)
    if (allows(s)) return;
  std::optional<Severity> sev = config_.severity_of(rule_);
  if (!sev) return;  // the rule is off
  if (f.kind == rules::FindingKind::Unknown) sev = config_.unknown_severity_of(f);
  if (!sev) return;
  f.rule_id = rule_.id;
  f.severity = *sev;
  if (stmt.instance) {
    // Every instance of a loop shares the statement's text: the values tell them apart.
    f.notes.push_back(Note{stmt.instance->loop, fmt::format("in the instance {} of this loop", stmt.instance->label)});
    f.fingerprint = fingerprint_of(rule_, stmt.loc, stmt.instance->label + "\n" + f.message);
  } else {
    f.fingerprint = fingerprint_of(rule_, stmt.loc, f.message);
  }
  findings_.push_back(std::move(f));
}

void FindingSink::report_at(const SourceLoc& loc, rules::Finding f, Severity floor) {
  std::optional<Severity> sev = config_.severity_of(rule_);
  if (!sev) return;
  if (f.kind == rules::FindingKind::Unknown && !(sev = config_.unknown_severity_of(f))) return;
  if (f.kind == rules::FindingKind::LaunchDependent) {
    if (!(sev = config_.launch_dependent_severity)) return;
    floor = *sev;
    f.gates = config_.launch_dependent_fails;
  }
  f.rule_id = rule_.id;
  f.severity = floor == Severity::Warning ? Severity::Warning : *sev;  // a parser warning stays one
  f.fingerprint = fingerprint_of(rule_, loc, f.message);
  findings_.push_back(std::move(f));
}

void FindingSink::obligation(const annotate::Statement& stmt, SourceLoc loc, std::string description, bool passed,
                             double time_ms, std::optional<rules::ProofSummary> proof) {
  if (stmt.instance) description = fmt::format("[{}] {}", stmt.instance->label, description);
  obligations_.push_back(rules::Obligation{rule_.id, std::move(loc), std::move(description), passed, time_ms, std::move(proof)});
}

void FindingSink::obligation_at(SourceLoc loc, std::string description, bool passed, double time_ms,
                                std::optional<rules::ProofSummary> proof) {
  obligations_.push_back(rules::Obligation{rule_.id, std::move(loc), std::move(description), passed, time_ms, std::move(proof)});
}

}  // namespace lp::rules
