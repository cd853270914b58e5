#pragma once
// What produced a result beside the tool's version (Version.h): the source revision it was built
// from and the versions of the solver and hardware model that decided it. `layoutproof --version`
// prints them; SARIF's tool.driver carries them.
#include <string>

namespace lp {

/// `git describe --always --dirty --abbrev=12` of the source tree when the binary was built
/// (cmake/GitRevision.cmake, re-run on every build); "unknown" when built outside a git checkout.
const char* git_revision();

struct ToolVersions {
  std::string tool;            ///< kToolVersion, CMakeLists.txt's project(VERSION)
  std::string git_revision;    ///< git_revision()
  std::string z3;              ///< Z3_get_version of the libz3 the process runs with, "4.8.12.0"
  std::string hardware_model;  ///< hw::kModelVersion and the digests of its measured data sets
};

}  // namespace lp
