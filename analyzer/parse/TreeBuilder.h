#pragma once
// Shape and stride trees as parsers read them, and their assembly into a Layout, with congruence
// checked and every error located at the offending subtree.
#include <vector>

#include "analyzer/ir/Layout.h"
#include "analyzer/parse/AxisTable.h"
#include "analyzer/parse/Cursor.h"

namespace lp {

struct TreeNode {
  bool leaf = true;
  std::vector<TreeNode> children;
  size_t at = 0;              ///< offset of the node in the source
  int64_t extent = 0;         ///< shape leaves
  bool unknown_extent = false;  ///< a descriptor leaf: no extent was written (its mode's extent is unknown)
  Term term;                  ///< stride leaves
  bool static_value = true;   ///< CuTe `_N`
  std::optional<ParamTerm> param;  ///< the extent or stride is a declared parameter term
};

/// Refuses a parameter extent that is below 1 at some admissible value (or shrinks as it grows).
void check_param_extent(Cursor& c, size_t at, const ParamTerm& t);
/// Refuses a parameter stride whose size is not largest at the parameter's largest value.
void check_param_stride(Cursor& c, size_t at, const ParamTerm& t);

/// Builds a Layout from congruent shape and stride trees. An empty `shape` leaf list with a
/// non-empty stride is not possible here: congruence is checked first.
/// Parameter uses found in the trees go to the cursor's param_uses() sink.
Layout build_layout(Cursor& c, size_t start, const TreeNode& shape, const TreeNode& stride,
                    const AxisTable& axes, IndexOrder order);

}  // namespace lp
