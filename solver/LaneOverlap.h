#pragma once
// Whether two lanes of one shared-memory instruction write one place. For an instruction that
// writes shared memory (st.shared, stmatrix, cp.async), two such lanes write one place in one
// instruction, and which thread's write lands last is undefined (CUDA C++ Programming Guide,
// "SIMT Architecture": a non-atomic instruction of a warp that writes one location of global or
// shared memory for several of its threads). Decided for the per-lane address terms of compiled kernels (SymbolicAccess.h) and, by
// `colliding_lanes`, for the concrete warps of annotated accesses.
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "hw/BankModel.h"
#include "solver/Result.h"
#include "solver/SymbolicAccess.h"

namespace lp {

/// Two active lanes a < b at one address, the lowest such pair (by a, then b); nullopt when no two
/// are. Lanes outside `active` take no part. Between aligned accesses of one width, sharing a byte
/// is having one address; accesses that overlap otherwise are misaligned, which faults and LP002
/// reports.
std::optional<std::pair<int, int>> colliding_lanes(const std::vector<int64_t>& addresses, hw::LaneMask active);

struct LaneOverlap : Outcome {
  std::optional<SymbolicWitness> witness;  ///< the warp at the refuting values
  std::pair<int, int> lanes{0, 0};         ///< two of its active lanes that share a byte
  /// Refuted at the witness's launch, proven under this condition on the block's extents (where
  /// the access has free extents and no stated launch; find_launch_condition).
  std::optional<LaunchCondition> holds_when;
};

/// What decides whether two lanes of an access collide: the address's terms that depend on the lane
/// (as coefficient x term pairs of its sum), the activity, the address lanes and the domains. Two
/// accesses of one kernel with equal keys have the same verdict, because their addresses differ by
/// a lane-free amount (an unrolled loop's instances, the stages of a pipeline, two buffers written
/// at one index): deciding one decides both.
struct LaneOverlapKey {
  std::vector<std::pair<term::TermId, uint64_t>> lane_terms;
  term::TermId active = 0;
  bool active_exact = true;
  int address_lanes = 0;
  std::map<term::VarId, term::VarDomain> narrowed;
  bool operator<(const LaneOverlapKey& o) const;
};
LaneOverlapKey lane_overlap_key(const SymbolicAccess& access);

/// Proven: for no values of the access's uniform unknowns are two active lanes at one address
/// (Z3 returned unsat, or the enumeration visited every assignment); refuted with the warp at some
/// values, re-checked by evaluating the terms (warp_at) and `colliding_lanes`; unknown with the
/// reason otherwise (a witness at values the model over-approximates, lanes whose activity is not
/// modelled exactly, a limit). Engines: enumeration of every assignment up to
/// `limits.max_enumeration` lane evaluations, Z3, and auto: enumeration where it takes few
/// evaluations, else Z3; F2 does not apply. A refutation of an access with free
/// block extents and no stated launch is searched for the launch condition that proves it.
LaneOverlap decide_lane_overlap(const SymbolicAccess& access, Engine engine, const SolverLimits& limits);

/// Whether every lane of a write writes the same values (`stored`: one term per element of the
/// store, as ptx::Site::stored): then lanes that share an address write the same bytes, and which
/// one lands last does not matter. Proven where Z3 finds no two lanes and uniform values at which
/// an element differs; unknown otherwise (lane-dependent or unknown data: the collision question
/// decides those writes).
Outcome decide_one_value(const SymbolicAccess& access, const std::vector<term::TermId>& stored, const SolverLimits& limits);

/// The verdict of `decided` (an access with the same lane_overlap_key) for `access`: the same
/// proof or unknown; a refutation re-checked on `access`'s own warp at the witness's values (the
/// unknowns `access` depends on), unknown when that warp does not show it.
LaneOverlap lane_overlap_of_twin(const SymbolicAccess& access, const LaneOverlap& decided);

}  // namespace lp
