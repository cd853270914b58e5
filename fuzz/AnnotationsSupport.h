#pragma once
// What the annotation targets do with a parsed file (shared by annotations_{lp,cu,py}.cpp).
#include <variant>

#include "frontend/annotate/AnnotationParser.h"
#include "fuzz/FuzzSupport.h"

namespace lp::fuzz {

inline void use_layout(const annotate::LayoutExpr& e) {
  evaluate_some(e.parsed.layout);
  print_and_reparse(e.parsed.layout);
}

/// parse_annotations reports every problem as a diagnostic and throws nothing.
inline void parse_annotations_and_use(const std::string& path, std::string text) {
  annotate::ParseResult r = annotate::parse_annotations(path, std::move(text));
  for (const Diagnostic& d : r.diagnostics) (void)d.render();
  for (const annotate::Statement& s : r.statements) {
    if (auto* b = std::get_if<annotate::BufferDecl>(&s.body); b && b->layout) use_layout(*b->layout);
    if (auto* a = std::get_if<annotate::AccessDecl>(&s.body)) use_layout(a->lanes);
    auto use_operand = [](const annotate::Operand& o) {
      if (auto* e = std::get_if<annotate::LayoutExpr>(&o)) use_layout(*e);
    };
    if (auto* c = std::get_if<annotate::ComposeDecl>(&s.body)) use_operand(c->a), use_operand(c->b);
    if (auto* d = std::get_if<annotate::DivideDecl>(&s.body)) use_operand(d->a), use_operand(d->tiler);
    if (auto* p = std::get_if<annotate::ProductDecl>(&s.body)) {
      use_operand(p->a);
      if (p->b) use_operand(*p->b);
    }
  }
}

}  // namespace lp::fuzz
