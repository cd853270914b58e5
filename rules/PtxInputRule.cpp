// LP011 ptx-input: a PTX file that cannot be read (malformed, truncated, an unknown instruction,
// past the reader's limits). `check` exits 2 for it, as for a CUDA unit nvcc cannot compile (which
// `check` reports itself, with nvcc's output). From the PTX front end's facts; annotations never
// produce it. docs/rules/LP011.md
#include "rules/Rule.h"
#include "rules/RuleSupport.h"

namespace lp::rules {

namespace {

class PtxInputRule : public Rule {
 public:
  const rules::RuleInfo& info() const override {
    static const rules::RuleInfo kInfo{
        "LP011", "ptx-input", "A PTX file cannot be read",
        "The PTX reader stops at the first statement it cannot read (a syntax error, an unknown instruction, an "
        "undeclared register or label, a file or nesting past its limits) and reports it with its location; nothing "
        "of that file is checked, and `layoutproof check` exits 2.",
        "docs/rules/LP011.md", Severity::Error, {"ptx", "input"}};
    return kInfo;
  }
  void check(const FileContext& ctx, FindingSink& sink) const override {
    if (!ctx.compiled || !ctx.compiled->read_error) return;
    const Diagnostic& d = *ctx.compiled->read_error;
    rules::Finding f = finding(d.loc, d.message);
    f.kind = rules::FindingKind::Invalid;
    f.notes = d.notes;
    sink.report_at(d.loc, std::move(f));
  }
};

}  // namespace

LP_REGISTER_RULE(PtxInputRule);

}  // namespace lp::rules
