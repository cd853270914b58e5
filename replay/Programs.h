#pragma once
// The CUDA sources of the replays: templates filled with a finding's counterexample.
#include <nlohmann/json.hpp>
#include <string>

#include "replay/Replay.h"

namespace lp::replay {

/// LP002: `cex` holds instruction, arch, lane_addresses, wavefronts.
std::string bank_program(const nlohmann::json& finding);
/// LP001: `cex` holds layout, indices.
std::string injectivity_program(const nlohmann::json& finding);
/// LP004: `cex` holds layout, target, uncovered.
std::string coverage_program(const nlohmann::json& finding);

}  // namespace lp::replay
