#pragma once
// Symbolic parameters of a layout: dynamic extents and strides such as M with 64 <= M <= 2^20
// and M % 64 == 0. A parametric layout is held as its instance at every parameter's largest value
// (which bounds every value, so it also fixes the Z3 width) and the uses that say where to
// substitute (ParamUse); the parsers record the uses (analyzer/parse/Cursor.h).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/ir/Layout.h"

namespace lp {

/// A symbolic integer parameter a layout may use for an extent or a stride: a dynamic extent
/// such as M with M % 64 == 0 and 64 <= M <= 2^20. Invariant: 1 <= lo <= hi, multiple >= 1.
struct ParamSpec {
  std::string name;
  int64_t lo = 1, hi = 1, multiple = 1;
};

/// An integer term over parameters as written: `M`, `2*D+8`, `D/2`, `M*N`, `M*N/64 + 8`:
/// coeff * (the product of params) / divisor + offset.
/// Invariants: `params` is non-empty and sorted (a parameter may repeat: `M*M`); divisor >= 1 and
/// shares no factor with coeff; the quotient is exact for every admissible value (divisor divides
/// coeff times the product of the params' multiples: exact_for), so the term is
/// scale * prod(P_i / multiple_i) + offset with an integer scale. Every parameter is positive, so
/// the term is monotone in each parameter, in the direction of coeff's sign: over the admissible
/// values it is extreme where every parameter is smallest and where every one is largest.
struct ParamTerm {
  std::vector<size_t> params;  ///< indices into the declared ParamSpecs
  int64_t coeff = 1, divisor = 1, offset = 0;

  /// Its value at one value per declared parameter; throws OverflowError when it does not fit.
  int64_t value(const std::vector<int64_t>& values) const;
  /// Its value with every parameter at its smallest (`largest` false) or largest admissible value.
  int64_t value_at_end(const std::vector<ParamSpec>& specs, bool largest) const;
  /// Whether the division is exact for every admissible value.
  bool exact_for(const std::vector<ParamSpec>& specs) const;
  /// coeff * prod(multiple_i) / divisor, an integer when exact_for holds; throws OverflowError.
  int64_t scale(const std::vector<ParamSpec>& specs) const;
  /// As written, with the parameters' names: `2*D+8`, `M*N/64`.
  std::string text(const std::vector<ParamSpec>& specs) const;
  bool operator==(const ParamTerm&) const = default;
};

/// The admissible value of `p` nearest its lowest (`largest` false) or highest bound; p must have one.
int64_t param_end_value(const ParamSpec& p, bool largest);

/// One place a parameter term stands in a parsed layout.
struct ParamUse {
  enum class Field { Extent, Stride, ReplicaExtent, ReplicaStride };
  size_t mode = 0;   ///< index into Layout::modes(), or into Layout::replicas() for Replica*
  Field field = Field::Extent;
  size_t axis = 0;   ///< for strides: the axis the stride moves along
  ParamTerm term;
};

/// The parameters of one layout: their declarations and where the layout uses them.
struct Parametric {
  std::vector<ParamSpec> specs;
  std::vector<ParamUse> uses;
  bool empty() const { return uses.empty(); }
  /// Only the specs some use names, in their order, the uses renumbered: what a proof about this
  /// layout alone ranges over (a parameter it does not use would only repeat each instance).
  Parametric used_only() const;
};

/// How many admissible values one parameter has: the multiples of `multiple` in lo..hi. Exact for
/// every int64 range (no value is built).
int64_t param_value_count(const ParamSpec& p);
/// The admissible values of one parameter, ascending; nullopt when there are more than `limit`
/// (counted before anything is built).
std::optional<std::vector<int64_t>> param_values(const ParamSpec& p, int64_t limit);
/// The layout with the parameters set to `values` (one per spec).
Layout instantiate(const Layout& instance, const Parametric& params, const std::vector<int64_t>& values);
/// Visits value vectors in ascending order (the first parameter most significant) until `visit`
/// returns true or `limit` vectors were visited; returns whether a visit returned true. Builds one
/// vector at a time, so a huge range costs only what is visited.
bool visit_param_values(const Parametric& params, int64_t limit,
                        const std::function<bool(const std::vector<int64_t>&)>& visit);
/// Every admissible value vector, or nullopt when there are more than `limit` (counted before
/// anything is built, so a huge range costs nothing).
std::optional<std::vector<std::vector<int64_t>>> all_param_values(const Parametric& params, int64_t limit);

}  // namespace lp
