#pragma once
// Runs a program from an argument vector (never a shell) with a wall-clock limit and a limit on
// the output it may print: what `layoutproof extract` needs to run a compiler and a user's probe
// without hanging or filling memory. The program and everything it starts run in a process group
// of their own, which is killed as a whole when a limit is reached.
#include <cstddef>
#include <string>
#include <vector>

namespace lp::cli {

struct BoundedResult {
  int exit_code = -1;      ///< 127: could not be started; 128+N: killed by signal N
  bool timed_out = false;  ///< killed at the time limit
  bool truncated = false;  ///< killed for printing more than the output limit
  std::string output;      ///< standard output and error, interleaved, at most the limit
};

/// Runs argv (argv[0] looked up on PATH) with `env` added to the environment ("NAME=value"),
/// standard input from /dev/null.
BoundedResult run_bounded(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                          double timeout_s, size_t max_output);

}  // namespace lp::cli
