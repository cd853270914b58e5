#include "analyzer/parse/TreeBuilder.h"

#include <fmt/format.h>

namespace lp {

namespace {

std::string describe(const TreeNode& n) {
  return n.leaf ? "a number" : fmt::format("a tuple of {}", n.children.size());
}

Nest walk(Cursor& c, const TreeNode& shape, const TreeNode& stride, const AxisTable& axes,
          std::vector<Mode>& modes, std::vector<ParamUse>* uses) {
  if (shape.leaf != stride.leaf || (!shape.leaf && shape.children.size() != stride.children.size()))
    c.fail_at(stride.at, fmt::format("stride is {} but the shape here is {}; shape and stride must "
                                     "have the same nesting",
                                     describe(stride), describe(shape)));
  if (shape.leaf) {
    // Only a descriptor leaf may lack an extent; a written -1 is a bad extent, not "unknown".
    if (!shape.unknown_extent && shape.extent < 1)
      c.fail_at(shape.at, fmt::format("extent {} must be >= 1", shape.extent));
    if (shape.param && shape.param->coeff < 1)
      c.fail_at(shape.at, "a parameter extent needs a positive coefficient");
    modes.push_back(Mode{shape.unknown_extent ? Extent::unknown() : Extent(shape.extent), axes.dense(stride.term),
                         shape.static_value, stride.static_value});
    if (uses && shape.param)
      uses->push_back(ParamUse{modes.size() - 1, ParamUse::Field::Extent, 0, shape.param->param, shape.param->coeff});
    if (uses && stride.param && stride.term.axis)
      for (size_t a = 0; a < axes.axes().size(); ++a)
        if (axes.axes()[a] == *stride.term.axis)
          uses->push_back(ParamUse{modes.size() - 1, ParamUse::Field::Stride, a, stride.param->param, stride.param->coeff});
    return Nest::make_leaf();
  }
  std::vector<Nest> kids;
  for (size_t i = 0; i < shape.children.size(); ++i)
    kids.push_back(walk(c, shape.children[i], stride.children[i], axes, modes, uses));
  return Nest::tuple(std::move(kids));
}

}  // namespace

Layout build_layout(Cursor& c, size_t start, const TreeNode& shape, const TreeNode& stride,
                    const AxisTable& axes, IndexOrder order) {
  std::vector<ParamUse>* uses = c.param_uses();
  LayoutParts p;
  p.order = order;
  p.axes = axes.axes();
  p.nest = walk(c, shape, stride, axes, p.modes, uses);
  try {
    return Layout::make(std::move(p));
  } catch (const LayoutError& e) {
    c.fail_at(start, e.what());
  }
}

}  // namespace lp
