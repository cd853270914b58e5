#pragma once
// `layoutproof check` on compiled kernels: a `.ptx` file read by the PTX front end
// (analyzer/ptx), every shared-memory instruction of every kernel decided by
// solver/SymbolicAccess, and the results reported as findings of LP002 (bank conflicts,
// alignment, bounds, unknowns), LP010 (descriptor traffic, not per-lane) and LP011 (PTX that
// cannot be read). docs/ptx.md
#include <set>
#include <string>
#include <vector>

#include "rules/Finding.h"
#include "rules/Config.h"

namespace lp::rules {

/// Whether `path` names a PTX file (by its extension).
bool is_ptx_path(const std::string& path);

/// Source files a finding may quote: a `.file` of the PTX is read only when it lies under the
/// working directory, under the PTX file's directory, or is one of `extra` (e.g. `--cuda`'s input).
struct PtxSourcePolicy {
  std::set<std::string> extra;
};

/// Checks one PTX file's text. Findings and decided obligations are appended.
void check_ptx(const std::string& path, std::string text, const Config& config, const PtxSourcePolicy& sources,
               std::vector<rules::Finding>& findings, std::vector<rules::Obligation>& obligations);

/// True when a finding says a PTX input could not be read (LP011, or a PTX file too large to
/// read): `check` exits 2 for it.
bool is_input_error(const rules::Finding& f);

}  // namespace lp::rules
