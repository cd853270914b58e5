// LP003 algebra-legality: every composition, divide and product the code performs (`compose`, `divide`, `product`
// annotations) gives the function it claims on its whole domain; CuTe itself accepts illegal
// uses silently. `expect NAME illegal` records a known-bad use. docs/rules/LP003.md
#include "rules/Rule.h"
#include "rules/RuleSupport.h"

#include <fmt/ranges.h>

namespace lp::rules {

namespace {

class AlgebraRule : public Rule {
 public:
  const rules::RuleInfo& info() const override {
    static const rules::RuleInfo kInfo{
        "LP003", "algebra-legality", "A composition, divide or product is not the function CuTe's contract says it is",
        "CuTe composes and divides layouts without checking that its divisibility conditions hold or that the "
        "result equals A(B(c)). Each `compose` and `divide` annotation is held to CuTe's own contract for the "
        "operation over its whole domain; an illegal result comes with the coordinate and the two values. What the "
        "contract allows but may surprise (leaving A's domain, complement holes) is LP013's.",
        "docs/rules/LP003.md", Severity::Error, {"correctness"}};
    return kInfo;
  }

  void check(const FileContext& ctx, FindingSink& sink) const override {
    for (const AlgebraStep& step : ctx.algebra.steps()) {
      const annotate::Statement& s = *step.stmt;
      const annotate::Name* name = step.name;
      const std::string& what = step.what;
      if (!step.outcome) {
        sink.report(s, finding(s.loc, fmt::format("the operation cannot be performed: {}", step.error)));
        continue;
      }
      const algebra::Outcome* out = &*step.outcome;
      // `expect NAME illegal` is a statement of its own: its obligation and its failure belong to
      // it, so an `allow` on the operation never passes it.
      const annotate::Statement* expect = illegal_expectation(ctx, name->text);
      const bool expected_illegal = expect != nullptr;
      const annotate::Statement& owner = expected_illegal ? *expect : s;
      const bool illegal = out->check.verdict == algebra::Verdict::Illegal;
      // The algebra's own evaluation and the solver's decision of the compositions it claims.
      std::optional<rules::ProofSummary> proof;
      if (out->check.verdict != algebra::Verdict::Unknown)
        proof = rules::ProofSummary{fmt::format("{}", fmt::join(out->check.engines, "+")), {}, {}, {}, {}, {}, {}};
      sink.obligation(owner, s.loc, what + (expected_illegal ? " is illegal, as expected" : " is legal"),
                      out->check.verdict != algebra::Verdict::Unknown && illegal == expected_illegal, step.time_ms, proof);
      if (out->check.verdict == algebra::Verdict::Unknown) {
        sink.report(owner, unknown_finding(s.loc, what + (expected_illegal ? " is illegal" : " is legal"), out->check.reason));
        continue;
      }
      if (expected_illegal && !illegal) {
        rules::Finding f = finding(name->loc, fmt::format("{} is expected to be illegal, but CuTe's result {} is legal", what,
                                                           out->text.value_or("(none)")));
        add_note(f, "the expectation is here", expect->loc);
        sink.report(owner, std::move(f));
        continue;
      }
      if (!illegal || expected_illegal) continue;
      rules::Finding f = finding(s.loc, fmt::format("{} is illegal: {}", what, out->check.reason));
      if (out->text) add_note(f, fmt::format("CuTe computes {}", *out->text));
      if (const auto& w = out->check.witness) add_algebra_witness(f, *w, out->text.value_or(""));
      sink.report(s, std::move(f));
    }
  }

 private:
  static const annotate::Statement* illegal_expectation(const FileContext& ctx, const std::string& name) {
    for (const annotate::Statement& s : ctx.file.statements)
      if (auto* e = std::get_if<annotate::ExpectStmt>(&s.body))
        if (e->kind == annotate::ExpectKind::Illegal && e->subject.text == name) return &s;
    return nullptr;
  }
};

}  // namespace

LP_REGISTER_RULE(AlgebraRule);

}  // namespace lp::rules
