#include "analyzer/parse/TreeBuilder.h"

#include <fmt/format.h>

#include <algorithm>

namespace lp {

namespace {

// "D=32" or "M=64, N=8": each parameter of `t` at one end of its range.
std::string end_values(const std::vector<ParamSpec>& specs, const ParamTerm& t, bool largest) {
  std::string out;
  std::vector<size_t> named;
  for (size_t p : t.params) {
    if (std::find(named.begin(), named.end(), p) != named.end()) continue;
    named.push_back(p);
    out += fmt::format("{}{}={}", out.empty() ? "" : ", ", specs[p].name, param_end_value(specs[p], largest));
  }
  return out;
}
std::string smallest_values(const std::vector<ParamSpec>& specs, const ParamTerm& t) { return end_values(specs, t, false); }
std::string largest_values(const std::vector<ParamSpec>& specs, const ParamTerm& t) { return end_values(specs, t, true); }

}  // namespace

// An extent that uses parameters must be at least 1 for every admissible value: it grows with
// each parameter (the parsed instance is the largest) and its smallest value is at least 1.
void check_param_extent(Cursor& c, size_t at, const ParamTerm& t) {
  const std::vector<ParamSpec>& specs = *c.symbols().params;
  if (t.coeff < 1) c.fail_at(at, "a parameter extent needs a positive coefficient");
  const int64_t least = t.value_at_end(specs, false);  // no overflow: below the checked instance value
  if (least < 1)
    c.fail_at(at, fmt::format("this extent is {} where {}; an extent is at least 1", least, smallest_values(specs, t)));
}

// A stride that uses parameters must be largest in size at the parameters' largest values: the
// parsed instance is taken there, and it fixes the bit width of every proof over the parameters.
// The term is monotone in each parameter (ParamTerm), so |term| is largest at one of the two ends.
void check_param_stride(Cursor& c, size_t at, const ParamTerm& t) {
  const std::vector<ParamSpec>& specs = *c.symbols().params;
  const int64_t at_first = t.value_at_end(specs, false), at_last = t.value_at_end(specs, true);  // within the instance's bound
  if ((at_first < 0 ? -at_first : at_first) > (at_last < 0 ? -at_last : at_last))
    c.fail_at(at, fmt::format("this stride is {} where {} but {} where {}: a stride over parameters must be largest "
                              "in size at their largest values, where the layout is parsed",
                              at_first, smallest_values(specs, t), at_last, largest_values(specs, t)));
}

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
    if (shape.param) check_param_extent(c, shape.at, *shape.param);
    if (stride.param) check_param_stride(c, stride.at, *stride.param);
    modes.push_back(Mode{shape.unknown_extent ? Extent::unknown() : Extent(shape.extent), axes.dense(stride.term),
                         shape.static_value, stride.static_value});
    if (uses && shape.param)
      uses->push_back(ParamUse{modes.size() - 1, ParamUse::Field::Extent, 0, *shape.param});
    if (uses && stride.param && stride.term.axis)
      for (size_t a = 0; a < axes.axes().size(); ++a)
        if (axes.axes()[a] == *stride.term.axis)
          uses->push_back(ParamUse{modes.size() - 1, ParamUse::Field::Stride, a, *stride.param});
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
