#pragma once
// An algebra operation's decision as one record, the same for `layoutproof algebra --json` and the
// Python module's `algebra()` (docs/python.md): the keys are the contract both promise their users.
#include <nlohmann/json.hpp>
#include <string>

#include "analyzer/algebra/Operations.h"

namespace lp::api {

/// {"domain", "index", "coordinate" (both null for a value no index reaches), "expected_is",
/// "expected", "actual_is", "actual"}: where a result differs from the function its operation claims.
nlohmann::ordered_json witness_record(const algebra::Witness& w);

/// {"op", "result" (null without one), "legal" (null when undecided), "verdict", "reason",
/// "witness" (null without one), "notes": [{"kind", "message", "witness"}], "engines"}.
nlohmann::ordered_json algebra_record(const std::string& op, const algebra::Outcome& o);

}  // namespace lp::api
