#pragma once
// Brute-force evaluation for the legality checks, through lp::Layout's evaluator (not through the
// algebra's own code), with values as sparse sums over axes so layouts over different axis sets
// compare directly.
#include <string>
#include <utility>
#include <vector>

#include "analyzer/ir/Layout.h"

namespace lp::algebra {

/// A value of a layout: (axis, coefficient) pairs, sorted by axis, no zeros. An integer offset is
/// {(m, v)} (or empty for 0).
using Value = std::vector<std::pair<Axis, int64_t>>;

Value integer_value(int64_t v);
/// The integer an integer-valued Value holds; false when it has non-memory axes.
bool as_integer(const Value& v, int64_t& out);
/// `5`, or `2@0+3@1` for scaled-basis values.
std::string value_text(const Value& v);

/// Largest domain the checks enumerate; above it the verdict is "unknown".
inline constexpr int64_t kMaxCheckedPoints = int64_t{1} << 22;

class Evaluator {
 public:
  explicit Evaluator(Layout layout);
  int64_t size() const { return layout_.size(); }
  Value at(int64_t i) const;
  /// CuTe's value at any integer i, also outside the domain: a colex split with truncating % and
  /// /, the last mode taking the rest, as CuTe evaluates L(i). Equals at(i) inside the domain.
  Value at_extended(int64_t i) const;
  /// The colex coordinate of i, `(1,0,2)`, as CuTe writes it (flat, one entry per leaf).
  std::string coordinate(int64_t i) const;
  const Layout& layout() const { return layout_; }

 private:
  Layout layout_;
};

}  // namespace lp::algebra
