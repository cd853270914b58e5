#include "rules/BufferGraph.h"

namespace lp::rules {

namespace {

// The buffer names a statement operates on.
std::vector<std::string> touched(const annotate::Statement& s) {
  using namespace annotate;
  std::vector<std::string> out;
  auto operand = [&](const Operand& o) {
    if (auto* n = std::get_if<Name>(&o)) out.push_back(n->text);
  };
  std::visit(
      [&](const auto& b) {
        using T = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<T, AccessDecl> || std::is_same_v<T, TmaDecl> || std::is_same_v<T, DescDecl>)
          out.push_back(b.buffer.text);
        else if constexpr (std::is_same_v<T, ComposeDecl>) {
          operand(b.a);
          operand(b.b);
        } else if constexpr (std::is_same_v<T, DivideDecl>) {
          operand(b.a);
          operand(b.tiler);
        } else if constexpr (std::is_same_v<T, ProductDecl>) {
          operand(b.a);
          if (b.b) operand(*b.b);
        } else if constexpr (std::is_same_v<T, ExpectStmt>)
          out.push_back(b.subject.text);
      },
      s.body);
  return out;
}

}  // namespace

BufferGraph::BufferGraph(const annotate::ParseResult& file) : file_(file) {
  for (const annotate::Statement& s : file.statements)
    if (auto* b = std::get_if<annotate::BufferDecl>(&s.body)) {
      auto v = boost::add_vertex(GraphNode{true, b->name.text, &s}, g_);
      buffers_[b->name.text] = v;
    }
  for (const annotate::Statement& s : file.statements) {
    if (std::holds_alternative<annotate::BufferDecl>(s.body)) continue;
    std::optional<Graph::vertex_descriptor> op;
    for (const std::string& name : touched(s)) {
      auto it = buffers_.find(name);
      if (it == buffers_.end()) continue;  // a compose result, an access name, ...
      if (!op) op = boost::add_vertex(GraphNode{false, {}, &s}, g_);
      boost::add_edge(*op, it->second, g_);
    }
  }
}

const annotate::Statement* BufferGraph::buffer_statement(const std::string& name) const {
  auto it = buffers_.find(name);
  return it == buffers_.end() ? nullptr : g_[it->second].stmt;
}

const annotate::BufferDecl* BufferGraph::buffer(const std::string& name) const {
  const annotate::Statement* s = buffer_statement(name);
  return s ? &std::get<annotate::BufferDecl>(s->body) : nullptr;
}

std::vector<const annotate::Statement*> BufferGraph::users(const std::string& name) const {
  std::vector<const annotate::Statement*> out;
  auto it = buffers_.find(name);
  if (it == buffers_.end()) return out;
  for (auto [e, end] = boost::in_edges(it->second, g_); e != end; ++e) out.push_back(g_[boost::source(*e, g_)].stmt);
  // Vertices are created in file order, and in-edges follow vertex order only loosely.
  std::sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->loc.offset < b->loc.offset; });
  return out;
}

Parametric BufferGraph::params_of(const ParsedLayout& parsed) const {
  return Parametric{file_.params, parsed.param_uses};
}

std::optional<NamedLayout> BufferGraph::layout_of(const std::string& name) const {
  const annotate::BufferDecl* b = buffer(name);
  if (!b) return std::nullopt;
  if (b->layout) return NamedLayout{b->layout->parsed.layout, params_of(b->layout->parsed).used_only(), b->layout->loc};
  if (b->fragment) return NamedLayout{b->fragment->fragment->layout, {}, b->fragment->name.loc};
  return std::nullopt;
}

}  // namespace lp::rules
