#pragma once
// The compositions the algebra's operations claim (algebra::CompositionClaim), decided by the
// composition portfolio that `prove compose` uses (solver/Composition.h): one decision for LP003,
// `layoutproof algebra` and `prove compose`, within the run's solver limits.
#include "analyzer/algebra/Operations.h"
#include "solver/Result.h"

namespace lp {

/// `check` with its claims decided: the first refuted claim makes it illegal (its reason starts
/// with the claim's context, and the witness is the concrete point), an undecided one unknown.
/// An illegal check is returned as it is. The result has no claims.
algebra::Check decide_claims(algebra::Check check, Engine engine = Engine::Auto, const SolverLimits& limits = {});
/// The same on an operation's outcome.
algebra::Outcome decide_claims(algebra::Outcome outcome, Engine engine = Engine::Auto, const SolverLimits& limits = {});

}  // namespace lp
