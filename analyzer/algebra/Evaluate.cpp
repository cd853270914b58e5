#include "analyzer/algebra/Evaluate.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace lp::algebra {

Value integer_value(int64_t v) {
  if (v == 0) return {};
  return {{Axis::memory(), v}};
}

bool as_integer(const Value& v, int64_t& out) {
  if (v.empty()) {
    out = 0;
    return true;
  }
  if (v.size() == 1 && v[0].first.is_memory()) {
    out = v[0].second;
    return true;
  }
  return false;
}

std::string value_text(const Value& v) {
  int64_t i = 0;
  if (as_integer(v, i)) return fmt::format("{}", i);
  std::string s;
  for (const auto& [axis, c] : v) s += fmt::format("{}{}{}", s.empty() ? "" : "+", c, axis.is_memory() ? "" : axis.spelling());
  return s;
}

Evaluator::Evaluator(Layout layout) : layout_(layout.with_order(IndexOrder::Colex)) {}

namespace {

Value value_of(const Layout& l, const Point& p) {
  Value v;
  for (size_t a = 0; a < p.size(); ++a)
    if (p[a] != 0) v.push_back({l.axes()[a], p[a]});
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

Value Evaluator::at(int64_t i) const { return value_of(layout_, layout_.images(i).at(0)); }

Value Evaluator::at_extended(int64_t i) const { return value_of(layout_, layout_.cute_image(i)); }

std::string Evaluator::coordinate(int64_t i) const {
  const std::vector<int64_t> c = layout_.split(i);
  if (c.size() == 1) return fmt::format("{}", c[0]);
  return fmt::format("({})", fmt::join(c, ","));
}

}  // namespace lp::algebra
