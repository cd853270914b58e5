// LP004 replica-coverage: every point of a declared target (`covers NAME AXIS=LO..HI, ...`)
// holds a copy, e.g. every TMEM lane a warpgroup reads. docs/rules/LP004.md
#include "rules/Rule.h"
#include "rules/RuleSupport.h"
#include "solver/Coverage.h"

namespace lp::rules {

namespace {

using json = nlohmann::json;

class CoverageRule : public Rule {
 public:
  const rules::RuleInfo& info() const override {
    static const rules::RuleInfo kInfo{
        "LP004", "replica-coverage", "A target the replicas should cover has a hole",
        "`covers NAME AXIS=LO..HI, ...` (or `expect NAME covers ...`) states that every point of the target box "
        "holds a copy of some element: every TMEM lane a warpgroup reads a scale factor from, every warp of a "
        "multicast. A hole means some thread reads data nobody wrote.",
        "docs/rules/LP004.md", Severity::Error, {"correctness"}};
    return kInfo;
  }

  void check(const FileContext& ctx, FindingSink& sink) const override {
    for (const annotate::Statement& s : ctx.file.statements) {
      auto* e = std::get_if<annotate::ExpectStmt>(&s.body);
      if (!e || e->kind != annotate::ExpectKind::Covers) continue;
      std::string missing;
      auto named = layout_of(ctx, e->subject.text, &missing);
      if (!named) {
        if (!missing.empty())
          sink.report(s, unknown_finding(e->subject.loc, fmt::format("'{}' covers its target", e->subject.text), missing));
        continue;
      }
      std::vector<AxisRange> ranges;
      std::string target;
      for (const annotate::AxisRangeExpr& r : e->ranges) {
        Axis axis = r.basis ? Axis::basis({static_cast<uint32_t>(std::stoul(r.axis.text))}) : Axis::named(r.axis.text);
        ranges.push_back(AxisRange{axis, r.lo.value, r.hi.value});
        target += fmt::format("{}{}={}..{}", target.empty() ? "" : ", ", r.axis.text, r.lo.value, r.hi.value);
      }
      std::string what = fmt::format("'{}' covers {}", e->subject.text, target);
      CoverageResult r;
      try {
        r = prove_covers(named->layout, ranges, ctx.config.engine, ctx.config.limits, &named->params);
      } catch (const std::invalid_argument& err) {
        rules::Finding f = finding(e->ranges.front().axis.loc, fmt::format("cannot check that {}: {}", what, err.what()));
        f.kind = rules::FindingKind::Invalid;
        sink.report(s, std::move(f));
        continue;
      }
      std::optional<int64_t> target_points = 1;  // a count beyond 64 bits is left out
      for (const AxisRange& rg : ranges) {
        int64_t width = 0;
        if (!target_points || __builtin_sub_overflow(rg.hi, rg.lo, &width) || width == std::numeric_limits<int64_t>::max())
          target_points.reset();
        else
          target_points = count_product({*target_points, width + 1});
      }
      sink.obligation(s, s.loc, what, r.verdict == Verdict::Proven, r.time_ms, proof_of(r, target_points));
      if (r.verdict == Verdict::Unknown) sink.report(s, unknown_finding(s.loc, what, r));
      if (r.verdict != Verdict::Refuted) continue;
      std::string point;
      for (size_t k = 0; k < ranges.size(); ++k)
        point += fmt::format("{}{}={}", k ? ", " : "", e->ranges[k].axis.text, r.witness->uncovered[k]);
      rules::Finding f = finding(s.loc, fmt::format("'{}' leaves {} without a copy", e->subject.text, point));
      add_note(f, fmt::format("no element of '{}' and no replica reaches it", e->subject.text), named->loc);
      if (!r.witness->params.empty()) {
        std::string ps;
        for (size_t i = 0; i < r.witness->params.size(); ++i)
          ps += fmt::format("{}{}={}", i ? ", " : "", named->params.specs[i].name, r.witness->params[i]);
        add_note(f, "with " + ps);
      }
      CoverageCex cex;
      cex.uncovered = r.witness->uncovered;
      cex.params = r.witness->params;
      for (const annotate::AxisRangeExpr& rg : e->ranges) cex.target.push_back({rg.axis.text, rg.lo.value, rg.hi.value});
      const annotate::BufferDecl* buf = ctx.graph.buffer(e->subject.text);
      cex.layout = buf && buf->layout ? buf->layout->instance_text() : std::string();
      f.counterexample = std::move(cex);
      f.trace = {{named->loc, "the layout and its replicas"}, {s.loc, "the target that must be covered"}};
      sink.report(s, std::move(f));
    }
  }
};

}  // namespace

LP_REGISTER_RULE(CoverageRule);

}  // namespace lp::rules
