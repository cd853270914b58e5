#pragma once
// Symbolic parameters of a layout: dynamic extents and strides such as M with 64 <= M <= 2^20
// and M % 64 == 0. The parsed layout is the instance at every parameter's largest value (which
// bounds every value, so it also fixes the Z3 width); the uses say where to substitute.
#include <optional>
#include <vector>

#include "analyzer/ir/Layout.h"
#include "analyzer/parse/Cursor.h"

namespace lp {

struct Parametric {
  std::vector<ParamSpec> specs;
  std::vector<ParamUse> uses;
  bool empty() const { return uses.empty(); }
};

/// The admissible values of one parameter: lo..hi stepping through multiples of `multiple`.
std::vector<int64_t> param_values(const ParamSpec& p);
/// The layout with the parameters set to `values` (one per spec).
Layout instantiate(const Layout& instance, const Parametric& params, const std::vector<int64_t>& values);
/// Every admissible value vector, or nullopt when there are more than `limit`.
std::optional<std::vector<std::vector<int64_t>>> all_param_values(const Parametric& params, int64_t limit);

}  // namespace lp
