#pragma once
// The CUDA sources of the replays: templates filled with a finding's counterexample.
#include <nlohmann/json.hpp>
#include <string>

#include "replay/Replay.h"

namespace lp::replay {

/// LP002: `cex` holds instruction, arch, lane_addresses, wavefronts. cp.async.cg is timed in a fill
/// kernel (no counter sees its shared writes); everything else is one warp's instruction under ncu.
std::string bank_program(const nlohmann::json& finding);
/// LP009: `cex` holds instruction (cp.async.cg), arch, lane_addresses, sectors: ncu's L2-to-SM
/// sectors of one warp's copy, and the copy's time inside a fill kernel beside it.
std::string async_sector_program(const nlohmann::json& finding);
/// LP001: `cex` holds layout, indices.
std::string injectivity_program(const nlohmann::json& finding);
/// LP004: `cex` holds layout, target, uncovered.
std::string coverage_program(const nlohmann::json& finding);

}  // namespace lp::replay
