#include "analyzer/parse/TreeBuilder.h"

#include <fmt/format.h>

namespace lp {

namespace {

std::string describe(const TreeNode& n) {
  return n.leaf ? "a number" : fmt::format("a tuple of {}", n.children.size());
}

Nest walk(Cursor& c, const TreeNode& shape, const TreeNode& stride, const AxisTable& axes,
          std::vector<Mode>& modes) {
  if (shape.leaf != stride.leaf || (!shape.leaf && shape.children.size() != stride.children.size()))
    c.fail_at(stride.at, fmt::format("stride is {} but the shape here is {}; shape and stride must "
                                     "have the same nesting",
                                     describe(stride), describe(shape)));
  if (shape.leaf) {
    if (shape.extent != kUnknownExtent && shape.extent < 1)
      c.fail_at(shape.at, fmt::format("extent {} must be >= 1", shape.extent));
    modes.push_back(Mode{shape.extent, axes.dense(stride.term), shape.static_value, stride.static_value});
    return Nest::make_leaf();
  }
  std::vector<Nest> kids;
  for (size_t i = 0; i < shape.children.size(); ++i)
    kids.push_back(walk(c, shape.children[i], stride.children[i], axes, modes));
  return Nest::tuple(std::move(kids));
}

}  // namespace

Layout build_layout(Cursor& c, size_t start, const TreeNode& shape, const TreeNode& stride,
                    const AxisTable& axes, IndexOrder order) {
  LayoutParts p;
  p.order = order;
  p.axes = axes.axes();
  p.nest = walk(c, shape, stride, axes, p.modes);
  try {
    return Layout::make(std::move(p));
  } catch (const LayoutError& e) {
    c.fail_at(start, e.what());
  }
}

}  // namespace lp
