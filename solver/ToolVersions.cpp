#include "solver/ToolVersions.h"

#include <fmt/format.h>
#include <z3.h>

#include "analyzer/support/Version.h"
#include "hw/ModelVersion.h"

namespace lp {

ToolVersions tool_versions() {
  ToolVersions v;
  v.tool = kToolVersion;
  v.git_revision = git_revision();
  unsigned major = 0, minor = 0, build = 0, revision = 0;
  Z3_get_version(&major, &minor, &build, &revision);
  v.z3 = fmt::format("{}.{}.{}.{}", major, minor, build, revision);
  v.hardware_model = std::string(hw::kModelVersion) + " (";
  for (size_t i = 0; i < hw::kMeasuredDataSets.size(); ++i)
    v.hardware_model += fmt::format("{}{} sha256:{}", i ? ", " : "", hw::kMeasuredDataSets[i].path,
                                    hw::kMeasuredDataSets[i].sha256_prefix);
  v.hardware_model += ")";
  return v;
}

std::string version_text(const ToolVersions& v) {
  return fmt::format("layoutproof {}\ngit revision: {}\nZ3: {}\nhardware model: {}", v.tool, v.git_revision, v.z3,
                     v.hardware_model);
}

}  // namespace lp
