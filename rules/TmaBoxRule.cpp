// LP008 tma-box: a TMA box respects the hardware's limits: 1 to 5 dimensions of at most 256
// elements, an inner extent that is a multiple of 16 bytes and, when swizzled, no wider than the
// swizzle span. docs/rules/LP008.md
#include "rules/Rule.h"
#include "rules/RuleSupport.h"

namespace lp::rules {

namespace {

class TmaBoxRule : public Rule {
 public:
  const report::RuleInfo& info() const override {
    static const report::RuleInfo kInfo{
        "LP008", "tma-box", "A TMA box breaks the tensor-map limits",
        "cuTensorMapEncodeTiled rejects (or the copy mis-addresses) boxes with more than 5 dimensions, an extent "
        "above 256, an inner extent that is not a multiple of 16 bytes, or, with a swizzle, an inner extent wider "
        "than the swizzle span (32/64/128 bytes). The box is written innermost dimension first, as boxDim[].",
        "docs/rules/LP008.md", Severity::Error, {"correctness"}};
    return kInfo;
  }

  void check(const FileContext& ctx, FindingSink& sink) const override {
    for (const annotate::Statement& s : ctx.file.statements) {
      auto* t = std::get_if<annotate::TmaDecl>(&s.body);
      if (!t) continue;
      const annotate::BufferDecl* buf = ctx.graph.buffer(t->buffer.text);
      if (!buf || !buf->dtype) continue;
      hw::TmaBox box;
      box.swizzle = t->swizzle.mode;
      box.element_bytes = std::max(1, buf->dtype->bits / 8);
      for (const annotate::Number& n : t->box) box.box_dims.push_back(n.value);
      hw::TmaBoxCheck c = hw::check_tma_box(box);
      sink.obligation(s, t->box_loc, fmt::format("TMA box of '{}' is within the tensor-map limits", t->buffer.text), c.ok(), 0);
      for (const std::string& v : c.violations) {
        report::Finding f = finding(t->box_loc, fmt::format("TMA box of '{}': {}", t->buffer.text, v));
        f.counterexample = {{"box", box.box_dims}, {"element_bytes", box.element_bytes},
                            {"swizzle", std::string(hw::swizzle_name(box.swizzle))}};
        sink.report(s, std::move(f));
      }
    }
  }
};

}  // namespace

LP_REGISTER_RULE(TmaBoxRule);

}  // namespace lp::rules
