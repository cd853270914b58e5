#pragma once
// The solver's input for one shared-memory instruction the PTX front end recovered: its per-lane
// address and activity terms, its hardware instruction, and the kernel's launch domain (the free
// block extents, whether the launches are stated). What LP002 decides, and what tests decide the
// same way.
#include "frontend/ptx/KernelFacts.h"
#include "rules/Rule.h"
#include <map>
#include <string>
#include <vector>

#include "solver/SymbolicAccess.h"

namespace lp::rules {

/// Access `a` of kernel `k` of `m` as solver/SymbolicAccess decides it. Its terms live in `m`'s
/// term pool: the result is valid while `m` is.
SymbolicAccess symbolic_access(const ptx::CompiledModule& m, const ptx::KernelFacts& k, const ptx::AccessFact& a);

/// Whether `v` is one of the kernel's block extents that no directive or stated launch fixes.
bool is_free_extent(const ptx::LaunchVars& launch, term::VarId v);

/// One assignment of the unknowns of some instructions of kernel `k` of `m`, and their warps under
/// it: the `given` values; warp 0 of a block as large as the launch allows on x (1 on y and z), so a
/// whole warp where the kernel has one; each shared symbol at its start; every other unknown (a
/// parameter, a loop's value) at its lowest value, the largest positive value of its width or its
/// highest, the first combination (at most `max_assignments` are tried) under which every
/// instruction runs with the `wanted` lanes, else the one under which most do; where no lane runs
/// under any of them, every unknown at its lowest value if some lane runs then (a loop's exit that
/// only a one-thread block reaches at its first value). Every value lies in its unknown's domain
/// and the activity terms carry the launch assumption, so an active warp is a warp of the domain.
struct RepresentativeWarps {
  std::map<std::string, int64_t> values;  ///< by the unknowns' names, each warp_at's input
  std::vector<SymbolicWitness> warps;     ///< one per instruction, in order
};
/// Throws std::invalid_argument as warp_at does (an address that depends on loaded data).
RepresentativeWarps representative_warps(const ptx::CompiledModule& m, const ptx::KernelFacts& k,
                                         const std::vector<SymbolicAccess>& accesses,
                                         const std::map<term::VarId, int64_t>& given, hw::LaneMask wanted,
                                         size_t max_assignments);

/// The notes a finding about a compiled access gives its witness: the uniform values (a parameter by
/// its source name and position, a shared symbol demangled), the active lanes when not all are,
/// and the architecture the module was read for when it was not stated.
void witness_notes(const ptx::CompiledModule& m, const ptx::KernelFacts& k, const SymbolicWitness& w, Finding& f);

/// Marks an unknown `f` as depending on data the kernel loads (Finding::data_dependent), with the
/// note that says how the gate treats such unknowns.
void mark_data_dependent(Finding& f);

/// The note of a finding that depends on the launch: how to state the launch that decides it.
void state_the_launch(Finding& f);

/// Reports `f` about access `a` of kernel `k`: at the access's placement, naming the instruction
/// (Finding::compiled).
void report_compiled(FindingSink& sink, const ptx::CompiledModule& m, const ptx::KernelFacts& k, const ptx::AccessFact& a,
                     Finding f, bool as_merged = false);

}  // namespace lp::rules
