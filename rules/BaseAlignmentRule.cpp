// LP007 base-alignment: a buffer whose swizzle reads absolute address bits (TMA, GMMA byte
// swizzles) is aligned to the swizzle's period; otherwise writer and reader see the pattern
// shifted (tilelang#2379). docs/rules/LP007.md
#include "rules/Rule.h"
#include "rules/RuleSupport.h"
#include "rules/SwizzleFacts.h"

namespace lp::rules {

namespace {

class BaseAlignmentRule : public Rule {
 public:
  const rules::RuleInfo& info() const override {
    static const rules::RuleInfo kInfo{
        "LP007", "base-alignment", "A swizzled buffer's base is aligned to less than its swizzle period",
        "TMA and MMA-descriptor swizzles act on absolute shared-memory address bits: the 128B/64B/32B patterns "
        "repeat every 1024/512/256 bytes, and TMA needs 128-byte alignment. A buffer aligned to less sees the "
        "pattern shifted relative to a reader that assumes an aligned tile: silent wrong data. Declare the "
        "alignment with `align N`.",
        "docs/rules/LP007.md", Severity::Error, {"correctness"}};
    return kInfo;
  }

  void check(const FileContext& ctx, FindingSink& sink) const override {
    for (const annotate::Statement& s : ctx.file.statements) {
      auto* buf = std::get_if<annotate::BufferDecl>(&s.body);
      if (!buf || !buf->layout || buf->space != annotate::Space::Smem) continue;
      int64_t need = 0;
      SourceLoc why_loc;
      std::string why;
      for (const Stage& st : buf->layout->parsed.layout.stages())
        if (st.kind == Stage::Kind::ByteSwizzle && !st.swizzle.is_identity() && st.swizzle.period() > need) {
          need = st.swizzle.period();
          why_loc = buf->layout->loc;
          why = fmt::format("its byte-address swizzle repeats every {} bytes", need);
        }
      for (const annotate::Statement* user : ctx.graph.users(buf->name.text)) {
        auto use = swizzle_use(*user);
        if (!use) continue;
        const std::optional<Swizzle> applied = use->byte_swizzle();
        const int64_t unswizzled = hw::swizzle_period_bytes(hw::SmemSwizzle::None);
        int64_t p = std::max<int64_t>(applied ? applied->period() : unswizzled, use->tma ? hw::kTmaSmemAlignment : unswizzled);
        if (p > need) {
          need = p;
          why_loc = use->loc;
          why = applied ? fmt::format("the {} swizzle repeats every {} bytes", use->mode_name(), p)
                        : "TMA needs 128-byte aligned shared memory";
        }
      }
      if (need <= hw::swizzle_period_bytes(hw::SmemSwizzle::None)) continue;
      const bool ok = buf->align && buf->align->value >= need;
      sink.obligation(s, s.loc, fmt::format("'{}' is aligned to {} bytes", buf->name.text, need), ok, 0);
      if (ok) continue;
      rules::Finding f = finding(
          buf->align ? buf->align->loc : buf->name.loc,
          buf->align ? fmt::format("'{}' is aligned to {} bytes, but {}", buf->name.text, buf->align->value, why)
                     : fmt::format("'{}' declares no alignment, but {}: declare `align {}`", buf->name.text, why, need));
      f.counterexample = BaseAlignmentCex{buf->name.text, buf->align ? std::optional<int64_t>(buf->align->value) : std::nullopt, need};
      f.trace = {{why_loc, why}, {s.loc, fmt::format("'{}' is declared here", buf->name.text)}};
      sink.report(s, std::move(f));
    }
  }
};

}  // namespace

LP_REGISTER_RULE(BaseAlignmentRule);

}  // namespace lp::rules
