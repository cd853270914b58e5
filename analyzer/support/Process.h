#pragma once
// Runs a program from an argument vector (never a shell string) and captures its output: the
// compilers, probes, GPU tools and replays the tool starts. The program runs in a session of its
// own, with a cap on the size of every file it writes; while it runs, every process it starts is
// followed, and the whole tree is killed when a limit is reached. A program (the CLI) that calls
// adopt_orphans() becomes its runs' subreaper: a descendant that leaves the session (setsid, a
// daemon) is adopted here and killed when its run ends, so nothing a run starts outlives it.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lp {

struct ProcessLimits {
  std::optional<double> timeout_s;   ///< wall-clock limit; none: wait for the program
  std::optional<size_t> max_output;  ///< bytes of output kept before the program is killed; none: all
  /// Resident memory of the program and everything it starts, summed; past it the tree is killed.
  std::optional<uint64_t> memory_bytes;
  /// The largest file the program (and its children) may write (RLIMIT_FSIZE): a write past it
  /// fails and the program gets SIGXFSZ, so a flood of output stops at the cap, not after.
  std::optional<uint64_t> file_bytes;
};

struct ProcessResult {
  int exit_code = 0;       ///< the program's status; 127: could not be started; 128+N: killed by signal N
  bool timed_out = false;  ///< killed at limits.timeout_s
  bool truncated = false;  ///< killed for printing more than limits.max_output
  bool out_of_memory = false;  ///< killed at limits.memory_bytes
  uint64_t peak_memory_bytes = 0;  ///< the tree's largest resident memory seen
  std::string output;      ///< standard output and error, interleaved (at most limits.max_output)
};

/// Runs argv (argv[0] looked up on PATH; argv must not be empty) with `env` added to the
/// environment ("NAME=value") and standard input from /dev/null, in `working_dir` when it is not
/// empty (exit 127 when it cannot be entered).
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessLimits& limits = {},
                          const std::vector<std::string>& env = {}, const std::string& working_dir = {});

/// The limits the run's budget (Governor.h) leaves a program: its remaining time and its memory
/// budget, and `file_bytes`.
ProcessLimits budget_limits(std::optional<uint64_t> file_bytes);

/// Makes this process the subreaper of every program run_process starts (PR_SET_CHILD_SUBREAPER):
/// orphans they leave are adopted and killed. For a program whose children are all run_process's
/// (the CLI), not for a library inside another program.
void adopt_orphans();

/// The full path of `program` on PATH, or empty.
std::string find_on_path(const std::string& program);

}  // namespace lp
