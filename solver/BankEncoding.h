#pragma once
// The hardware's bank rules (hw/BankModel.h) as Z3 terms, once: phases, words, banks, broadcast
// and load merging over one warp's address expressions and activity predicates. The layout-access
// encoding (BankConflicts.cpp, which counts wavefronts) and the symbolic-access queries
// (SymbolicZ3.cpp, which ask for a clashing pair) are both built from these functions, and
// tests/solver/test_bank_encoding.cpp checks them against hw::smem_access_cost on random warps.
#include <vector>

#include <z3++.h>

#include "hw/Arch.h"
#include "hw/SmemInstr.h"

namespace lp::bank_encoding {

/// One warp's access as terms. Invariant: hw::kWarpLanes entries each; the addresses are
/// bit-vectors of one width (byte offsets in shared memory), the activities Booleans; a lane the
/// instruction takes no address from (hw::address_lane_count) is inactive. Constant activities are
/// folded while the terms are built (an inactive lane adds nothing).
struct WarpTerms {
  std::vector<z3::expr> address;
  std::vector<z3::expr> active;
};

/// Accesses of `instr` at byte addresses ai and aj need one bank twice in a phase: some word of
/// one and some word of the other share a bank, as different words where the instruction
/// broadcasts, as any words where each access counts (cp.async). arch.banks is a power of two.
z3::expr words_clash(const hw::Arch& arch, const hw::SmemInstr& instr, const z3::expr& ai, const z3::expr& aj);

/// hw::loads_merge: a mergeable load on an architecture that merges, where for one partner xor
/// every active lane whose partner is active reads the partner's address. False otherwise.
z3::expr loads_merge(const hw::Arch& arch, const hw::SmemInstr& instr, const WarpTerms& warp);

/// Some phase of the merged or the unmerged split has two active lanes whose accesses clash:
/// the instruction costs more wavefronts than its ideal under that split.
z3::expr some_phase_conflicts(const hw::Arch& arch, const hw::SmemInstr& instr, const WarpTerms& warp, bool merged);

/// The instruction's wavefronts and its ideal (hw::AccessCost), as 16-bit counts: per phase the
/// busiest bank's distinct words (every word, without broadcast), at least 1 where a lane is
/// active; the ideal the phases with an active lane (at least 1); the merged split where the
/// load merges. cp.async.ca's L1 read side (given global addresses) is not part of it.
struct Wavefronts {
  z3::expr total, ideal;
};
Wavefronts wavefronts(const hw::Arch& arch, const hw::SmemInstr& instr, const WarpTerms& warp);

}  // namespace lp::bank_encoding
