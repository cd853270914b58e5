#include "replay/Process.h"

#include "analyzer/support/Process.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <vector>

namespace lp::replay {

namespace {

// Directories matching `parent/prefix*`, newest version first (by name, numerically aware enough
// for cuda-12.8 < cuda-13.0 and 2025.3.1 < 2025.10.0 when the parts have equal widths).
std::vector<std::string> versioned_dirs(const std::string& parent, const std::string& prefix) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(parent, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) == 0) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() > b.size() : a > b;
  });
  return out;
}

bool executable(const std::string& path) {
  std::error_code ec;
  return !path.empty() && access(path.c_str(), X_OK) == 0 && !std::filesystem::is_directory(path, ec);
}

// Where python3 installs packages: its `purelib` and the user's site (`pip install --user`), asked
// once; none without python3.
std::vector<std::string> python_packages() {
  static const std::vector<std::string> dirs = [] {
    std::vector<std::string> out;
    if (find_on_path("python3").empty()) return out;
    ProcessLimits limits;
    limits.timeout_s = 10;
    limits.max_output = 4096;
    const ProcessResult r = run_process(
        {"python3", "-c", "import site, sysconfig; print(sysconfig.get_paths()['purelib']); print(site.getusersitepackages())"}, limits);
    if (r.exit_code != 0) return out;
    std::istringstream lines(r.output);
    for (std::string line; std::getline(lines, line);)
      if (!line.empty()) out.push_back(line);
    return out;
  }();
  return dirs;
}

}  // namespace

std::string find_tool(const std::string& program) {
  std::string var = "LP_REPLAY_";
  for (char c : program) var += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (const char* v = std::getenv(var.c_str()); v && *v) return executable(v) ? std::string(v) : std::string();
  if (std::string p = find_on_path(program); !p.empty()) return p;
  std::vector<std::string> dirs;
  for (const char* env : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* v = std::getenv(env); v && *v) dirs.push_back(std::string(v) + "/bin");
  dirs.push_back("/usr/local/cuda/bin");
  for (const std::string& d : versioned_dirs("/usr/local", "cuda-")) dirs.push_back(d + "/bin");
  if (program == "ncu") {
    for (const std::string& d : versioned_dirs("/opt/nvidia/nsight-compute", "")) dirs.push_back(d);
    for (const std::string& cuda : versioned_dirs("/usr/local", "cuda"))
      for (const std::string& d : versioned_dirs(cuda, "nsight-compute")) dirs.push_back(d);
  }
  if (program == "nvidia-smi") {
    dirs.push_back("/usr/local/nvidia/bin");
    dirs.push_back("/usr/bin");
  }
  for (const std::string& d : dirs)
    if (executable(d + "/" + program)) return d + "/" + program;
  if (program == "nvdisasm" || program == "cuobjdump") {  // NVIDIA's wheels: nvidia-cuda-nvdisasm, ...
    for (const std::string& packages : python_packages())
      for (const std::string& cuda : versioned_dirs(packages + "/nvidia", "cu"))
        if (executable(cuda + "/bin/" + program)) return cuda + "/bin/" + program;
  }
  return {};
}

}  // namespace lp::replay
