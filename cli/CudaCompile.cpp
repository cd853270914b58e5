#include "cli/CudaCompile.h"

#include <cstdlib>
#include <filesystem>
#include <future>
#include <regex>

#include <fmt/format.h>

#include <csignal>

#include "analyzer/support/Governor.h"
#include "analyzer/support/Process.h"
#include "analyzer/support/ReadFile.h"
#include "replay/Process.h"
#include "solver/Result.h"

namespace lp::cli {

namespace fs = std::filesystem;

namespace {

// The preprocessed host code of one translation unit is its source and every header it includes;
// past this it is not read (the launches are then unknown, and the kernels keep every legal launch).
// nvcc may write no file larger (its PTX, the preprocessed host code, its own temporaries).
constexpr uint64_t kMaxPreprocessedBytes = uint64_t{256} << 20;
constexpr uint64_t kMaxNvccFileBytes = kMaxPreprocessedBytes;

// The kernel launches of `cu`'s host code: nvcc's own preprocessing (-E, the host pass, with the
// compile's arguments), read outside system headers and the toolkit's own headers.
void read_host_launches(const std::string& nvcc, const std::string& cu, const std::string& arch,
                        const std::vector<std::string>& extra, const std::string& dir, CompiledPtx& out) {
  const std::string ii = (fs::path(dir) / (fs::path(cu).stem().string() + ".ii")).string();
  std::vector<std::string> argv = {nvcc, "-E", "-arch=" + arch, cu, "-o", ii};
  argv.insert(argv.end(), extra.begin(), extra.end());
  const ProcessResult r = run_process(argv, budget_limits(kMaxNvccFileBytes));
  if (r.exit_code != 0) {
    out.host_note = "nvcc -E failed: the host code's launches are not read";
    return;
  }
  try {
    const std::string text = read_regular_file(ii, kMaxPreprocessedBytes);
    const fs::path toolkit = fs::path(nvcc).parent_path().parent_path();
    out.host_launches = cuda::host_launches(text, {toolkit.string() + "/", fs::weakly_canonical(toolkit).string() + "/"});
  } catch (const std::exception& e) {
    out.host_note = std::string("the host code's launches are not read: ") + e.what();
  }
}

}  // namespace

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
  // The host code's preprocessing runs beside the compile, under the same budget.
  const Budget budget = current_budget();
  auto host = std::async(std::launch::async, [&] {
    BudgetScope scope(budget);
    read_host_launches(nvcc, cu, arch, extra, templ, out);
  });
  const ProcessResult r = run_process(argv, budget_limits(kMaxNvccFileBytes));
  host.wait();
  out.nvcc_ms = clock.elapsed_ms();
  if (r.exit_code != 0) {
    fs::remove_all(out.dir, ec);
    const uint64_t mib = uint64_t{1} << 20;
    if (r.timed_out) throw CudaCompileError(current_budget().deadline_name + " was spent while nvcc compiled", r.output);
    if (r.out_of_memory)
      throw CudaCompileError(fmt::format("nvcc passed {} of {} MiB ({} MiB resident with what it started) and was stopped",
                                         current_budget().memory_name, *current_budget().memory_bytes / mib,
                                         r.peak_memory_bytes / mib),
                             r.output);
    if (r.exit_code == 128 + SIGXFSZ)
      throw CudaCompileError(fmt::format("nvcc wrote a file larger than {} MiB and was stopped", kMaxNvccFileBytes / mib), r.output);
    throw CudaCompileError("nvcc failed (exit " + std::to_string(r.exit_code) + ")", r.output);
  }
  return out;
}

}  // namespace lp::cli
