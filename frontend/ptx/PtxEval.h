#pragma once
// Per-lane symbolic evaluation of a PTX module: every kernel's shared-memory instructions with the
// byte address each lane of a warp gives them and whether the lane executes them, as bit-vector
// terms (frontend/term/Term.h) over the lane index and warp-uniform unknowns.
//
// What is modelled (docs/ptx.md): the integer instructions compilers emit for addresses, special
// registers (the block's threads split into warps of 32 lanes), predication and divergent branches
// (a lane that does not execute an instruction is inactive for it), calls (inlined), loops
// (induction variables as entry + n*step with the loop's iteration count n, wrap-around counters as
// finite sets, other values as entry + V*2^k), shfl.sync, and shared memory symbols (static, with
// their size, and dynamic). Everything else becomes an opaque value with a reason; an access whose
// address or activity depends on one is reported unknown, never proven.
#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "frontend/ptx/PtxModule.h"
#include "frontend/term/Term.h"
#include "hw/Arch.h"
#include "hw/SmemInstr.h"

namespace lp::ptx {

enum class SiteKind {
  PerLane,     ///< ld/st.shared (all widths), generic accesses that point into shared memory
  MatrixRows,  ///< ldmatrix / stmatrix
  AsyncCopy,   ///< cp.async's shared-memory write
  Atomic,      ///< atom/red on shared memory
  NotPerLane,  ///< descriptor traffic (cp.async.bulk, wgmma, tcgen05, mbarrier, wmma): no per-lane address
};

/// Where an instruction came from: the PTX instruction and the call sites it was inlined through.
struct SiteOrigin {
  size_t pos = 0;                        ///< byte offset of the instruction in the PTX text
  std::optional<size_t> debug_loc;       ///< Module::locs index
  std::vector<size_t> call_positions;    ///< PTX offsets of the calls, outermost first
  std::vector<std::optional<size_t>> call_debug_locs;
};

/// A fact about a kernel parameter: its value (signed, at the width the kernel reads it) stands in
/// `relation` to `value`.
struct ParamFact {
  enum class Relation { Eq, Ne, Lt, Le, Gt, Ge, MultipleOf };
  std::string param;  ///< the PTX parameter's name, e.g. `_Z9transposePfPKfii_param_2`
  Relation relation = Relation::Eq;
  int64_t value = 0;
};

/// One way a kernel is launched. Any part may be unknown (nullopt, or no parameter facts); what is
/// stated narrows the launch domain, it never widens it past the hardware's limits.
struct KernelLaunch {
  hw::BlockExtents block;  ///< the extents this launch gives its block (any of them may be unknown)
  std::optional<std::array<int64_t, 3>> grid;
  std::optional<int64_t> dynamic_smem;  ///< bytes of dynamic shared memory
  std::vector<ParamFact> params;
};

/// The block extents a kernel's accesses depend on that no directive or stated launch fixes:
/// a verdict that holds only for some of their values depends on the launch.
struct LaunchVars {
  /// %ntid.x/y/z when free: no directive fixes the extent and no stated launch gives it.
  std::array<std::optional<term::VarId>, 3> ntid;
  std::optional<term::VarId> warp;  ///< the warp's index in the block
  bool one_dimensional = false;  ///< the kernel reads no %tid.y/z, %ntid.y/z: launched as a 1-D block
};

struct Site {
  SiteKind kind = SiteKind::PerLane;
  std::string opcode;        ///< as written, e.g. "ld.shared.v4.u32"
  const hw::SmemInstr* instr = nullptr;  ///< the hw catalog's instruction (hw/SmemInstr.h); null when it has none
  int bytes = 0;             ///< bytes at each address (a lane's access, or a matrix row)
  term::TermId address = 0;  ///< 32-bit shared-window address of each lane
  term::TermId active = 0;   ///< width 1: whether the lane executes the instruction
  bool active_exact = true;  ///< false inside a divergent loop (activity over-approximated)
  std::optional<std::string> unknown;  ///< why the access cannot be modelled at all
  /// Why the bank cost alone is not modelled (a zero-filling cp.async): the address and activity
  /// are, so alignment and bounds are still decided.
  std::optional<std::string> cost_unknown;
  /// `unknown` because the address depends on data the kernel loads, and on nothing else the
  /// model lacks (term::VarInfo::loaded_data).
  bool unknown_is_data = false;
  std::string note;          ///< extra information (cp.async's source size, ...)
  /// The values a st.shared writes at each lane, one term per element (of a vector store):
  /// lanes that write one address write the same bytes where every one is lane-free (LP016).
  /// Empty for loads and for writes whose data is not a register operand (cp.async, stmatrix).
  std::vector<term::TermId> stored;
  std::optional<std::string> symbol;   ///< the shared symbol addressed, when exactly one
  std::optional<int64_t> symbol_bytes; ///< its size; nullopt for dynamic shared memory
  std::optional<term::VarId> symbol_base;
  /// Bytes from the symbol's base (or from 0 without one) every access must stay inside: the
  /// symbol's size, the dynamic shared memory of the launch, or the architecture's shared memory.
  term::TermId extent = 0;
  SiteOrigin origin;
};

/// Something about a kernel that makes part of it unanalysed (a recursive call, irreducible
/// control flow, the evaluation budget): reported as unknown at `origin`.
struct Issue {
  SiteOrigin origin;
  std::string message;
};

struct KernelResult {
  std::string name;
  size_t pos = 0;
  std::vector<Site> sites;
  std::vector<Issue> issues;
  LaunchVars launch;
};

struct EvalOptions {
  const hw::Arch* arch = &hw::default_arch();  ///< shared memory per block and the launch limits
  /// Stated launches by PTX kernel name: the kernel is launched in one of these ways. A kernel
  /// not listed may be launched in any way the hardware and its directives allow.
  std::map<std::string, std::vector<KernelLaunch>> launches;
  /// When set, only these functions (PTX names) are evaluated.
  std::optional<std::set<std::string>> only;
  /// Shared variables at the offsets the cubin gives them (SharedPlacement.h), by kernel (PTX name)
  /// and variable; a variable not listed may lie at any offset its `.align` allows.
  std::map<std::string, std::map<std::string, uint64_t>> placement;
  size_t max_steps = size_t{8} << 20;    ///< instructions evaluated per kernel (loops twice, calls inlined)
  int max_call_depth = 16;
  int max_probe_depth = 6;               ///< loops nested deeper are summarised without a probe pass
};

struct Analysis {
  term::TermPool pool;
  std::vector<KernelResult> kernels;
};

/// Evaluates every kernel (.entry) of `module`, and every .func no kernel calls (its parameters
/// then opaque per lane).
void analyze(const Module& module, const EvalOptions& options, Analysis& out);

}  // namespace lp::ptx
