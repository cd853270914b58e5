#pragma once
// The solver's input for one shared-memory instruction the PTX front end recovered: its per-lane
// address and activity terms, its hardware instruction, and the kernel's launch domain (the free
// block extents, whether the launches are stated). What LP002 decides, and what tests decide the
// same way.
#include "analyzer/ptx/KernelFacts.h"
#include "rules/Rule.h"
#include "solver/SymbolicAccess.h"

namespace lp::rules {

/// Access `a` of kernel `k` of `m` as solver/SymbolicAccess decides it. Its terms live in `m`'s
/// term pool: the result is valid while `m` is.
SymbolicAccess symbolic_access(const ptx::CompiledModule& m, const ptx::KernelFacts& k, const ptx::AccessFact& a);

/// Reports `f` about access `a` of kernel `k`: at the access's placement, naming the instruction
/// (Finding::compiled).
void report_compiled(FindingSink& sink, const ptx::CompiledModule& m, const ptx::KernelFacts& k, const ptx::AccessFact& a,
                     Finding f);

}  // namespace lp::rules
