// LP005 swizzle-mismatch: a TMA copy or an MMA descriptor touching a buffer uses the swizzle the
// buffer's layout has. A TMA that writes one pattern and a wgmma that reads another computes
// with scrambled operands, silently. docs/rules/LP005.md
#include "rules/Rule.h"
#include "rules/RuleSupport.h"
#include "rules/SwizzleFacts.h"

namespace lp::rules {

namespace {

class SwizzleMismatchRule : public Rule {
 public:
  const rules::RuleInfo& info() const override {
    static const rules::RuleInfo kInfo{
        "LP005", "swizzle-mismatch", "A TMA copy or MMA descriptor disagrees with the buffer's swizzle",
        "TMA writes shared memory with the swizzle mode of its tensor map, and wgmma/tcgen05 read it with the "
        "swizzle field of their descriptor. Both must equal the swizzle the buffer's layout declares (as a "
        "byte-address swizzle: 128B is Sw<3,4,3> on bytes, Sw<3,3,3> on 16-bit elements), or the data is "
        "permuted between writer and reader.",
        "docs/rules/LP005.md", Severity::Error, {"correctness"}};
    return kInfo;
  }

  void check(const FileContext& ctx, FindingSink& sink) const override {
    for (const annotate::Statement& s : ctx.file.statements) {
      auto* buf = std::get_if<annotate::BufferDecl>(&s.body);
      if (!buf || !buf->layout || !buf->dtype) continue;
      const DeclaredSwizzle declared = byte_swizzle_of(buf->layout->parsed.layout, buf->dtype->bits / 8);
      const std::string declared_text =
          declared.other ? f2_text(*declared.other) + ", which is no swizzle,"
                         : (declared.swizzle ? swizzle_text(declared.swizzle) + " on byte addresses" : "no swizzle");
      for (const annotate::Statement* user : ctx.graph.users(buf->name.text)) {
        auto use = swizzle_use(*user);
        if (!use) continue;
        const SourceLoc& where = use->loc;
        const std::string& who = use->who;
        const std::optional<Swizzle> used = use->byte_swizzle();
        const bool same = declared == used;
        sink.obligation(*user, where, fmt::format("{} of '{}' uses its layout's swizzle", who, buf->name.text), same, 0);
        if (same) continue;
        rules::Finding f = finding(
            where, fmt::format("{} of '{}' uses {}, but the layout of '{}' has {}", who, buf->name.text,
                               used ? fmt::format("the {} swizzle ({} on byte addresses)", use->mode_name(), swizzle_text(used))
                                    : std::string("no swizzle"),
                               buf->name.text, declared_text));
        const std::string layout_pattern = declared.other ? f2_text(*declared.other) : swizzle_text(declared.swizzle);
        f.counterexample = SwizzleMismatchCex{buf->name.text, use->mode_name(), layout_pattern};
        f.trace = {{buf->layout->loc, fmt::format("'{}' is laid out with {}", buf->name.text, layout_pattern)},
                   {where, fmt::format("the {} applies {}", who, swizzle_text(used))}};
        sink.report(*user, std::move(f), {&s});
      }
    }
  }
};

}  // namespace

LP_REGISTER_RULE(SwizzleMismatchRule);

}  // namespace lp::rules
