// LP003 algebra-legality: every composition and divide the code performs (`compose`, `divide`
// annotations) gives the function it claims on its whole domain; CuTe itself accepts illegal
// uses silently. `expect NAME illegal` records a known-bad use. docs/rules/LP003.md
#include <chrono>

#include "analyzer/algebra/Operations.h"
#include "rules/Rule.h"
#include "rules/RuleSupport.h"

namespace lp::rules {

namespace {

class AlgebraRule : public Rule {
 public:
  const report::RuleInfo& info() const override {
    static const report::RuleInfo kInfo{
        "LP003", "algebra-legality", "A composition or divide is not the function it claims to be",
        "CuTe composes and divides layouts without checking that B's image lies in A's domain, that its "
        "divisibility conditions hold, or that the result equals A(B(c)). Each `compose` and `divide` annotation "
        "is evaluated over its whole domain; an illegal result comes with the coordinate and the two values.",
        "docs/rules/LP003.md", Severity::Error, {"correctness"}};
    return kInfo;
  }

  void check(const FileContext& ctx, FindingSink& sink) const override {
    std::map<std::string, Layout> results;  // compose/divide results, usable by later statements
    auto resolve = [&](const annotate::Operand& o) -> std::optional<Layout> {
      if (auto* l = std::get_if<annotate::LayoutExpr>(&o)) return l->parsed.layout;
      const std::string& name = std::get<annotate::Name>(o).text;
      if (auto it = results.find(name); it != results.end()) return it->second;
      if (auto named = ctx.graph.layout_of(name)) return named->layout;
      return std::nullopt;
    };
    for (const annotate::Statement& s : ctx.file.statements) {
      const annotate::Name* name = nullptr;
      std::optional<algebra::Outcome> out;
      std::string what;
      const auto started = std::chrono::steady_clock::now();  // the obligation's time, for statistics
      if (auto* c = std::get_if<annotate::ComposeDecl>(&s.body)) {
        auto a = resolve(c->a), b = resolve(c->b);
        if (!a || !b) continue;  // an operand whose own statement failed
        name = &c->name;
        what = fmt::format("'{}' = A o B", c->name.text);
        out = run(ctx, s, [&] { return algebra::op_compose(*a, *b); }, sink);
      } else if (auto* d = std::get_if<annotate::DivideDecl>(&s.body)) {
        auto a = resolve(d->a), t = resolve(d->tiler);
        if (!a || !t) continue;
        name = &d->name;
        what = fmt::format("'{}' = {}(A, T)", d->name.text, annotate::divide_name(d->kind));
        static const algebra::DivideKind kKinds[] = {algebra::DivideKind::Logical, algebra::DivideKind::Zipped,
                                                     algebra::DivideKind::Tiled, algebra::DivideKind::Flat};
        out = run(ctx, s, [&] {
          return algebra::op_divide(kKinds[static_cast<int>(d->kind)], *a, algebra::Tiler::of(algebra::from_ir(*t)));
        }, sink);
      } else {
        continue;
      }
      if (!out) continue;
      if (out->text && out->check.verdict == algebra::Verdict::Legal) {
        try {
          results.emplace(name->text, parse_layout_text(*out->text, "<result>").layout);
        } catch (const DiagnosticError&) {
          // A result the IR cannot hold (e.g. a swizzle inside): later uses of the name are skipped.
        }
      }
      const annotate::Statement* expect = illegal_expectation(ctx, name->text);
      const bool expected_illegal = expect != nullptr;
      const bool illegal = out->check.verdict == algebra::Verdict::Illegal;
      sink.obligation(s, s.loc, what + (expected_illegal ? " is illegal, as expected" : " is legal"),
                      out->check.verdict != algebra::Verdict::Unknown && illegal == expected_illegal,
                      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count());
      if (out->check.verdict == algebra::Verdict::Unknown) {
        Outcome o;
        o.reason = out->check.reason;
        sink.report(s, unknown_finding(s.loc, what + " is legal", o), {expect});
        continue;
      }
      if (expected_illegal && !illegal) {
        sink.report(s, finding(name->loc, fmt::format("{} is expected to be illegal, but CuTe's result {} is legal", what,
                                                      out->text.value_or("(none)"))),
                    {expect});
        continue;
      }
      if (!illegal || expected_illegal) continue;
      report::Finding f = finding(s.loc, fmt::format("{} is illegal: {}", what, out->check.reason));
      if (out->text) add_note(f, fmt::format("CuTe computes {}", *out->text));
      if (const auto& w = out->check.witness) {
        add_note(f, fmt::format("at {} index {} (coordinate {}): {} = {} but {} = {}", w->domain, w->index, w->coordinate,
                                w->expected_label, w->expected, w->actual_label, w->actual));
        f.counterexample = {{"index", w->index},    {"coordinate", w->coordinate}, {"expected", w->expected},
                            {"actual", w->actual}, {"result", out->text.value_or("")}};
      }
      sink.report(s, std::move(f));
    }
  }

 private:
  template <class Op>
  static std::optional<algebra::Outcome> run(const FileContext&, const annotate::Statement& s, Op op, FindingSink& sink) {
    try {
      return op();
    } catch (const std::exception& e) {  // operands CuTe rejects outright (AlgebraError, LayoutError)
      report::Finding f = finding(s.loc, fmt::format("the operation cannot be performed: {}", e.what()));
      sink.report(s, std::move(f));
      return std::nullopt;
    }
  }

  static const annotate::Statement* illegal_expectation(const FileContext& ctx, const std::string& name) {
    for (const annotate::Statement& s : ctx.file.statements)
      if (auto* e = std::get_if<annotate::ExpectStmt>(&s.body))
        if (e->kind == annotate::ExpectKind::Illegal && e->subject.text == name) return &s;
    return nullptr;
  }
};

}  // namespace

LP_REGISTER_RULE(AlgebraRule);

}  // namespace lp::rules
