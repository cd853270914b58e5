#pragma once
// The CUDA sources of the replays: templates filled with a finding's counterexample.
#include <string>

#include "replay/Replay.h"
#include "findings/Counterexample.h"

namespace lp::replay {

/// LP002: one warp's instruction at the lane addresses under ncu; cp.async.cg is timed in a fill
/// kernel instead (no counter sees its shared writes).
std::string bank_program(const FindingSite& site, const rules::BankConflictCex& cex);
/// LP009: ncu's L2-to-SM sectors of one warp's cp.async.cg, and the copy's time inside a fill
/// kernel beside it.
std::string async_sector_program(const FindingSite& site, const rules::AsyncSectorCex& cex);
/// LP001: every write of the layout, counted on the counterexample's place.
std::string injectivity_program(const FindingSite& site, const rules::InjectivityCex& cex);
/// LP004: every point of the target the layout reaches, and the counterexample's point.
std::string coverage_program(const FindingSite& site, const rules::CoverageCex& cex);

}  // namespace lp::replay
