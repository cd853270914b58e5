#pragma once
// `layoutproof replay --run`: compiles each replay with nvcc, runs it on the local GPU, and
// records the outcome in DIR/findings.replayed.json.
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "replay/Replay.h"

namespace lp::replay {

struct RunOptions {
  std::string arch = "sm_90a";  ///< nvcc's -arch value
  bool clock64 = false;         ///< time with clock64 even where ncu is present
};

/// Returns 0 when every replay ran and agrees with its prediction, 1 otherwise (no GPU or
/// nvcc included, said on `log`). nvcc, ncu and nvidia-smi are found by find_tool (Process.h)
/// and started from argument vectors.
int run_replays(const std::vector<Replay>& replays, const nlohmann::json& doc, const std::filesystem::path& dir,
                const RunOptions& options, std::ostream& log);

/// "NVIDIA H200" from `nvidia-smi -L` output ("GPU 0: NVIDIA H200 (UUID: ...)"), or empty.
std::string first_gpu_name(const std::string& nvidia_smi_output);

}  // namespace lp::replay
