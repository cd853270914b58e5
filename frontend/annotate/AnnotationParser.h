#pragma once
// Annotation statements -> typed AST (Statement.h), with clang-style diagnostics located in the
// original file. A file's statements are parsed in order; names must be declared before use;
// every error is reported (up to a cap) and the statement it occurs in is dropped, never
// completed with an invented default.
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frontend/annotate/Scanner.h"
#include "frontend/annotate/Statement.h"

namespace lp::annotate {

class StatementReader;

struct AnnotateLimits {
  ScanLimits scan;
  ParseLimits layout;            ///< per layout: nesting depth and text length
  size_t max_diagnostics = 100;  ///< per file; one more error says the rest were not reported
  size_t max_instances = 256;    ///< instances of one `for` loop, enclosing loops' counts multiplied
  size_t max_loop_depth = 8;     ///< `for` loops nested in each other
};

struct ParseResult {
  std::shared_ptr<const SourceText> source;  ///< the whole file; every SourceLoc points here
  std::optional<Language> language;
  std::vector<Statement> statements;
  std::vector<ParamSpec> params;  ///< every `param`, in order (ParamTerm::params index this)
  std::vector<Diagnostic> diagnostics;
  bool skipped = false;  ///< not read at all (binary, too large, unknown file type)
  bool has_errors() const;
};

/// Parses the statements the scanner found in one file. Feed them in file order.
class AnnotationParser {
 public:
  AnnotationParser(std::shared_ptr<const SourceText> file, const AnnotateLimits& limits);

  /// Parses one statement, appending it or its diagnostics. Returns false once the diagnostic
  /// cap is reached (later statements would only add noise). A `for NAME in V1, V2, ... {` line
  /// collects the statements up to its `}` and parses them once per value, NAME bound to it.
  bool add(const RawStatement& raw);
  /// Reports what only the end of the file shows (an `allow` followed by no statement).
  ParseResult finish(std::optional<Language> language, std::vector<Diagnostic> scan_diagnostics, bool skipped);

  /// What a declared name stands for.
  enum class Kind { Buffer, Param, Access, Tma, Desc, Compose, Divide, Product };
  struct Entity {
    Kind kind = Kind::Buffer;
    Space space = Space::Smem;  ///< for buffers
    SourceLoc loc;              ///< the declaring name
    bool poisoned = false;      ///< its statement had an error: references are not reported again
  };

 private:
  friend class StatementReader;
  /// A `for` loop whose body is being collected up to its `}`.
  struct LoopRecording {
    std::string var;
    std::vector<int64_t> values;
    SourceLoc loc;  ///< the `for` keyword
    std::vector<RawStatement> body;
    size_t depth = 0;     ///< nested loops open in the body
    bool broken = false;  ///< its header had an error: the body is skipped
  };

  void report(Diagnostic d);
  void failed(const StatementReader& reader);
  void instantiate(const LoopRecording& loop);
  /// "D=64,NCOLS=8": the bound loop variables, outermost first; the first `levels` of them.
  std::string instance_label(size_t levels) const;
  /// The names a declared `name` may be stored under from here, innermost instance first.
  std::vector<std::string> visible_keys(const std::string& name) const;

  std::shared_ptr<const SourceText> file_;
  AnnotateLimits limits_;
  std::vector<Statement> statements_;
  std::vector<ParamSpec> params_;
  std::vector<DerivedParam> derived_;  ///< every `param NAME = EXPR`
  std::vector<Diagnostic> diags_;
  std::map<std::string, Entity> names_;
  std::vector<Suppression> pending_allows_;
  const hw::Arch* arch_ = nullptr;
  bool capped_ = false;
  std::optional<LoopRecording> recording_;
  std::vector<BoundConstant> constants_;  ///< the loop variables of the instance being parsed
  std::vector<SourceLoc> loop_locs_;      ///< their loops' `for` keywords
  std::vector<size_t> loop_sizes_;        ///< their loops' value counts
  size_t instantiated_ = 0;               ///< statements parsed from loop bodies so far
};

/// Scans and parses one file; the language comes from the path's extension (an unknown
/// extension is an error diagnostic and the file is skipped).
ParseResult parse_annotations(const std::string& path, std::string text, const AnnotateLimits& limits = {});
/// The same with the language given.
ParseResult parse_annotations(const std::string& path, std::string text, Language language,
                              const AnnotateLimits& limits = {});

}  // namespace lp::annotate
