#pragma once
// Whether two lanes of one shared-memory instruction touch a common byte. For an instruction that
// writes shared memory (st.shared, stmatrix, cp.async), two such lanes write one place in one
// instruction, and which thread's write lands last is undefined (CUDA C++ Programming Guide,
// "SIMT Architecture": a non-atomic instruction of a warp that writes one location of global or
// shared memory for several of its threads). Decided for the per-lane address terms of compiled kernels (SymbolicAccess.h) and, by
// `overlapping_lanes`, for the concrete warps of annotated accesses.
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "hw/BankModel.h"
#include "solver/Result.h"
#include "solver/SymbolicAccess.h"

namespace lp {

/// Two active lanes a < b whose `bytes`-wide accesses at `addresses` share a byte, the lowest such
/// pair (by a, then b); nullopt when no two do. Lanes outside `active` take no part, nor do lanes
/// whose address is not a multiple of `bytes`: such an access faults (LP002 reports it), and
/// between aligned lanes sharing a byte is having one address.
std::optional<std::pair<int, int>> overlapping_lanes(const std::vector<int64_t>& addresses, hw::LaneMask active, int bytes);

struct LaneOverlap : Outcome {
  std::optional<SymbolicWitness> witness;  ///< the warp at the refuting values
  std::pair<int, int> lanes{0, 0};         ///< two of its active lanes that share a byte
  /// Refuted at the witness's launch, proven under this condition on the block's extents (where
  /// the access has free extents and no stated launch; find_launch_condition).
  std::optional<LaunchCondition> holds_when;
};

/// Proven: for no values of the access's uniform unknowns do two active, aligned lanes touch a common byte
/// (Z3 returned unsat, or the enumeration visited every assignment); refuted with the warp at some
/// values, re-checked by evaluating the terms (warp_at) and `overlapping_lanes`; unknown with the
/// reason otherwise (a witness at values the model over-approximates, lanes whose activity is not
/// modelled exactly, a limit). Engines: enumeration of every assignment up to
/// `limits.max_enumeration` lane evaluations, Z3, and auto: enumeration where it takes few
/// evaluations, else Z3; F2 does not apply. A refutation of an access with free
/// block extents and no stated launch is searched for the launch condition that proves it.
LaneOverlap decide_lane_overlap(const SymbolicAccess& access, Engine engine, const SolverLimits& limits);

}  // namespace lp
