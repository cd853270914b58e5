#include "cli/CudaCompile.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
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

// The kernel launches of the job's host code: nvcc's own preprocessing (-E, the host pass, with
// the compile's arguments), read outside system headers and the toolkit's own headers.
void read_host_launches(const std::string& nvcc, const PtxCompileJob& job, CompiledPtx& out) {
  const std::string ii = (fs::path(job.scratch_dir) / (fs::path(job.ptx_path).filename().string() + ".ii")).string();
  std::vector<std::string> argv{nvcc};
  argv.insert(argv.end(), job.unit_flags.begin(), job.unit_flags.end());
  argv.push_back("-E");
  if (job.arch) argv.push_back("-arch=" + *job.arch);
  argv.insert(argv.end(), {job.source, "-o", ii});
  argv.insert(argv.end(), job.extra_flags.begin(), job.extra_flags.end());
  const ProcessResult r = run_process(argv, budget_limits(kMaxNvccFileBytes), {}, job.directory);
  if (r.exit_code != 0) {
    out.host_note = "nvcc -E failed: the host code's launches are not read";
    return;
  }
  try {
    const std::string text = read_regular_file(ii, kMaxPreprocessedBytes);
    std::error_code ec;
    fs::remove(ii, ec);
    const fs::path toolkit = fs::path(nvcc).parent_path().parent_path();
    out.host_launches = cuda::host_launches(text, {toolkit.string() + "/", fs::weakly_canonical(toolkit).string() + "/"});
  } catch (const std::exception& e) {
    out.host_note = std::string("the host code's launches are not read: ") + e.what();
  }
}

// Why a program the checker ran failed: the limit that stopped it, else its exit status. `doing`
// names what ran out of time ("nvcc compiled").
std::string failure_reason(const ProcessResult& r, const ProcessLimits& limits, const std::string& program, const std::string& doing) {
  const uint64_t mib = uint64_t{1} << 20;
  if (r.timed_out) return current_budget().deadline_name + " was spent while " + doing;
  if (r.out_of_memory)
    return fmt::format("{} passed {} of {} MiB ({} MiB resident with what it started) and was stopped", program,
                       current_budget().memory_name, *current_budget().memory_bytes / mib, r.peak_memory_bytes / mib);
  if (r.exit_code == 128 + SIGXFSZ && limits.file_bytes)
    return fmt::format("{} wrote a file larger than {} MiB and was stopped", program, *limits.file_bytes / mib);
  if (r.truncated && limits.max_output) return fmt::format("{} printed more than {} MiB", program, *limits.max_output / mib);
  return fmt::format("{} failed (exit {})", program, r.exit_code);
}

// The largest cubin and disassembly read back (a CUTLASS kernel's listing is a few MB).
constexpr uint64_t kMaxCubinBytes = uint64_t{64} << 20;
constexpr size_t kMaxListingBytes = size_t{256} << 20;

// A tool the checker runs: found once; `version` its --version's last line.
struct Tool {
  std::string path, version;
};
const Tool& tool(const std::string& program) {
  static std::mutex mutex;
  static std::map<std::string, Tool> found;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = found.find(program);
  if (it != found.end()) return it->second;
  Tool t;
  t.path = replay::find_tool(program);
  if (!t.path.empty()) {
    ProcessLimits limits;
    limits.timeout_s = 10;
    limits.max_output = 4096;
    std::string out = run_process({t.path, "--version"}, limits).output;
    while (!out.empty() && out.back() == '\n') out.pop_back();
    t.version = out.substr(out.rfind('\n') + 1);
  }
  return found.emplace(program, t).first->second;
}

void run_tool(const std::vector<std::string>& argv, const std::string& what, ProcessResult& r) {
  ProcessLimits limits = budget_limits(kMaxCubinBytes);
  limits.max_output = kMaxListingBytes;
  r = run_process(argv, limits);
  if (r.exit_code == 0) return;
  std::string why = failure_reason(r, limits, what, what + " ran");
  // Its own error (the reason reaches --verbose, where its output is not shown): its first line.
  if (const std::string first = r.output.substr(0, r.output.find('\n'));
      !first.empty() && !r.timed_out && !r.truncated && !r.out_of_memory)
    why += ": " + first;
  throw CudaCompileError(why, r.output);
}

}  // namespace

std::string disassemble_ptx(const std::string& ptx, const std::string& target) {
  const Tool& ptxas = tool("ptxas");
  const Tool& nvdisasm = tool("nvdisasm");
  if (ptxas.path.empty()) throw CudaCompileError("ptxas not found (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)", "");
  if (nvdisasm.path.empty())
    throw CudaCompileError("nvdisasm not found (the CUDA toolkit's, or `pip install nvidia-cuda-nvdisasm`)", "");
  if (!std::regex_match(target, std::regex("sm_[0-9]+[af]?"))) throw CudaCompileError("the PTX's .target '" + target + "' names no GPU", "");
  const std::string dir = make_scratch_dir();
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{dir};
  const std::string ptx_file = dir + "/probe.ptx", cubin = dir + "/probe.cubin";
  {
    std::ofstream f(ptx_file, std::ios::binary);
    f << ptx;
    if (!f.flush()) throw CudaCompileError("cannot write the probe's PTX to " + ptx_file, "");
  }
  ProcessResult r;
  run_tool({ptxas.path, "-arch=" + target, "-lineinfo", ptx_file, "-o", cubin}, "ptxas", r);
  run_tool({nvdisasm.path, "-gp", cubin}, "nvdisasm", r);
  return r.output;
}

std::string disassembler_key() {
  return fmt::format("{} ({}), {} ({})", tool("ptxas").path, tool("ptxas").version, tool("nvdisasm").path, tool("nvdisasm").version);
}

std::string make_scratch_dir() {
  std::string templ = (fs::temp_directory_path() / "layoutproof-ptx-XXXXXX").string();
  if (!mkdtemp(templ.data())) throw CudaCompileError("cannot create a temporary directory for nvcc's output", "");
  return templ;
}

CompiledPtx compile_cuda_to_ptx(const PtxCompileJob& job) {
  if (job.arch && !std::regex_match(*job.arch, std::regex("sm_[0-9]+[af]?")))
    throw CudaCompileError("--arch must name an architecture like sm_80 or sm_90a, not '" + *job.arch + "'", "");
  std::error_code ec;
  if (!job.directory.empty() && !fs::is_directory(job.directory, ec))
    throw CudaCompileError("the unit's directory " + job.directory + " does not exist (a compilation database from another machine?)", "");
  const fs::path source = fs::path(job.directory) / job.source;
  if (!fs::is_regular_file(source, ec)) throw CudaCompileError(job.source + ": no such file", "");
  const std::string nvcc = replay::find_tool("nvcc");
  if (nvcc.empty()) throw CudaCompileError("nvcc not found (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)", "");
  CompiledPtx out;
  std::vector<std::string> argv{nvcc};
  argv.insert(argv.end(), job.unit_flags.begin(), job.unit_flags.end());
  argv.insert(argv.end(), {"-O3", "-lineinfo"});
  if (job.arch) argv.push_back("-arch=" + *job.arch);
  argv.insert(argv.end(), {"--ptx", job.source, "-o", fs::absolute(job.ptx_path).string()});
  argv.insert(argv.end(), job.extra_flags.begin(), job.extra_flags.end());
  Stopwatch clock;
  // The host code's preprocessing runs beside the compile, under the same budget.
  const Budget budget = current_budget();
  auto host = std::async(std::launch::async, [&] {
    BudgetScope scope(budget);
    read_host_launches(nvcc, job, out);
  });
  const ProcessLimits limits = budget_limits(kMaxNvccFileBytes);
  const ProcessResult r = run_process(argv, limits, {}, job.directory);
  host.wait();
  out.nvcc_ms = clock.elapsed_ms();
  if (r.exit_code != 0) {
    fs::remove(job.ptx_path, ec);
    throw CudaCompileError(failure_reason(r, limits, "nvcc", "nvcc compiled"), r.output);
  }
  return out;
}

}  // namespace lp::cli
