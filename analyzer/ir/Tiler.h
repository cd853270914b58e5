#pragma once
// CuTe tilers as code writes them with make_tile(...): a layout, `_` (keep the mode), or a tuple of
// tilers, one per mode. The divides, products and by-mode compositions take them; the algebra
// reads them as its own CuteTiler (analyzer/algebra/Algorithms.h).
//
// Invariant: `layout` is set exactly for Kind::Layout, and is a plain CuTe layout
// (plain_cute_problem() is empty); `parts` is non-empty exactly for Kind::Tuple.
#include <optional>
#include <vector>

#include "analyzer/ir/Layout.h"

namespace lp {

struct Tiler {
  enum class Kind { Layout, Underscore, Tuple };
  Kind kind = Kind::Underscore;
  std::optional<lp::Layout> layout;
  std::vector<Tiler> parts;

  static Tiler of(lp::Layout l) { return Tiler{Kind::Layout, std::move(l), {}}; }
  static Tiler underscore() { return Tiler{Kind::Underscore, std::nullopt, {}}; }
  static Tiler tuple(std::vector<Tiler> parts) { return Tiler{Kind::Tuple, std::nullopt, std::move(parts)}; }
};

}  // namespace lp
