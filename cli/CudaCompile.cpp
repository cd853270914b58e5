#include "cli/CudaCompile.h"

#include <cstdlib>
#include <filesystem>
#include <regex>

#include "analyzer/support/Process.h"
#include "replay/Process.h"
#include "solver/Result.h"

namespace lp::cli {

namespace fs = std::filesystem;

CompiledPtx compile_cuda_to_ptx(const std::string& cu, const std::string& arch, const std::vector<std::string>& extra) {
  if (!std::regex_match(arch, std::regex("sm_[0-9]+[af]?")))
    throw CudaCompileError("--arch must name an architecture like sm_80 or sm_90a, not '" + arch + "'", "");
  std::error_code ec;
  if (!fs::is_regular_file(cu, ec)) throw CudaCompileError(cu + ": no such file", "");
  const std::string nvcc = replay::find_tool("nvcc");
  if (nvcc.empty()) throw CudaCompileError("nvcc not found (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)", "");
  std::string templ = (fs::temp_directory_path() / "layoutproof-ptx-XXXXXX").string();
  if (!mkdtemp(templ.data())) throw CudaCompileError("cannot create a temporary directory for nvcc's output", "");
  CompiledPtx out;
  out.dir = templ;
  out.ptx_path = (fs::path(templ) / (fs::path(cu).stem().string() + ".ptx")).string();
  std::vector<std::string> argv = {nvcc, "-O3", "-lineinfo", "-arch=" + arch, "--ptx", cu, "-o", out.ptx_path};
  argv.insert(argv.end(), extra.begin(), extra.end());
  Stopwatch clock;
  const ProcessResult r = run_process(argv);
  out.nvcc_ms = clock.elapsed_ms();
  if (r.exit_code != 0) {
    fs::remove_all(out.dir, ec);
    throw CudaCompileError("nvcc failed (exit " + std::to_string(r.exit_code) + ")", r.output);
  }
  return out;
}

}  // namespace lp::cli
