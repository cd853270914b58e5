// LP010 not-per-lane: a shared-memory access in PTX that has no per-lane addresses (TMA bulk
// copies, wgmma and tcgen05 descriptors, mbarrier objects, wmma fragments): reported for
// information, its banks are not checked. From the PTX front end's facts; annotations never
// produce it. docs/rules/LP010.md
#include "rules/CompiledAccess.h"
#include "rules/Rule.h"
#include "rules/RuleSupport.h"

namespace lp::rules {

namespace {

class PtxDescriptorRule : public Rule {
 public:
  const rules::RuleInfo& info() const override {
    static const rules::RuleInfo kInfo{
        "LP010", "not-per-lane", "A shared-memory access in PTX has no per-lane addresses",
        "cp.async.bulk (TMA), wgmma and tcgen05 read or write shared memory through descriptors or one address per "
        "warp, mbarrier operations synchronise, and wmma.load/store leave the lane-to-address map unspecified: none "
        "has per-lane addresses for the bank model. They are listed so that nothing is checked silently; decoding "
        "descriptors is later work.",
        "docs/rules/LP010.md", Severity::Note, {"ptx", "banks"}};
    return kInfo;
  }
  void check(const FileContext& ctx, FindingSink& sink) const override {
    if (!ctx.compiled) return;
    for (const ptx::KernelFacts& k : ctx.compiled->kernels)
      for (const ptx::AccessFact& a : k.descriptors) {
        rules::Finding f = finding(a.at.loc, fmt::format("{} is not a per-lane shared-memory access ({}); its banks are not checked",
                                                         a.what, ctx.compiled->site(k, a).note));
        f.notes = a.at.notes;
        report_compiled(sink, *ctx.compiled, k, a, std::move(f));
      }
  }
};

}  // namespace

LP_REGISTER_RULE(PtxDescriptorRule);

}  // namespace lp::rules
