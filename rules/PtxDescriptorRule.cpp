// LP010 not-per-lane: a shared-memory access in PTX that has no per-lane addresses (TMA bulk
// copies, wgmma and tcgen05 descriptors, mbarrier objects, wmma fragments): reported for
// information, its banks are not checked. Found by the PTX checker (rules/PtxCheck.cpp);
// annotations never produce it. docs/rules/LP010.md
#include "rules/Rule.h"

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
  void check(const FileContext&, FindingSink&) const override {}  // PTX only (rules/PtxCheck.cpp)
};

}  // namespace

LP_REGISTER_RULE(PtxDescriptorRule);

}  // namespace lp::rules
