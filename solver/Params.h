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

/// How many admissible values one parameter has: the multiples of `multiple` in lo..hi. Exact for
/// every int64 range (no value is built).
int64_t param_value_count(const ParamSpec& p);
/// The admissible values of one parameter, ascending; nullopt when there are more than `limit`
/// (counted before anything is built).
std::optional<std::vector<int64_t>> param_values(const ParamSpec& p, int64_t limit);
/// The layout with the parameters set to `values` (one per spec).
Layout instantiate(const Layout& instance, const Parametric& params, const std::vector<int64_t>& values);
/// Every admissible value vector, or nullopt when there are more than `limit` (counted before
/// anything is built, so a huge range costs nothing).
std::optional<std::vector<std::vector<int64_t>>> all_param_values(const Parametric& params, int64_t limit);

}  // namespace lp
