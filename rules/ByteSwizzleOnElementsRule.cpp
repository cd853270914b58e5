// LP006 byte-swizzle-on-elements: an element-offset swizzle Sw<B,4,3> on 16-bit or wider data
// is the GMMA/TMA byte pattern applied to element offsets, a common real bug (NVIDIA/cutlass#2634).
// docs/rules/LP006.md
#include "rules/Rule.h"
#include "rules/RuleSupport.h"

namespace lp::rules {

namespace {

class ByteSwizzleOnElementsRule : public Rule {
 public:
  const rules::RuleInfo& info() const override {
    static const rules::RuleInfo kInfo{
        "LP006", "byte-swizzle-on-elements", "A byte-address swizzle is applied to element offsets",
        "GMMA and TMA atoms carry Swizzle<B,4,3>, which acts on byte addresses (the `smem_ptr[Nb]` form). Applied "
        "to element offsets of 16-bit or wider data it is a different permutation: the element form of the same "
        "pattern is Sw<B, 4 - log2(bytes), 3> (Sw<3,3,3> for 16-bit). The mix-up passes every test that uses one "
        "form on both sides and breaks against hardware that uses the other.",
        "docs/rules/LP006.md", Severity::Warning, {"correctness"}};
    return kInfo;
  }

  void check(const FileContext& ctx, FindingSink& sink) const override {
    for (const annotate::Statement& s : ctx.file.statements) {
      auto* buf = std::get_if<annotate::BufferDecl>(&s.body);
      if (!buf || !buf->layout || !buf->dtype || buf->dtype->bits < 16) continue;
      const Layout& layout = buf->layout->parsed.layout;
      for (size_t i = layout.address_stages_begin(); i < layout.stages().size(); ++i) {
        const Stage& st = layout.stages()[i];
        if (st.kind != Stage::Kind::Swizzle || st.swizzle.base() != 4 || st.swizzle.shift() != 3 || st.swizzle.bits() < 1)
          continue;
        int shift = 0;
        while ((8 << shift) < buf->dtype->bits) ++shift;
        const Swizzle& sw = st.swizzle;
        rules::Finding f = finding(
            buf->layout->loc,
            fmt::format("Sw<{},4,3> swizzles element offsets of {} '{}'; the byte-address pattern of that name is "
                        "Sw<{},{},3> on {}-bit elements",
                        sw.bits(), buf->dtype->name, buf->name.text, sw.bits(), 4 - shift, buf->dtype->bits));
        add_note(f, fmt::format("if the swizzle is meant to act on byte addresses (TMA, GMMA), write "
                                "`Sw<{},4,3> o smem_ptr[{}b](unset) o ...`; if it is meant for elements, write Sw<{},{},3>",
                                sw.bits(), buf->dtype->bits, sw.bits(), 4 - shift));
        f.counterexample = ByteSwizzleCex{buf->name.text, fmt::format("Sw<{},4,3>", sw.bits()), buf->dtype->name};
        sink.report(s, std::move(f));
      }
    }
  }
};

}  // namespace

LP_REGISTER_RULE(ByteSwizzleOnElementsRule);

}  // namespace lp::rules
