#pragma once
// The buffers one file declares and the operations that touch them, as a Boost.Graph: an edge
// runs from each operation (access, TMA, descriptor, compose/divide, expectation) to every
// buffer it names. Rules walk it to check each node and the consistency along the edges (a TMA
// writing one swizzle into a buffer that a descriptor reads with another).
#include <boost/graph/adjacency_list.hpp>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frontend/annotate/AnnotationParser.h"
#include "analyzer/ir/Parametric.h"

namespace lp::rules {

struct GraphNode {
  bool is_buffer = false;
  std::string name;                              ///< buffer name, or the operation's name if it has one
  const annotate::Statement* stmt = nullptr;     ///< the declaring or operating statement
};

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, GraphNode>;

/// A layout a name stands for, with the parameters it uses.
struct NamedLayout {
  Layout layout;
  Parametric params;
  SourceLoc loc;
};

class BufferGraph {
 public:
  explicit BufferGraph(const annotate::ParseResult& file);

  const Graph& graph() const { return g_; }
  /// The declaration of buffer `name`, or null.
  const annotate::BufferDecl* buffer(const std::string& name) const;
  const annotate::Statement* buffer_statement(const std::string& name) const;
  /// Statements that touch buffer `name`, in file order.
  std::vector<const annotate::Statement*> users(const std::string& name) const;
  /// The layout a declared name stands for: a buffer's layout or fragment. Compose and divide
  /// results are the algebra's business (rules/AlgebraRule.cpp) and are not resolved here. Its
  /// parameters are those the layout uses (Parametric::used_only).
  std::optional<NamedLayout> layout_of(const std::string& name) const;
  /// The file's parameters with the uses of one parsed layout.
  Parametric params_of(const ParsedLayout& parsed) const;

 private:
  const annotate::ParseResult& file_;
  Graph g_;
  std::map<std::string, Graph::vertex_descriptor> buffers_;
};

}  // namespace lp::rules
