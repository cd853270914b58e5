// LP013 algebra-contract-note: an algebra step meets CuTe's contract, so LP003 passes it, but does
// something its user may not expect: a divide or product whose complement leaves holes (tiles that
// miss elements) or overlaps the layout. Kept apart from LP003 so the gate can be configured on it.
// docs/rules/LP013.md
#include "rules/Rule.h"
#include "rules/RuleSupport.h"

namespace lp::rules {

namespace {

class AlgebraContractRule : public Rule {
 public:
  const rules::RuleInfo& info() const override {
    static const rules::RuleInfo kInfo{
        "LP013", "algebra-contract-note", "An algebra step meets CuTe's contract but not what its user may expect",
        "CuTe's contracts allow results that are easy to misread: a complement need not cover [0, M) nor be "
        "disjoint from the layout in sum, so a divide's tiles can miss elements of the layout; a left inverse of a "
        "non-injective layout inverts it only on its image; an inverse may be evaluated past a domain, where CuTe "
        "extends a layout by its strides. Each such step is reported with its witness.",
        "docs/rules/LP013.md", Severity::Warning, {"correctness"}};
    return kInfo;
  }

  void check(const FileContext& ctx, FindingSink& sink) const override {
    for (const AlgebraStep& step : ctx.algebra.steps()) {
      if (!step.outcome || step.outcome->check.verdict == algebra::Verdict::Illegal) continue;
      for (const algebra::ContractNote& n : step.outcome->check.notes) {
        const annotate::Statement& s = *step.stmt;
        rules::Finding f = finding(s.loc, fmt::format("{} meets CuTe's contract, but {} ({})", step.what, n.message,
                                                      algebra::note_kind_name(n.kind)));
        if (step.outcome->text) add_note(f, fmt::format("CuTe computes {}", *step.outcome->text));
        if (const auto& w = n.witness) add_algebra_witness(f, *w, step.outcome->text.value_or(""));
        sink.report(s, std::move(f));
      }
    }
  }
};

}  // namespace

LP_REGISTER_RULE(AlgebraContractRule);

}  // namespace lp::rules
