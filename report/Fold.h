#pragma once
// How findings on compiled kernels are shown: the headline names the kernel, and findings alike
// but for their instruction (a template's instantiations at one source line, the copies of an
// unrolled loop, one line compiled for two architectures) become one finding that lists them
// (findings/Finding.h, Finding::compiled). `check --no-fold` shows every instruction's finding.
// Baselines and the result cache see the findings before folding.
#include <string>

#include "findings/Finding.h"

namespace lp::report {

/// Each compiled finding's headline names its kernel, and, when `fold`, findings that differ only
/// in their compiled instruction are merged into the first of them (same rule, severity, kind,
/// location and message once the instruction's PTX line is left out), in the run's order.
void fold_findings(rules::CheckRun& run, bool fold);

}  // namespace lp::report
