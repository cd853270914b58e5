#include "rules/AlgebraSteps.h"

#include <fmt/format.h>

#include <functional>

#include "analyzer/support/Governor.h"
#include "solver/AlgebraClaims.h"

namespace lp::rules {

namespace {

using Value = std::variant<Layout, Tiler>;

algebra::CuteTiler as_tiler(const Value& v) {
  if (auto* t = std::get_if<Tiler>(&v)) return algebra::to_cute(*t);
  return algebra::CuteTiler::of(algebra::from_ir(std::get<Layout>(v)));
}

algebra::Operand as_compose_operand(const Value& v) {
  if (auto* t = std::get_if<Tiler>(&v)) return algebra::to_cute(*t);
  return std::get<Layout>(v);
}

}  // namespace

AlgebraSteps::AlgebraSteps(const annotate::ParseResult& file, const BufferGraph& graph, Engine engine,
                           const SolverLimits& limits) {
  // An operand as the algebra takes it. A step without a result gives the reason as a string;
  // absent: a name whose declaration failed (the parser reported it).
  using Resolved = std::variant<Value, std::string>;
  auto resolve = [&](const annotate::Operand& o) -> std::optional<Resolved> {
    if (auto* l = std::get_if<annotate::LayoutExpr>(&o)) return Value{l->parsed.layout};
    if (auto* t = std::get_if<annotate::TilerExpr>(&o)) return Value{t->tiler};
    const std::string& name = std::get<annotate::Name>(o).text;
    if (const AlgebraStep* s = step(name)) {
      if (s->result) return Value{*s->result};
      return fmt::format("'{}' has no layout: {}", name, s->result_missing);
    }
    if (auto named = graph.layout_of(name)) return Value{named->layout};
    return std::nullopt;
  };
  static const algebra::DivideKind kKinds[] = {algebra::DivideKind::Logical, algebra::DivideKind::Zipped,
                                               algebra::DivideKind::Tiled, algebra::DivideKind::Flat};
  for (const annotate::Statement& s : file.statements) {
    AlgebraStep st;
    st.stmt = &s;
    const Stopwatch clock;
    std::function<algebra::Outcome(const Value&, const Value&)> op;
    std::optional<Resolved> a, b;
    if (auto* c = std::get_if<annotate::ComposeDecl>(&s.body)) {
      a = resolve(c->a), b = resolve(c->b);
      st.name = &c->name;
      st.what = fmt::format("'{}' = A o B", c->name.text);
      op = [](const Value& x, const Value& y) { return algebra::op_compose(as_compose_operand(x), as_compose_operand(y)); };
    } else if (auto* d = std::get_if<annotate::DivideDecl>(&s.body)) {
      a = resolve(d->a), b = resolve(d->tiler);
      st.name = &d->name;
      st.what = fmt::format("'{}' = {}(A, T)", d->name.text, annotate::divide_name(d->kind));
      const algebra::DivideKind kind = kKinds[static_cast<int>(d->kind)];
      op = [kind](const Value& x, const Value& t) {
        // The parser admits a tiler only as T; a name always stands for a layout.
        return algebra::op_divide(kind, std::get<Layout>(x), as_tiler(t));
      };
    } else if (auto* pr = std::get_if<annotate::ProductDecl>(&s.body)) {
      a = resolve(pr->a);
      st.name = &pr->name;
      const annotate::ProductKind kind = pr->kind;
      if (kind == annotate::ProductKind::TileToShape) {
        b = Value{Tiler{}};  // unused: the target shape is the statement's own
        st.what = fmt::format("'{}' = tile_to_shape(A, S)", pr->name.text);
        const std::vector<algebra::Int> target = *pr->target;
        op = [target](const Value& x, const Value&) { return algebra::op_tile_to_shape(std::get<Layout>(x), target); };
      } else {
        b = resolve(*pr->b);
        st.what = fmt::format("'{}' = {}(A, B)", pr->name.text, annotate::product_name(kind));
        op = [kind](const Value& x, const Value& y) {
          // The parser admits a tiler only as logical_product's B; a name always stands for a layout.
          if (kind == annotate::ProductKind::Logical) return algebra::op_logical_product(std::get<Layout>(x), as_tiler(y));
          if (kind == annotate::ProductKind::Blocked) return algebra::op_blocked_product(std::get<Layout>(x), std::get<Layout>(y));
          return algebra::op_raked_product(std::get<Layout>(x), std::get<Layout>(y));
        };
      }
    } else {
      continue;
    }
    if (!a || !b) continue;
    if (auto* why = std::get_if<std::string>(&*a)) {
      st.error = *why;
    } else if (auto* why_b = std::get_if<std::string>(&*b)) {
      st.error = *why_b;
    } else {
      try {
        check_budget();  // CuTe's result is computed before its legality check: start none past the deadline
        st.outcome = decide_claims(op(std::get<Value>(*a), std::get<Value>(*b)), engine, limits);
      } catch (const BudgetExhausted& e) {  // the run's budget: undecided, not a rejection
        st.outcome = algebra::Outcome{};
        st.outcome->check = algebra::Check::unknown(e.what());
        st.result_missing = e.what();
      } catch (const std::exception& e) {  // operands CuTe rejects outright (AlgebraError, LayoutError)
        st.error = e.what();
      }
    }
    if (st.outcome && st.outcome->composed) {
      st.result = *st.outcome->composed;
    } else if (st.outcome && st.outcome->layout) {
      try {
        st.result = algebra::to_ir(*st.outcome->layout);
      } catch (const std::exception& e) {
        st.result_missing = fmt::format("the IR cannot hold CuTe's result {}: {}", st.outcome->text.value_or(""), e.what());
      }
    } else if (st.result_missing.empty()) {
      st.result_missing = st.outcome ? "CuTe computes no layout for it" : "the operation cannot be performed: " + st.error;
    }
    st.time_ms = clock.elapsed_ms();
    by_name_[st.name->text] = steps_.size();
    steps_.push_back(std::move(st));
  }
}

const AlgebraStep* AlgebraSteps::step(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &steps_[it->second];
}

}  // namespace lp::rules
