#pragma once
// Collects the axes a parser meets, in order of first appearance, and turns single-axis terms
// into dense stride vectors once all axes are known.
#include <optional>
#include <vector>

#include "analyzer/ir/Layout.h"

namespace lp {

/// One stride as written: a value along one axis (or a plain zero).
struct Term {
  int64_t value = 0;
  std::optional<Axis> axis;  ///< nullopt for a zero written without an axis
};

class AxisTable {
 public:
  void note(const Term& t) {
    if (t.axis) index(*t.axis);
  }
  size_t index(const Axis& a) {
    for (size_t i = 0; i < axes_.size(); ++i)
      if (axes_[i] == a) return i;
    axes_.push_back(a);
    return axes_.size() - 1;
  }
  bool empty() const { return axes_.empty(); }
  const std::vector<Axis>& axes() const { return axes_; }
  Point dense(const Term& t) const {
    Point p(axes_.size(), 0);
    if (t.axis && t.value != 0)
      for (size_t i = 0; i < axes_.size(); ++i)
        if (axes_[i] == *t.axis) p[i] += t.value;
    return p;
  }

 private:
  std::vector<Axis> axes_;
};

}  // namespace lp
