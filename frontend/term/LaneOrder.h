#pragma once
// How a term varies with the lane, read from its shape alone (no solver): the argument that lets
// the engines treat a thread-index threshold (`tid < s`, `i < n`) as selecting one run of
// consecutive lanes, and prove that a strictly increasing address gives each lane its own.
// Sound for every value of the other unknowns: whatever the shape does not show is Unknown.
#include "frontend/term/Term.h"

namespace lp::term {

enum class LaneOrder {
  Constant,       ///< the same at every lane (lane-free)
  NonDecreasing,  ///< lane a < lane b: value(a) <= value(b), unsigned
  Increasing,     ///< lane a < lane b: value(a) < value(b), unsigned
  Unknown,        ///< the shape shows neither
};

/// The order of `t` in the lane at every value of the other unknowns: the lane and lane-free
/// terms combined by +, * and << by a constant (where the bounds, TermPool::max_value, show that
/// no sum, product or shift wraps around), >> and / by lane-free amounts, zero extension, and
/// selections by lane-free conditions.
LaneOrder lane_order(const TermPool& P, TermId t);

/// Whether the lanes where the width-1 `c` holds are one run of consecutive lanes at every value
/// of the other unknowns, by its shape: lane-free (all lanes or none); an unsigned comparison of a
/// term ordered in the lane with a lane-free one, or its negation (a prefix or a suffix of the
/// lanes); a signed one where that term stays below the sign bit; or a conjunction of these (runs
/// intersect in a run). False where the shape does not show it.
bool one_run_by_shape(const TermPool& P, TermId c);

}  // namespace lp::term
