#include "solver/AlgebraClaims.h"

#include "analyzer/ir/Checked.h"
#include "analyzer/parse/OperationParser.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "solver/Composition.h"

namespace lp {

namespace {

using algebra::Check;
using algebra::CompositionClaim;

algebra::Value value_of(const Layout& l, const Point& p) {
  algebra::Value v;
  for (size_t a = 0; a < p.size(); ++a)
    if (p[a] != 0) v.push_back({l.axes()[a], p[a]});
  std::sort(v.begin(), v.end());
  return v;
}

// The refutation in the algebra's words: where B leaves A's domain, or how R differs from A o B.
Check refutation(const CompositionClaim& c, const CompositionResult& res) {
  const CompositionWitness& w = *res.witness;
  const std::string size_note =
      c.r.size() != c.b.size() ? fmt::format("the result has {} points but B has {}; ", c.r.size(), c.b.size()) : "";
  if (w.index >= c.b.size())  // R is longer than B: nothing of B's domain is wrong
    return Check::illegal(c.context + size_note + "R's extra points are no point of A o B");
  const algebra::Evaluator domain(c.b);
  auto witness = [&](std::string expected_label, std::string expected, std::string actual_label, std::string actual) {
    return algebra::Witness{"B",           w.index,         domain.coordinate(w.index), std::move(expected_label),
                            std::move(expected), std::move(actual_label), std::move(actual)};
  };
  const std::string image = algebra::value_text(value_of(c.b, w.b_image));
  if (w.out_of_domain) {
    const bool by_index = c.b.axes().size() == 1 && c.b.axes()[0].is_memory();
    if (by_index)
      return Check::illegal(
          fmt::format("{}B's image leaves A's domain: B(c) = {} is outside [0, {})", c.context, image, c.a.size()),
          witness("A's domain", fmt::format("[0, {})", c.a.size()), "B(c)", image));
    return Check::illegal(fmt::format("{}B's image leaves A's domain: B(c) = {} is no coordinate of A", c.context, image),
                          witness("a coordinate of A", "in A's domain", "B(c)", image));
  }
  if (res.wrong_points && *res.wrong_points == 0)
    return Check::illegal(c.context + size_note + "evaluated past its domain as CuTe does, it agrees with A o B");
  const std::string where = res.wrong_points
                                ? fmt::format("wrong at {} of {} points", *res.wrong_points, c.b.size())
                                : fmt::format("wrong at c = {} (B's {} points were not all evaluated)", w.index, c.b.size());
  return Check::illegal(c.context + size_note + "the result is not A o B: " + where,
                        witness("A(B(c))", algebra::value_text(value_of(c.a, w.expected)), "R(c)",
                                w.got.empty() ? "undefined" : algebra::value_text(value_of(c.r, w.got))));
}

// A claim whose B leaves A's domain, held to CuTe's own contract (A extended past its domain by its
// strides, as CuTe evaluates it): legal with a past-domain note where R == A o B so extended,
// illegal where R differs even so, unknown where that cannot be decided.
Check past_domain(const CompositionClaim& c, const CompositionResult& strict, const SolverLimits& limits) {
  CompositionClaim noted = c;
  noted.context = c.role;
  const Check leaves = refutation(noted, strict);  // "B's image leaves A's domain: ...", with its witness
  const CompositionResult ext = prove_extended_composition(c.a, c.b, c.r, limits);
  switch (ext.verdict) {
    case Verdict::Proven: {
      Check legal = Check::legal();
      legal.engines = {engine_name(ext.engine)};
      legal.notes.push_back(algebra::ContractNote{
          algebra::ContractNote::Kind::PastDomain,
          leaves.reason + "; CuTe evaluates A there by its strides, and R agrees at every c",
          leaves.witness});
      return legal;
    }
    case Verdict::Refuted: {
      Check illegal = refutation(c, ext);
      illegal.reason += " (A extended past its domain, as CuTe evaluates it)";
      illegal.engines = {engine_name(ext.engine)};
      return illegal;
    }
    case Verdict::Unknown:
      break;
  }
  return Check::unknown(refutation(c, strict).reason +
                        "; whether R equals A extended past its domain (CuTe's contract) is not decided: " + ext.reason);
}

}  // namespace

Check decide_claims(Check check, Engine engine, const SolverLimits& limits) {
  if (check.verdict == algebra::Verdict::Illegal || check.claims.empty()) {
    check.claims.clear();
    return check;
  }
  std::vector<Check> decided{Check{check.verdict, check.reason, check.witness, {}, check.engines, check.notes}};
  for (const CompositionClaim& c : check.claims) {
    try {
      const CompositionResult res = prove_composition(c.a, c.b, c.r, engine, limits);
      switch (res.verdict) {
        case Verdict::Proven:
          decided.push_back(Check{algebra::Verdict::Legal, {}, std::nullopt, {}, {engine_name(res.engine)}, {}});
          break;
        case Verdict::Refuted: {
          if (res.witness && res.witness->out_of_domain && c.r.size() == c.b.size()) {
            decided.push_back(past_domain(c, res, limits));
            break;
          }
          Check illegal = refutation(c, res);
          illegal.engines = {engine_name(res.engine)};
          decided.push_back(std::move(illegal));
          break;
        }
        case Verdict::Unknown:
          decided.push_back(Check::unknown(c.context + res.reason));
          break;
      }
    } catch (const std::invalid_argument& e) {  // B's values do not address A
      decided.push_back(Check::illegal(c.context + "B's image leaves A's domain: " + e.what()));
    }
    if (decided.back().verdict == algebra::Verdict::Illegal) break;
  }
  return algebra::combine(decided);
}

algebra::Outcome decide_claims(algebra::Outcome outcome, Engine engine, const SolverLimits& limits) {
  outcome.check = decide_claims(std::move(outcome.check), engine, limits);
  return outcome;
}

algebra::Outcome decide_algebra_operation(const std::string& op, const std::vector<std::string>& operands,
                                          Engine engine, const SolverLimits& limits) {
  try {
    return decide_claims(evaluate_algebra_operation(op, operands), engine, limits);
  } catch (const OverflowError& e) {
    throw OperationError(fmt::format("{}: CuTe's arithmetic on these operands leaves 64-bit integers ({})", op, e.what()));
  }
}

}  // namespace lp
