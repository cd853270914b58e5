#pragma once
// What CuTe expressions evaluate to, as probes wrote them (`cute "EXPR" = LAYOUT`, docs/cute.md),
// gathered over every file of a check run; and the comparison of two layouts as functions, which
// rule LP012 (cute-drift) uses to check an annotation against the expression it names.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frontend/annotate/AnnotationParser.h"
#include "solver/Result.h"

namespace lp::rules {

/// One `cute "EXPR" = LAYOUT` statement.
struct CuteDefinition {
  Layout layout;
  std::string text;  ///< the layout as written
  SourceLoc loc;     ///< the quoted name, in its own file
  bool parametric = false;
};

/// Every definition of a run, by expression name, in file order.
using CuteDefinitions = std::map<std::string, std::vector<CuteDefinition>>;

/// Adds the file's `cute "EXPR" = LAYOUT` statements.
void collect_cute_definitions(const annotate::ParseResult& file, CuteDefinitions& into);

/// Whether a file's text may hold a definition or a reference (`cute "`): the files a run must
/// parse for definitions, and whose results depend on the run's definitions (part of their cache key).
bool mentions_cute(const std::string& text);

/// Where two layouts differ as functions of the logical coordinate, at a base aligned to every
/// swizzle period.
struct Difference {
  std::string what;               ///< one line: "the shape is (ours), not (theirs)", or the coordinate and both offsets
  std::vector<int64_t> coord;     ///< the first differing coordinate (top-level modes); empty for a shape mismatch
  std::optional<int64_t> index;   ///< its 1-D index
  int64_t ours = 0, theirs = 0;   ///< the two element offsets there
};

/// The two layouts' comparison: equal (no difference), a difference, or undecided (`reason`).
struct Comparison {
  Verdict verdict = Verdict::Unknown;  ///< Proven: the same function; Refuted: `difference`
  std::optional<Difference> difference;
  std::string reason;  ///< why Unknown
};

/// Compares `ours` with `theirs` exhaustively over the domain: the same top-level shape and, for
/// every logical index, the same element offset (byte swizzles at an aligned base). Unknown past
/// `limits.max_enumeration` points, for layouts that are not scalar, or without a domain.
Comparison compare_layouts(const Layout& ours, const Layout& theirs, const SolverLimits& limits);

}  // namespace lp::rules
