#pragma once
// The reader of one annotation statement behind AnnotationParser (AnnotationParser.h), declared for
// its parts: the statement's framing, `for` headers and clauses (AnnotationParser.cpp), the tokens,
// names, layouts and operands statements are made of (StatementOperands.cpp), and the body of each
// statement family (StatementBodies.cpp).
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "frontend/annotate/AnnotationParser.h"

namespace lp::annotate {

namespace detail {

/// Thrown when a statement refers to a name whose own declaration already failed: that error
/// has been reported, and a second one about the same root cause would only be noise.
struct DroppedStatement {};

const char* kind_phrase(const AnnotationParser::Entity& e);
bool has_layout(const AnnotationParser::Entity& e);

}  // namespace detail

/// Reads one raw statement with a Cursor over cuts of its text; every cut is registered with the
/// file offset of its first byte, so any diagnostic can be moved back into the file.
class StatementReader {
 public:
  StatementReader(AnnotationParser& p, const RawStatement& raw) : p_(p), raw_(raw), file_(p.file_) {}

  /// The statement (or nullopt for a standalone `allow`, which becomes pending).
  std::optional<Statement> read();
  /// A loop header `for NAME in V1, V2, LO..HI {` (values are integer expressions over the
  /// enclosing loops' variables).
  AnnotationParser::LoopRecording read_loop();
  /// Moves locations inside this statement's cuts to the file.
  SourceLoc to_file(const SourceLoc& l) const;

  const std::optional<Name>& declared() const { return declared_; }

 private:
  struct Part {
    std::shared_ptr<SourceText> src;
    size_t base;  ///< file offset of src->text[0]
  };

  std::vector<std::pair<size_t, size_t>> split_parts() const;
  Part cut(size_t b, size_t e);

  Cursor& c() { return *c_; }
  SourceLoc loc(size_t off) const { return SourceLoc{file_, base_ + off}; }
  size_t here() {
    c().skip_ws();
    return c().pos();
  }
  [[noreturn]] void fail(const SourceLoc& at, std::string msg, std::vector<Note> notes = {}) const {
    Diagnostic d;
    d.loc = at;
    d.message = std::move(msg);
    d.notes = std::move(notes);
    throw DiagnosticError(std::move(d));
  }

  // ---- tokens (StatementOperands.cpp) -----------------------------------------------------------

  Name name(std::string_view what);
  Name token(std::string_view what, bool dots);
  Number integer(std::string_view what);
  Number positive(std::string_view what);
  void end_of_statement();
  std::optional<Name> optional_label();

  // ---- names (StatementOperands.cpp) ------------------------------------------------------------

  void declare(Name& n);

  // Finds the innermost visible declaration and renames `n` to the key it is stored under.
  template <class Accept>
  const AnnotationParser::Entity& resolve(Name& n, Accept accept, std::string_view expected) {
    auto it = p_.names_.end();
    for (const std::string& key : p_.visible_keys(n.text))
      if ((it = p_.names_.find(key)) != p_.names_.end()) break;
    if (it == p_.names_.end())
      fail(n.loc, fmt::format("'{}' is not declared; expected {} declared earlier in this file", n.text, expected));
    n.text = it->first;
    if (it->second.poisoned) throw detail::DroppedStatement{};
    if (!accept(it->second))
      fail(n.loc, fmt::format("'{}' is {}; expected {}", n.text, detail::kind_phrase(it->second), expected),
           {Note{it->second.loc, fmt::format("'{}' is declared here", n.text)}});
    return it->second;
  }

  Name smem_buffer(std::string_view role);
  void commit(AnnotationParser::Kind kind, Space space = Space::Smem);

  // ---- layouts (StatementOperands.cpp) ----------------------------------------------------------

  LayoutExpr layout_at(size_t b, size_t e, std::string_view context);
  LayoutExpr quoted_layout(std::string_view context);
  LayoutExpr layout_to_end(std::string_view context, bool allow_align, std::string_view clause = {});
  size_t clause_start(size_t at, size_t limit, std::string_view keyword);
  ActiveLanes active_lanes();
  TilerExpr tiler_at_cursor();
  Operand operand(std::string_view context, bool tiler_allowed = false);

  // ---- statements (StatementBodies.cpp) ---------------------------------------------------------

  std::optional<Statement> read_body();
  Dtype dtype();
  BufferDecl buffer(Space space);
  CuteName cute_name(std::string_view what);
  CuteDef cute_def();
  void param(Statement& st);
  ArchDecl arch();
  AccessDecl access();
  SwizzleRef swizzle(bool tcgen05);
  TmaDecl tma();
  DescDecl desc(DescKind kind);
  ComposeDecl compose();
  template <class Kind, size_t N>
  std::pair<Kind, SourceLoc> operation(std::string_view what, const Vocabulary<Kind, N>& table);
  DivideDecl divide();
  ProductDecl product();
  std::vector<AxisRangeExpr> ranges();
  ExpectStmt expect(bool covers_keyword);
  CompiledRef compiled_ref();

  // ---- clauses (AnnotationParser.cpp) -----------------------------------------------------------

  Suppression suppression(size_t allow_at);
  void read_clause(size_t b, size_t e, std::vector<Suppression>& allows, std::optional<Origin>& origin);

  AnnotationParser& p_;
  const RawStatement& raw_;
  std::shared_ptr<const SourceText> file_;
  Cursor* c_ = nullptr;
  size_t base_ = 0;  ///< file offset of the current cut's first byte
  std::vector<std::pair<const SourceText*, size_t>> cuts_;
  std::vector<std::shared_ptr<SourceText>> keep_;
  std::optional<Name> declared_;
};

}  // namespace lp::annotate
