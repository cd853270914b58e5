#pragma once
// Small helpers the rules share: building findings, and saying counterexamples in user terms.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "analyzer/algebra/Legality.h"
#include "hw/BankModel.h"
#include "findings/Finding.h"
#include "solver/Result.h"

namespace lp::rules {

/// The lanes of a mask as ranges ("0-15,24"), or "all 32".
inline std::string lanes_text(hw::LaneMask m) {
  if (m == hw::kAllLanes) return fmt::format("all {}", hw::kWarpLanes);
  std::string s;
  for (int l = 0; l < hw::kWarpLanes;) {
    if (!((m >> l) & 1)) {
      ++l;
      continue;
    }
    int e = l;
    while (e + 1 < hw::kWarpLanes && ((m >> (e + 1)) & 1)) ++e;
    s += fmt::format("{}{}", s.empty() ? "" : ",", l == e ? std::to_string(l) : fmt::format("{}-{}", l, e));
    l = e + 1;
  }
  return s.empty() ? "none" : s;
}

inline rules::Finding finding(SourceLoc loc, std::string message) {
  rules::Finding f;
  f.loc = std::move(loc);
  f.message = std::move(message);
  return f;
}

inline void add_note(rules::Finding& f, std::string message, SourceLoc loc = {}) {
  f.notes.push_back(Note{std::move(loc), std::move(message)});
}

/// An algebra verdict's or note's witness on a finding: the note "at D index i (coordinate c):
/// X = x but Y = y" and the counterexample, with `result` the text CuTe computes.
inline void add_algebra_witness(rules::Finding& f, const algebra::Witness& w, const std::string& result) {
  const std::string where = w.index ? fmt::format("at {} index {} (coordinate {}): ", w.domain, *w.index, w.coordinate) : "";
  add_note(f, fmt::format("{}{} = {} but {} = {}", where, w.expected_label, w.expected, w.actual_label, w.actual));
  f.counterexample = AlgebraCex{w.expected, w.actual, result, w.index, w.coordinate};
}

inline std::string join(const std::vector<int64_t>& v, const char* sep = ",") {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += fmt::format("{}{}", i ? sep : "", v[i]);
  return s;
}

/// An undecided proof: reported as unknown (the gate fails on it unless configured otherwise).
inline rules::Finding unknown_finding(SourceLoc loc, const std::string& what, const std::string& reason) {
  rules::Finding f = finding(std::move(loc), fmt::format("could not decide whether {}: {}", what, reason));
  f.kind = rules::FindingKind::Unknown;
  f.reason = reason;
  return f;
}

/// The product of counts, or none beyond 64 bits (a domain size for a proof summary).
inline std::optional<int64_t> count_product(std::initializer_list<int64_t> counts) {
  int64_t p = 1;
  for (int64_t c : counts)
    if (__builtin_mul_overflow(p, c, &p)) return std::nullopt;
  return p;
}

/// What a decided outcome rests on; none for an unknown one.
inline std::optional<rules::ProofSummary> proof_of(const Outcome& o, std::optional<int64_t> points = std::nullopt) {
  if (o.verdict == Verdict::Unknown) return std::nullopt;
  rules::ProofSummary p;
  p.engine = engine_name(o.engine);
  p.points = points;
  return p;
}

inline rules::Finding unknown_finding(SourceLoc loc, const std::string& what, const Outcome& o) {
  rules::Finding f = unknown_finding(std::move(loc), what, o.reason);
  f.limited = o.limited;
  return f;
}

}  // namespace lp::rules
