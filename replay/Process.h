#pragma once
// Runs a tool from an argument vector (never a shell string), capturing its output.
#include <string>
#include <vector>

namespace lp::replay {

struct ProcessResult {
  int exit_code = -1;  ///< 127: could not be started; 128+N: killed by signal N
  std::string output;  ///< stdout and stderr, interleaved
};

/// Runs argv[0] (looked up on PATH) with argv. argv must not be empty.
ProcessResult run_process(const std::vector<std::string>& argv);

/// The full path of `program` on PATH, or empty.
std::string find_on_path(const std::string& program);

}  // namespace lp::replay
