#pragma once
// The proof obligations of one shared-memory instruction recovered from PTX, whose per-lane
// addresses are bit-vector terms over the lane index and warp-uniform unknowns
// (frontend/term/Term.h):
//
//   conflict-free  for every value of the uniform unknowns, the warp's access costs the ideal
//                  number of wavefronts in the bank model of hw/BankModel.h (phases, broadcast,
//                  load merging, cp.async's per-access counting), counting only active lanes;
//   aligned        every active lane's address is a multiple of the access width;
//   in bounds      every active lane's bytes lie inside the shared symbol it addresses (its size,
//                  or the architecture's shared memory for dynamic shared memory).
//
// Each is proven (Z3 returned unsat on the bit-vector encoding, or an enumeration covered every
// value), refuted with a witness (the uniform values, all 32 lane addresses, re-checked by
// evaluating the terms and hw::smem_access_cost), or unknown with the reason.
#include <array>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frontend/term/Term.h"
#include "hw/Arch.h"
#include "hw/BankModel.h"
#include "hw/SmemInstr.h"
#include "solver/Result.h"

namespace lp {

struct SymbolicAccess {
  const term::TermPool* pool = nullptr;
  term::TermId address = 0;  ///< 32-bit shared-window byte address of each lane
  term::TermId active = 0;   ///< width 1: the lane executes the instruction
  /// False when `active` over-approximates the executing lanes (a divergent loop): proofs still
  /// hold (they cover more lanes), refutations become unknown.
  bool active_exact = true;
  const hw::SmemInstr* instr = nullptr;  ///< null: no bank model (atomics); only alignment and bounds
  int bytes = 4;                         ///< bytes at each address
  int address_lanes = hw::kWarpLanes;    ///< lanes whose addresses the instruction reads
  const hw::Arch* arch = nullptr;
  std::optional<term::VarId> base;  ///< the shared symbol's base, when the address names exactly one
  term::TermId extent = 0;          ///< 32-bit, lane-free: bytes from `base` (or from 0) the accesses must stay inside
  /// Domains narrower than the pool's for some uniform unknowns (the candidate launch conditions of
  /// the launch search): each replaces the variable's range and alignment.
  std::map<term::VarId, term::VarDomain> narrowed;
  /// The block extents %ntid.x/y/z that no directive fixes and no stated launch gives
  /// (ptx::LaunchVars): a refutation is searched for a launch condition on them under which it is
  /// proven (inside the stated launches, which leave them open), and its witness shows the warp as
  /// full as the launch allows.
  std::array<std::optional<term::VarId>, 3> free_extents;
};

/// A condition on the block's extents under which a property that some launches refute holds.
struct LaunchCondition {
  std::map<term::VarId, term::VarDomain> narrowed;  ///< each free extent's domain under the condition
  std::string text;                                  ///< e.g. "ntid.x is a multiple of 32"
};

/// One assignment of the uniform unknowns and what the warp does under it.
struct SymbolicWitness {
  std::vector<std::pair<std::string, int64_t>> uniforms;  ///< name = value, for every unknown the access depends on
  std::vector<int64_t> addresses;  ///< lanes 0..31 (inactive lanes: their address, unused)
  hw::LaneMask active = hw::kAllLanes;
  std::optional<int> lane;                       ///< alignment/bounds: the offending lane
  std::optional<std::pair<int, int>> bank_lanes;  ///< conflict: two lanes of the busiest phase on one bank
  int bank = 0;
  std::vector<int64_t> words;
  int64_t wavefronts = 0, ideal = 0;
  bool merged = false;
  int64_t extent = 0;  ///< the bytes the accesses must stay inside, at these values
};

struct SymbolicProperty : Outcome {
  std::optional<SymbolicWitness> witness;
  /// Refuted at the witness's launch, but proven under this condition on the block's extents: the
  /// verdict depends on the launch.
  std::optional<LaunchCondition> holds_when;
};

struct SymbolicResult {
  SymbolicProperty conflicts, alignment, bounds;
};

/// The value the Z3 encoding the decision uses gives `t` at lane `lane` (0..31) with each uniform
/// variable at its value in `values` (0 where absent, which must lie in its range): what the tests
/// of the encoding compare with exact evaluation (term::Evaluator). nullopt when Z3 does not reduce it to a numeral.
std::optional<uint64_t> z3_encoded_value(const term::TermPool& pool, term::TermId t, int lane,
                                         const std::map<term::VarId, uint64_t>& values);

/// The warp under one assignment of the uniform unknowns the access depends on (by their names):
/// the values in `values`, each other unknown at the lowest value of its domain; `uniforms` lists
/// them all, and `wavefronts`/`ideal` are the hardware model's for the active lanes (0 without a
/// bank model). What `layoutproof explain` shows of a compiled access. Throws std::invalid_argument
/// for a name that is not one of the access's unknowns, a value outside its unknown's range or
/// alignment, or an access that depends on values no assignment fixes (loaded data, opaque values).
SymbolicWitness warp_at(const SymbolicAccess& access, const std::map<std::string, int64_t>& values);

/// The uniform unknowns the access depends on (its address, activity, extent and base), in VarId
/// order: the names warp_at accepts.
std::vector<term::VarId> access_unknowns(const SymbolicAccess& access);

/// The values unknown `v` takes for the access: its narrowed domain where the access narrows it,
/// else its own; and whether `x` is one of them (at most the variable's width, its low align_log2
/// bits zero): the values warp_at accepts.
term::VarDomain var_domain(const SymbolicAccess& access, term::VarId v);
bool in_var_domain(const SymbolicAccess& access, term::VarId v, uint64_t x);

/// The weakest condition on the access's free block extents, of the forms "ntid.x is a multiple of
/// 2^k" and "each extent at most N" (and both), under which `proven` (a decision of the access with
/// those extents narrowed) holds, keeping only conditions that admit a launch of a whole warp;
/// nullopt when no form does.
std::optional<LaunchCondition> find_launch_condition(const SymbolicAccess& access,
                                                    const std::function<bool(const SymbolicAccess&)>& proven);

/// Decides the three properties. With free extents, a property refuted for some block shapes is
/// searched for the weakest condition of the forms "ntid.x is a multiple of 2^k" and "each extent
/// at most N" (and both) under which it is proven (docs/ptx.md, verdicts that depend on the launch).
SymbolicResult decide_symbolic_access(const SymbolicAccess& access, Engine engine, const SolverLimits& limits);

}  // namespace lp
