#pragma once
// The versions of everything that decides a run (analyzer/support/BuildInfo.h): here because the
// solver is the first library that sees both Z3 and the hardware model.
#include "analyzer/support/BuildInfo.h"

namespace lp {

/// The running process's versions: this build's version and git revision, the Z3 it runs with
/// (Z3_get_version: the shared library actually loaded, not the headers built against) and the
/// hardware model (hw/ModelVersion.h).
ToolVersions tool_versions();

/// `layoutproof --version`: one "name: version" line each, the tool's own first.
std::string version_text(const ToolVersions& versions);

}  // namespace lp
