// LP000 annotation-syntax: an annotation the parser could not read. Its diagnostics become
// findings, so a CI run shows them in every format with their carets. docs/rules/LP000.md
#include "rules/Rule.h"
#include "rules/RuleSupport.h"

namespace lp::rules {

namespace {

class AnnotationSyntaxRule : public Rule {
 public:
  const rules::RuleInfo& info() const override {
    static const rules::RuleInfo kInfo{
        "LP000", "annotation-syntax", "An annotation cannot be read",
        "The statement is malformed, names something undeclared, or the file cannot be read (binary, too "
        "large). The statement is dropped, never completed with a guess, so its properties are not checked.",
        "docs/rules/LP000.md", Severity::Error, {"annotation"}};
    return kInfo;
  }

  void check(const FileContext& ctx, FindingSink& sink) const override {
    for (const Diagnostic& d : ctx.file.diagnostics) {
      if (d.severity == Severity::Note) continue;
      rules::Finding f = finding(d.loc, d.message);
      f.kind = rules::FindingKind::Invalid;
      f.notes = d.notes;
      sink.report_at(d.loc, std::move(f), d.severity);
    }
  }
};

}  // namespace

LP_REGISTER_RULE(AnnotationSyntaxRule);

}  // namespace lp::rules
