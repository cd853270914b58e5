#pragma once
// Shared helpers of the annotation tests.
#include <string>

#include "frontend/annotate/AnnotationParser.h"

namespace lp::annotate::test {

inline ParseResult parse(const std::string& path, const std::string& text) { return parse_annotations(path, text); }

/// Every diagnostic rendered, for failure messages and caret checks.
inline std::string rendered(const ParseResult& r) {
  std::string out;
  for (const Diagnostic& d : r.diagnostics) out += d.render();
  return out;
}

inline std::pair<size_t, size_t> lc(const SourceLoc& l) { return line_col_of(*l.source, l.offset); }

template <class T>
const T& body(const ParseResult& r, size_t i) {
  return std::get<T>(r.statements.at(i).body);
}

}  // namespace lp::annotate::test
