#pragma once
// The compositions the algebra's operations claim (algebra::CompositionClaim), decided by the
// composition portfolio that `prove compose` uses (solver/Composition.h): one decision for LP003,
// `layoutproof algebra` and `prove compose`, within the run's solver limits.
#include <string>
#include <vector>

#include "analyzer/algebra/Operations.h"
#include "solver/Result.h"

namespace lp {

/// `check` with its claims decided: the first refuted claim makes it illegal (its reason starts
/// with the claim's context, and the witness is the concrete point), an undecided one unknown.
/// An illegal check is returned as it is. The result has no claims.
algebra::Check decide_claims(algebra::Check check, Engine engine = Engine::Auto, const SolverLimits& limits = {});
/// The same on an operation's outcome.
algebra::Outcome decide_claims(algebra::Outcome outcome, Engine engine = Engine::Auto, const SolverLimits& limits = {});

/// CuTe's `op` on text operands (lp::evaluate_algebra_operation) with its claims decided: the one
/// path of `layoutproof algebra` and the Python module. Arithmetic that leaves 64-bit integers is an
/// OperationError naming the operation.
algebra::Outcome decide_algebra_operation(const std::string& op, const std::vector<std::string>& operands,
                                          Engine engine, const SolverLimits& limits);

}  // namespace lp
