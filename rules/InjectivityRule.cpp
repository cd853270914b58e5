// LP001 layout-injective: no two logical elements of a buffer share a physical place (smem
// offset, TMEM lane/column, register of a thread). docs/rules/LP001.md
#include <map>
#include <set>

#include "analyzer/ir/Print.h"
#include "rules/Rule.h"
#include "rules/RuleSupport.h"
#include "solver/Injectivity.h"

namespace lp::rules {

namespace {

class InjectivityRule : public Rule {
 public:
  const rules::RuleInfo& info() const override {
    static const rules::RuleInfo kInfo{
        "LP001", "layout-injective", "Two logical elements share one physical place",
        "Every shared-memory, tensor-memory and register layout must map distinct logical elements to distinct "
        "places; otherwise two threads write one element or a read returns the wrong value. Global layouts are "
        "checked only when an annotation expects them to be injective (broadcast strides are legal there).",
        "docs/rules/LP001.md", Severity::Error, {"correctness"}};
    return kInfo;
  }

  void check(const FileContext& ctx, FindingSink& sink) const override {
    // A non-global buffer claims injectivity by its declaration; `expect NAME injective` states it
    // explicitly, as an obligation of its own that replaces the declaration's (so an `allow` on
    // the declaration never passes the expectation). One proof per name.
    std::set<std::string> expected;
    for (const annotate::Statement& s : ctx.file.statements)
      if (auto* e = std::get_if<annotate::ExpectStmt>(&s.body); e && e->kind == annotate::ExpectKind::Injective)
        expected.insert(e->subject.text);
    std::map<std::string, InjectivityResult> decided;
    for (const annotate::Statement& s : ctx.file.statements) {
      std::string name, missing;
      SourceLoc subject;  // where an expectation names it
      if (auto* b = std::get_if<annotate::BufferDecl>(&s.body)) {
        // Broadcast strides are legal in global memory: only an expectation asks there.
        if (b->space == annotate::Space::Global || expected.count(b->name.text)) continue;
        name = b->name.text;
      } else if (auto* e = std::get_if<annotate::ExpectStmt>(&s.body)) {
        if (e->kind != annotate::ExpectKind::Injective) continue;
        name = e->subject.text;
        subject = e->subject.loc;
      } else {
        continue;
      }
      auto named = layout_of(ctx, name, &missing);
      if (!named) {
        if (!missing.empty()) sink.report(s, unknown_finding(subject, fmt::format("'{}' is injective", name), missing));
        continue;
      }
      auto it = decided.find(name);
      if (it == decided.end())
        it = decided.emplace(name, prove_injective(named->layout, ctx.config.engine, ctx.config.limits, &named->params)).first;
      const InjectivityResult& r = it->second;
      sink.obligation(s, named->loc, fmt::format("{} is injective", name), r.verdict == Verdict::Proven, r.time_ms,
                      proof_of(r, named->params.empty() ? count_product({named->layout.size(), named->layout.replica_count()})
                                                        : std::nullopt));
      if (r.verdict == Verdict::Unknown) {
        sink.report(s, unknown_finding(named->loc, name + " is injective", r));
        continue;
      }
      if (r.verdict != Verdict::Refuted) continue;
      report(ctx, s, name, *named, r, sink);
    }
  }

 private:
  static void report(const FileContext& ctx, const annotate::Statement& s, const std::string& name,
                     const NamedLayout& named, const InjectivityResult& r, FindingSink& sink) {
    const auto& w = *r.witness;
    const Layout inst = named.params.empty() ? named.layout : instantiate(named.layout, named.params, w.params);
    std::string place;
    for (size_t a = 0; a < w.image.size(); ++a)
      place += fmt::format("{}{}={}", a ? ", " : "", inst.axes()[a].spelling(), w.image[a]);
    rules::Finding f = finding(named.loc, fmt::format("layout of '{}' is not injective: elements {} and {} share {}", name,
                                                        w.index_a, w.index_b, place));
    add_note(f, fmt::format("element {} has coordinate ({}), element {} has coordinate ({})", w.index_a,
                            join(inst.split(w.index_a)), w.index_b, join(inst.split(w.index_b))));
    if (!inst.replicas().empty())
      add_note(f, fmt::format("as replica {} and replica {}", w.replica_a, w.replica_b));
    if (!w.params.empty()) {
      std::string ps;
      for (size_t i = 0; i < w.params.size(); ++i)
        ps += fmt::format("{}{}={}", i ? ", " : "", named.params.specs[i].name, w.params[i]);
      add_note(f, "with " + ps);
    }
    if (std::holds_alternative<annotate::ExpectStmt>(s.body)) add_note(f, "the expectation is here", s.loc);
    std::vector<std::string> axes;
    for (const Axis& a : inst.axes()) axes.push_back(a.spelling());
    f.counterexample = InjectivityCex{{w.index_a, w.index_b},
                                      {inst.split(w.index_a), inst.split(w.index_b)},
                                      w.image,
                                      axes,
                                      w.params,
                                      print_cute_or_tirx(inst),
                                      inst.size()};
    const std::string origin = ctx.algebra.step(name) ? fmt::format("'{}' is computed here", name)
                                                      : fmt::format("'{}' is declared with this layout", name);
    f.trace = {{named.loc, origin},
               {s.loc, fmt::format("elements {} and {} land on {}", w.index_a, w.index_b, place)}};
    sink.report(s, std::move(f));
  }
};

}  // namespace

LP_REGISTER_RULE(InjectivityRule);

}  // namespace lp::rules
