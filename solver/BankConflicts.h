#pragma once
// Bank-conflict freedom of a shared-memory access: no phase of any issued instruction, for any
// base the alignment allows, needs more wavefronts than the hardware's ideal; every address is
// aligned and inside the buffer; and each lane's vector covers exactly the consecutive logical
// elements it claims. Also computes the exact worst-case wavefronts of a single instruction.
#include <optional>
#include <string>
#include <vector>

#include "solver/QueryLog.h"
#include "solver/Result.h"
#include "solver/SmemAccess.h"

namespace lp {

struct ConflictWitness {
  int64_t issue = 0, base = 0;  ///< base residue (bytes) the conflict occurs at
  int lane_a = 0, lane_b = 0;
  std::vector<int64_t> coord_a, coord_b;
  int64_t address_a = 0, address_b = 0;
  int bank = 0;
  std::vector<int64_t> words;   ///< distinct words the bank must deliver in that phase
  int64_t wavefronts = 0, ideal = 0;
};

/// A lane whose access does not cover the logical elements it claims, or that is misaligned or
/// outside the buffer.
struct AccessWitness {
  std::optional<int> lane;  ///< absent when the whole instruction is at fault (it leaves shared memory)
  int64_t issue = 0, base = 0;
  std::vector<int64_t> coord;
  std::string what;
};

struct ConflictResult : Outcome {
  int64_t wavefronts = 0;  ///< worst single instruction (over issues and bases), exact when decided
  int64_t ideal = 0;       ///< the ideal of that instruction
  std::optional<ConflictWitness> conflict;
  std::optional<AccessWitness> access;
};

ConflictResult prove_conflict_free(const SmemAccess& access, Engine engine, const SolverLimits& limits = {});

/// prove_conflict_free as a benchmark re-run (solver/QueryLog.h): engines must agree on the
/// verdict and, when decided, on the wavefronts, the ideal and whether an access left memory.
Rerun rerun_conflict_free(const SmemAccess& access, Engine engine, const SolverLimits& limits);

}  // namespace lp
