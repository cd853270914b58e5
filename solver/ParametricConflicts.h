#pragma once
// Bank-conflict freedom of an access whose buffer or lane map uses parameters, for every
// admissible value: decided one instance at a time, each instance by prove_conflict_free.
//
// A parameter that stands only in the buffer layout's strides, once in each term (a pitch P,
// 2*D+8, P/2), is decided exactly without visiting every value. Let j index its admissible values
// (P = first + multiple * j). Every element offset the access touches is then affine in j before
// the buffer's swizzles: o(j) = f + j*g. With PI the largest of the bank period, the element
// swizzles' period in bytes and the byte swizzle's period (powers of two), and G the gcd of the
// byte steps bytes*g, two values j and j' congruent modulo C = PI / gcd(PI, G) give every address
// the same residue modulo PI, and every two addresses whose offsets move together (equal g) the
// same difference. Two addresses whose offsets move apart (unequal g) are, outside a window of
// j around their crossing, farther apart than PI plus every swizzle's displacement: no shared
// word, no equal address. An address is, outside windows around 0 and the end of shared memory,
// on one side of each. The hardware model (hw::smem_access_cost) reads an issue's addresses only
// through residues modulo the bank period, shared words, equal addresses, alignment and bounds, so
// between windows every j of one residue class has the same verdict and cost. Deciding every j in
// a window, and in each stretch between windows the smallest j of each class, decides every value;
// the first value that fails is always among those decided (the smallest of its class in its
// stretch, or in a window), so counterexamples stay minimal.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/ir/Parametric.h"
#include "solver/BankConflicts.h"

namespace lp {

/// One parameter value vector of an access whose buffer or lane map uses parameters: the access
/// it gives and its decision, or why that instance cannot be modelled.
struct ConflictInstance {
  std::vector<int64_t> values;  ///< one per parameter, in the order given
  std::optional<SmemAccess> access;
  ConflictResult result;
  std::string invalid;  ///< set when building the instance's access failed (AccessError)
};

/// At most this many instances are decided (value vectors, or representatives of residue classes;
/// counted before any is built).
inline constexpr int64_t kMostConflictInstances = 4096;

/// An access over parameters.
struct ParametricConflictQuery {
  std::vector<ParamSpec> specs;  ///< the parameters the access uses
  /// The access at one value per spec; throws AccessError for an instance that cannot be modelled.
  std::function<SmemAccess(const std::vector<int64_t>&)> make;
  /// Per spec: it stands only in the buffer layout's strides, once in each term, and not in the
  /// lane map (affine_stride_params), so it may be decided by residue classes.
  std::vector<bool> affine_in_strides;
};

/// Per parameter in `which` (indices into the specs both Parametrics share): whether `smem` uses it
/// only in strides, at most once in each term's product, and `lanes` does not use it.
std::vector<bool> affine_stride_params(const Parametric& smem, const Parametric& lanes, const std::vector<size_t>& which);

struct ConflictsOverValues {
  /// The instances decided, values ascending (the first parameter most significant). Deciding
  /// stops after an instance that is invalid or unknown, so every instance before the last was
  /// decided.
  std::vector<ConflictInstance> instances;
  int64_t value_vectors = 0;  ///< the admissible value vectors the instances decide
  /// Empty when every value vector is an instance; else how the others follow from the instances
  /// ("P by residue classes modulo 8: ..."), for the report.
  std::string reduction;
};

/// Decides the access for every admissible value (see the file comment). Nullopt when more than
/// kMostConflictInstances instances would be needed.
std::optional<ConflictsOverValues> prove_conflict_free_over_values(const ParametricConflictQuery& query, Engine engine,
                                                                  const SolverLimits& limits = {});

}  // namespace lp
