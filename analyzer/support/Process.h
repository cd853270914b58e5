#pragma once
// Runs a program from an argument vector (never a shell string) and captures its output: the
// compilers, probes, GPU tools and replays the tool starts. The program and everything it starts
// run in a process group of their own, killed as a whole when a limit is reached.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace lp {

struct ProcessLimits {
  std::optional<double> timeout_s;   ///< wall-clock limit; none: wait for the program
  std::optional<size_t> max_output;  ///< bytes of output kept before the program is killed; none: all
};

struct ProcessResult {
  int exit_code = 0;       ///< the program's status; 127: could not be started; 128+N: killed by signal N
  bool timed_out = false;  ///< killed at limits.timeout_s
  bool truncated = false;  ///< killed for printing more than limits.max_output
  std::string output;      ///< standard output and error, interleaved (at most limits.max_output)
};

/// Runs argv (argv[0] looked up on PATH; argv must not be empty) with `env` added to the
/// environment ("NAME=value") and standard input from /dev/null.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessLimits& limits = {},
                          const std::vector<std::string>& env = {});

/// The full path of `program` on PATH, or empty.
std::string find_on_path(const std::string& program);

}  // namespace lp
