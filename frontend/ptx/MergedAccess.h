#pragma once
// Shared-memory accesses ptxas merged. nvcc's PTX may load four consecutive floats with four
// `ld.shared.f32 [%r+0]` ... `[%r+12]`, and ptxas may run them as one `LDS.128 [R]`: the hardware
// then pays the merged instruction's wavefronts, not four times a scalar load's. The cubin's
// disassembly (`nvdisasm -gp`) names the PTX line each SASS instruction comes from; a shared-memory
// load or store wider than the PTX access at its line is a merge, and its members are the accesses
// of that direction whose lines have no SASS load or store of their own and that tile the wider
// access through the same base register.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "frontend/ptx/PtxEval.h"
#include "frontend/ptx/PtxModule.h"
#include "frontend/sass/SassListing.h"

namespace lp::ptx {

struct MergedAccess {
  std::string sass;           ///< the SASS instruction as nvdisasm names it: "LDS.128"
  int bytes = 0;              ///< its bytes per lane
  bool store = false;         ///< an STS (else an LDS)
  std::vector<size_t> sites;  ///< the KernelResult::sites it runs, by address: the lowest first
};

/// The merges kernel `r`'s SASS `code` shows. `module_line` maps a SASS instruction's PTX line to
/// the module's (none for a line the module lacks, such as a probe's own). A group is reported only
/// when it is certain: its members are shared `ld`/`st` of the kernel's own body (not reached
/// through a PTX call), their addresses `[REG+OFFSET]` with one register that no instruction between them
/// writes, no branch or label between them, and the same activity.
std::vector<MergedAccess> merged_accesses(const Module& m, const KernelResult& r, const sass::Function& code,
                                          const std::function<std::optional<int>(int)>& module_line);

}  // namespace lp::ptx
