#pragma once
// The constants a function's SASS computes before anything varies: a small evaluator over the
// straight-line code at the function's entry (up to its first branch, call, exit or branch
// target), for the instructions that move, add, shift, multiply and combine 32-bit values
// (MOV, IADD3, VIADD, LEA, IMAD, SHF, LOP3, CS2R, R2UR and their uniform forms, and HFMA2 of
// zeros plus a pair of half immediates, which ptxas uses to move a 32-bit constant on sm_80). Any other
// instruction makes the registers it writes unknown, so a value is reported only when every
// instruction it flows through is one of these.
#include <cstdint>
#include <vector>

#include "frontend/sass/SassListing.h"

namespace lp::sass {

/// A store to global memory (`STG`) at a constant address of a constant 32-bit value.
struct ConstantStore {
  uint64_t address = 0;
  uint32_t value = 0;
};

/// The constant stores of `f`'s straight-line entry, in program order, with the special register
/// SR_CgaCtaId (the CTA's rank in its cluster; sm_90 puts it above bit 24 of shared-window
/// addresses) read as `cta_rank`. Other special registers are unknown.
std::vector<ConstantStore> entry_constant_stores(const Function& f, uint32_t cta_rank);

}  // namespace lp::sass
