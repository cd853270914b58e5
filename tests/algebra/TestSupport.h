#pragma once
// Helpers shared by the algebra tests: parse CuTe text into the algebra's form, and evaluate
// layouts independently through lp::Layout.
#include <string>

#include "analyzer/algebra/CuteLayout.h"
#include "analyzer/algebra/Evaluate.h"
#include "analyzer/parse/Parsers.h"

namespace lp::algebra::testing {

inline Layout ir(const std::string& text) { return parse_layout_text(text).layout; }
inline CuteLayout cute(const std::string& text) { return from_ir(ir(text)); }
/// The integer value of `l` at 1-D index i, CuTe-style past the domain.
inline int64_t value_at(const CuteLayout& l, int64_t i) {
  int64_t v = 0;
  as_integer(Evaluator(to_ir(l)).at_extended(i), v);
  return v;
}

}  // namespace lp::algebra::testing
