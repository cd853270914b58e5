#pragma once
// The parametric obligations of `layoutproof bench` (its "parametric" section) and of their test
// (tests/bench/test_parametric_set.cpp): layouts and shared-memory accesses over symbolic
// parameters (row- and column-major tiles, padded pitches, blocked tilings, swizzles over
// parametric row counts, stage offsets, bank conflicts over pitches and issue counts), each with
// its truth over the whole parameter range, argued next to it in ParametricSet.cpp, and a small
// sub-range that the test decides by brute force.
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/ir/Parametric.h"
#include "solver/QueryLog.h"
#include "solver/Result.h"

namespace lp::bench {

enum class ParametricProperty { Injective, Covers, ConflictFree };

struct ParametricCase {
  std::string family;  ///< what kind of layout: "row-major", "padded pitch", ...
  std::string name;    ///< unique, short
  ParametricProperty property = ParametricProperty::Injective;
  std::string layout;  ///< CuTe or TIRx text over `params` (the buffer's layout for an access)
  std::vector<ParamSpec> params;
  /// The same parameters over ranges small enough to decide every value by brute force; the
  /// smallest failing values of a case that does not hold lie in them.
  std::vector<ParamSpec> small;
  bool holds = true;   ///< the truth over `params`
  int64_t covers_to = 0;  ///< Covers: the target is memory offsets 0..covers_to
  // ConflictFree: the element type, lane map, instruction and base alignment (bytes).
  std::string dtype, lanes, instr;
  int64_t base_align = 128;
};

/// Every case, in a fixed order.
const std::vector<ParametricCase>& parametric_cases();

/// One decision of a case over `params` (the case's ranges or its small ones): the verdict, and
/// for a refutation the parameter values it names (one per spec). Detail: the access's worst
/// wavefronts, for the engine comparison.
struct ParametricDecision {
  Outcome outcome;
  std::vector<int64_t> failing_values;
};
ParametricDecision decide_case(const ParametricCase& c, const std::vector<ParamSpec>& params, Engine engine,
                               const SolverLimits& limits = {});

const char* parametric_property_name(ParametricProperty p);

}  // namespace lp::bench
