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

/// Returns 0 when every replay ran and agrees with its prediction, 1 otherwise (no GPU or
/// nvcc included, said on `log`). `arch` is nvcc's -arch value, e.g. "sm_90a".
int run_replays(const std::vector<Replay>& replays, const nlohmann::json& doc, const std::filesystem::path& dir,
                const std::string& arch, std::ostream& log);

}  // namespace lp::replay
