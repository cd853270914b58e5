// LP012 cute-drift: a layout annotated as standing for a CuTe expression (`cute "EXPR"`) is the
// same function as what a probe wrote for that expression (`cute "EXPR" = LAYOUT`, from the
// kernel's own CuTe types; docs/cute.md), and the probes of a run agree on every expression.
// docs/rules/LP012.md
#include "rules/CuteDefinitions.h"
#include "rules/Rule.h"
#include "rules/RuleSupport.h"

namespace lp::rules {

namespace {

// The byte-address swizzle of a layout (`Sw o smem_ptr[Nb] o L`), if its last stage is one.
const Stage* byte_swizzle(const Layout& l) {
  return !l.stages().empty() && l.stages().back().kind == Stage::Kind::ByteSwizzle ? &l.stages().back() : nullptr;
}

// Bytes of a swizzle's period: the first address bit it does not read or write.
int64_t period_bytes(const Stage& s) {
  const int64_t mask = s.swizzle.source_mask() | s.swizzle.dest_mask() | 1;
  return int64_t{1} << (64 - __builtin_clzll(static_cast<uint64_t>(mask)));
}

// A definition's place, said in words: the findings of a file are cached with locations in that
// file only, and a definition may be in another file of the run.
std::string where(const SourceLoc& loc) {
  auto [line, col] = line_col_of(*loc.source, loc.offset);
  return fmt::format("{}:{}:{}", loc.source->name, line, col);
}

class CuteDriftRule : public Rule {
 public:
  const rules::RuleInfo& info() const override {
    static const rules::RuleInfo kInfo{
        "LP012", "cute-drift", "An annotated layout is not the CuTe expression it names",
        "A buffer declared with `cute \"EXPR\"` must be, point by point, the layout a probe computed from the kernel's "
        "own CuTe types for EXPR (`cute \"EXPR\" = LAYOUT`, written by layoutproof/cute.hpp), so a hand-written "
        "annotation cannot silently drift from the code. Two probes may not give one expression different layouts.",
        "docs/rules/LP012.md", Severity::Error, {"correctness", "cute"}};
    return kInfo;
  }

  void check(const FileContext& ctx, FindingSink& sink) const override {
    for (const annotate::Statement& s : ctx.file.statements) {
      if (auto* b = std::get_if<annotate::BufferDecl>(&s.body); b && b->cute && b->layout) check_reference(ctx, s, *b, sink);
      if (auto* d = std::get_if<annotate::CuteDef>(&s.body)) check_definition(ctx, s, *d, sink);
    }
  }

 private:
  static const std::vector<CuteDefinition>* definitions(const FileContext& ctx, const std::string& name) {
    if (!ctx.cute) return nullptr;
    auto it = ctx.cute->find(name);
    return it == ctx.cute->end() || it->second.empty() ? nullptr : &it->second;
  }

  static void check_reference(const FileContext& ctx, const annotate::Statement& s, const annotate::BufferDecl& b,
                              FindingSink& sink) {
    const std::string& expr = b.cute->text;
    const std::string what = fmt::format("'{}' is the CuTe expression \"{}\"", b.name.text, expr);
    const std::vector<CuteDefinition>* defs = definitions(ctx, expr);
    if (!defs) {
      rules::Finding f = finding(b.cute->loc, fmt::format("no probe output among the files checked defines the CuTe "
                                                           "expression \"{}\"",
                                                           expr));
      f.kind = rules::FindingKind::Invalid;
      add_note(f, "run the probe that computes it (layoutproof extract PROBE.cpp --emit FILE.lp) and check its output "
                  "together with this file; docs/cute.md");
      sink.obligation(s, b.cute->loc, what, false, 0);
      sink.report(s, std::move(f));
      return;
    }
    const CuteDefinition& def = defs->front();
    if (!b.layout->parsed.param_uses.empty() || def.parametric) {
      sink.obligation(s, b.cute->loc, what, false, 0);
      sink.report(s, unknown_finding(b.cute->loc, what, "layouts with symbolic parameters are not compared; instantiate them"));
      return;
    }
    Stopwatch clock;
    Comparison c = compare_layouts(b.layout->parsed.layout, def.layout, ctx.config.limits);
    std::optional<std::string> base_problem;
    if (c.verdict == Verdict::Proven) base_problem = base_dependence(b, def);
    const bool passed = c.verdict == Verdict::Proven && !base_problem;
    sink.obligation(s, b.cute->loc, what, passed, clock.elapsed_ms(),
                    c.verdict == Verdict::Unknown ? std::nullopt : std::optional(rules::ProofSummary{engine_name(Engine::Enum), {}, {}, {}, {}, {}, {}}));
    if (passed) return;
    if (c.verdict == Verdict::Unknown) {
      sink.report(s, unknown_finding(b.cute->loc, what, c.reason));
      return;
    }
    rules::Finding f = finding(b.layout->loc, c.difference ? fmt::format("'{}' is not the CuTe expression \"{}\": {}",
                                                                          b.name.text, expr, c.difference->what)
                                                            : fmt::format("'{}' is not the CuTe expression \"{}\": {}",
                                                                          b.name.text, expr, *base_problem));
    add_note(f, fmt::format("CuTe's \"{}\" is {} ({})", expr, def.text, where(def.loc)));
    CuteDriftCex cex{def.text, b.layout->instance_text(), std::nullopt};
    if (c.difference && c.difference->index)
      cex.difference = CuteDriftCex::Difference{c.difference->coord, *c.difference->index, c.difference->ours, c.difference->theirs};
    f.counterexample = std::move(cex);
    f.trace = {{b.layout->loc, fmt::format("'{}' is annotated like this", b.name.text)},
               {{}, fmt::format("the probe computed \"{}\" from the CuTe types at {}", expr, where(def.loc))}};
    sink.report(s, std::move(f));
  }

  // Equal offsets at an aligned base still differ where one swizzle reads absolute byte addresses
  // and the other element offsets, unless the buffer's base is aligned to the swizzle's period.
  static std::optional<std::string> base_dependence(const annotate::BufferDecl& b, const CuteDefinition& def) {
    const Stage* ours = byte_swizzle(b.layout->parsed.layout);
    const Stage* theirs = byte_swizzle(def.layout);
    if (!ours == !theirs) return std::nullopt;
    const int64_t period = period_bytes(ours ? *ours : *theirs);
    if (b.align && b.align->value >= period) return std::nullopt;
    return fmt::format("the offsets agree only for a base aligned to {} bytes: {} swizzle acts on absolute byte "
                       "addresses and {} on element offsets; declare 'align {}' (or write the swizzle as {} does)",
                       period, theirs ? "CuTe's" : "the annotation's", theirs ? "the annotation's" : "CuTe's", period,
                       "CuTe");
  }

  // A second definition of an expression must be the same function as the first.
  static void check_definition(const FileContext& ctx, const annotate::Statement& s, const annotate::CuteDef& d,
                               FindingSink& sink) {
    const std::vector<CuteDefinition>* defs = definitions(ctx, d.name.text);
    if (!defs || defs->size() < 2) return;
    const CuteDefinition& first = defs->front();
    if (first.loc.source.get() == d.name.loc.source.get() && first.loc.offset == d.name.loc.offset) return;
    if (first.parametric || !d.layout.parsed.param_uses.empty()) return;
    Comparison c = compare_layouts(d.layout.parsed.layout, first.layout, ctx.config.limits);
    if (c.verdict != Verdict::Refuted) return;
    rules::Finding f = finding(d.name.loc, fmt::format("two probes give the CuTe expression \"{}\" different layouts: {}",
                                                        d.name.text, c.difference->what));
    add_note(f, fmt::format("the first definition is {} ({})", first.text, where(first.loc)));
    sink.report(s, std::move(f));
  }
};

}  // namespace

LP_REGISTER_RULE(CuteDriftRule);

}  // namespace lp::rules
