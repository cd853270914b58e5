// LP014 launch-fact: a stated or host-code launch of a compiled kernel that no GPU runs as stated
// (a block past the hardware's limits or the kernel's .maxntid/.reqntid, a grid past its limits,
// more dynamic shared memory than the architecture gives, a fact about a parameter the kernel does
// not have). The launch is not used; the kernel is checked for the launches that remain, or for
// every legal launch. docs/rules/LP014.md
#include "rules/Rule.h"
#include "rules/RuleSupport.h"

namespace lp::rules {

namespace {

class LaunchFactRule : public Rule {
 public:
  const rules::RuleInfo& info() const override {
    static const rules::RuleInfo kInfo{
        "LP014", "launch-fact", "A kernel's launch contradicts the kernel or the hardware",
        "A launch stated for a compiled kernel (`// layoutproof: launch ...`, [ptx.launch] in .layoutproof.toml, "
        "`check --launch`) or read from its host code must be one a GPU can run: each block extent and the block's "
        "size within the architecture's limits and the kernel's .maxntid/.reqntid, the grid within its limits, the "
        "dynamic shared memory within what the architecture gives the kernel, and parameter facts about parameters "
        "the kernel has. A launch that is not is reported and not used.",
        "docs/rules/LP014.md", Severity::Error, {"ptx", "launch"}};
    return kInfo;
  }
  void check(const FileContext& ctx, FindingSink& sink) const override {
    if (!ctx.compiled) return;
    for (const ptx::LaunchProblem& p : ctx.compiled->launch_problems) {
      rules::Finding f = finding(p.loc, p.message);
      f.kind = rules::FindingKind::Invalid;
      f.notes = p.notes;
      sink.report_at(p.loc, std::move(f));
    }
  }
};

}  // namespace

LP_REGISTER_RULE(LaunchFactRule);

}  // namespace lp::rules
