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

Value Evaluator::at(int64_t i) const {
  const Point p = layout_.images(i).at(0);
  Value v;
  for (size_t a = 0; a < p.size(); ++a)
    if (p[a] != 0) v.push_back({layout_.axes()[a], p[a]});
  std::sort(v.begin(), v.end());
  return v;
}

Value Evaluator::at_extended(int64_t i) const {
  if (i >= 0 && i < size()) return at(i);
  // CuTe's crd2idx for an integer: truncating % and / per mode, the last mode unreduced.
  const std::vector<Mode>& modes = layout_.modes();
  std::vector<int64_t> coord(modes.size(), 0);
  for (size_t k = 0; k < modes.size(); ++k) {
    coord[k] = k + 1 == modes.size() ? i : i % modes[k].extent;
    i /= modes[k].extent;
  }
  Point p = layout_.base_of(coord);
  if (const auto m = layout_.axis_index(Axis::memory())) p[*m] = layout_.apply_stages(p[*m]);
  Value v;
  for (size_t a = 0; a < p.size(); ++a)
    if (p[a] != 0) v.push_back({layout_.axes()[a], p[a]});
  std::sort(v.begin(), v.end());
  return v;
}

std::string Evaluator::coordinate(int64_t i) const {
  const std::vector<int64_t> c = layout_.split(i);
  if (c.size() == 1) return fmt::format("{}", c[0]);
  return fmt::format("({})", fmt::join(c, ","));
}

}  // namespace lp::algebra
