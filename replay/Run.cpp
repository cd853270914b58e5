#include "replay/Run.h"

#include <fmt/format.h>

#include <cctype>
#include <fstream>
#include <regex>

#include "analyzer/support/Process.h"
#include "replay/Process.h"

namespace lp::replay {

using nlohmann::json;

namespace {

int sm_of(const std::string& arch) {
  std::string digits;
  for (char c : arch)
    if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
  return digits.empty() ? 0 : std::stoi(digits);
}

}  // namespace

std::string first_gpu_name(const std::string& out) {
  static const std::regex kGpu(R"(GPU \d+: ([^\n(]*[^\s(]))");
  std::smatch m;
  return std::regex_search(out, m, kGpu) ? m[1].str() : std::string();
}

int run_replays(const std::vector<Replay>& replays, const json& doc, const std::filesystem::path& dir,
                const RunOptions& options, std::ostream& log) {
  const std::string nvcc = find_tool("nvcc");
  if (nvcc.empty()) {
    log << "replay --run: nvcc not found (PATH, $CUDA_HOME/bin, /usr/local/cuda*/bin, or set LP_REPLAY_NVCC); "
           "the programs are written but cannot be compiled here\n";
    return 1;
  }
  const std::string smi = find_tool("nvidia-smi");
  if (smi.empty()) {
    log << "replay --run: no NVIDIA driver here (nvidia-smi not found), so no GPU to run on; nothing was run\n";
    return 1;
  }
  ProcessResult gpus = run_process({smi, "-L"});
  const std::string device = first_gpu_name(gpus.output);
  if (gpus.exit_code != 0 || device.empty()) {
    log << "replay --run: nvidia-smi -L lists no GPU (exit " << gpus.exit_code << "): " << gpus.output
        << "nothing was run\n";
    return 1;
  }
  const std::string ncu = options.clock64 ? std::string() : find_tool("ncu");
  log << gpus.output << "nvcc: " << nvcc << "\nncu: "
      << (ncu.empty() ? (options.clock64 ? "not used (--clock64)" : "not found: bank conflicts are timed with clock64")
                      : ncu)
      << "\n";
  json out = doc;
  out["replay_run"] = {{"device", device}, {"arch", options.arch}, {"nvcc", nvcc}, {"ncu", ncu}};
  bool all_agree = true;
  for (const Replay& r : replays) {
    json& f = out["findings"][r.finding];
    if (r.source.empty()) {
      f["replay"] = {{"replayed", false}, {"why", r.why_not}};
      continue;
    }
    if (sm_of(options.arch) < r.min_sm) {
      f["replay"] = {{"replayed", false},
                     {"why", fmt::format("needs sm_{} or later; run with --arch sm_90a", r.min_sm)}};
      log << r.name << ": skipped, needs sm_" << r.min_sm << "\n";
      all_agree = false;
      continue;
    }
    const std::string source = (dir / (r.name + ".cu")).string();
    const std::string binary = std::filesystem::absolute(dir / r.name).string();
    ProcessResult built = run_process({nvcc, "-std=c++17", "-O2", "-arch=" + options.arch, "-o", binary, source});
    if (built.exit_code != 0) {
      log << r.name << ": nvcc failed (exit " << built.exit_code << "):\n" << built.output;
      f["replay"] = {{"replayed", false}, {"why", "nvcc failed"}, {"output", built.output}};
      all_agree = false;
      continue;
    }
    // Bank-conflict programs get the ncu to rerun themselves under, or are told to time.
    std::vector<std::string> argv = {binary};
    if (r.profiled) {
      if (ncu.empty()) argv.push_back("--clock64");
      else argv.insert(argv.end(), {"--ncu", ncu});
    }
    ProcessResult ran = run_process(argv);
    log << "== " << r.name << " (exit " << ran.exit_code << ")\n" << ran.output;
    std::optional<Outcome> o = parse_outcome(ran.output);
    if (ran.exit_code != 0 || !o) {
      f["replay"] = {{"replayed", false}, {"why", "the program failed or printed no result line"}, {"output", ran.output}};
      all_agree = false;
      continue;
    }
    f["replay"] = {{"program", r.name + ".cu"}, {"method", o->method}, {"measured", o->measured},
                   {"predicted", o->predicted}, {"agrees", o->agrees}, {"device", device},
                   {"arch", options.arch}, {"output", ran.output}};
    if (o->method == "unmeasured") {
      f["replay"]["measured"] = nullptr;
      f["replay"]["agrees"] = nullptr;
    }
    all_agree = all_agree && o->agrees;
  }
  std::ofstream file(dir / "findings.replayed.json", std::ios::binary);
  file << out.dump(2) << "\n";
  if (!file) {
    log << "replay --run: cannot write " << (dir / "findings.replayed.json").string() << "\n";
    return 1;
  }
  log << (all_agree ? "every replay agrees with its prediction\n" : "some replays disagree, failed or were not measured; see above\n");
  return all_agree ? 0 : 1;
}

}  // namespace lp::replay
