#include "replay/Run.h"

#include <fmt/format.h>

#include <fstream>

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

int run_replays(const std::vector<Replay>& replays, const json& doc, const std::filesystem::path& dir,
                const std::string& arch, std::ostream& log) {
  if (find_on_path("nvcc").empty()) {
    log << "replay --run: nvcc is not on PATH; the programs are written but cannot be compiled here\n";
    return 1;
  }
  if (find_on_path("nvidia-smi").empty()) {
    log << "replay --run: no NVIDIA driver here (nvidia-smi is not on PATH), so no GPU to run on; nothing was run\n";
    return 1;
  }
  ProcessResult gpus = run_process({"nvidia-smi", "-L"});
  if (gpus.exit_code != 0 || gpus.output.find("GPU ") == std::string::npos) {
    log << "replay --run: nvidia-smi -L lists no GPU (exit " << gpus.exit_code << "): " << gpus.output
        << "nothing was run\n";
    return 1;
  }
  log << gpus.output;
  json out = doc;
  bool all_agree = true;
  for (const Replay& r : replays) {
    json& f = out["findings"][r.finding];
    if (r.source.empty()) {
      f["replay"] = {{"replayed", false}, {"why", r.why_not}};
      continue;
    }
    if (sm_of(arch) < r.min_sm) {
      f["replay"] = {{"replayed", false}, {"why", fmt::format("needs sm_{} or later; run with --arch sm_90a", r.min_sm)}};
      log << r.name << ": skipped, needs sm_" << r.min_sm << "\n";
      all_agree = false;
      continue;
    }
    const std::string source = (dir / (r.name + ".cu")).string();
    const std::string binary = std::filesystem::absolute(dir / r.name).string();
    ProcessResult built = run_process({"nvcc", "-std=c++17", "-O2", "-arch=" + arch, "-o", binary, source});
    if (built.exit_code != 0) {
      log << r.name << ": nvcc failed (exit " << built.exit_code << "):\n" << built.output;
      f["replay"] = {{"replayed", false}, {"why", "nvcc failed"}, {"output", built.output}};
      all_agree = false;
      continue;
    }
    ProcessResult ran = run_process({binary});
    log << "== " << r.name << " (exit " << ran.exit_code << ")\n" << ran.output;
    std::optional<Outcome> o = parse_outcome(ran.output);
    if (ran.exit_code != 0 || !o) {
      f["replay"] = {{"replayed", false}, {"why", "the program failed or printed no result line"}, {"output", ran.output}};
      all_agree = false;
      continue;
    }
    f["replay"] = {{"program", r.name + ".cu"}, {"method", o->method}, {"measured", o->measured},
                   {"predicted", o->predicted}, {"agrees", o->agrees}};
    all_agree = all_agree && o->agrees;
  }
  std::ofstream file(dir / "findings.replayed.json", std::ios::binary);
  file << out.dump(2) << "\n";
  if (!file) {
    log << "replay --run: cannot write " << (dir / "findings.replayed.json").string() << "\n";
    return 1;
  }
  log << (all_agree ? "every replay agrees with its prediction\n" : "some replays disagree or failed; see above\n");
  return all_agree ? 0 : 1;
}

}  // namespace lp::replay
