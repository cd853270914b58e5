#pragma once
// Runs the built `layoutproof` binary the way a user does: an argument vector, no shell.
#include <cstdint>
#include <string>
#include <vector>

namespace lp::test {

struct ProcessResult {
  int exit_code = -1;
  std::string out;
  std::string err;
  double wall_s = 0;            ///< from start to exit
  uint64_t peak_rss_bytes = 0;  ///< the program's largest resident set, or a waited-for descendant's (wait4)
};

/// Runs `program` with `args`, capturing stdout and stderr. Never goes through a shell.
ProcessResult run_process(const std::string& program, const std::vector<std::string>& args);

/// Runs the layoutproof binary under test.
inline ProcessResult run_layoutproof(const std::vector<std::string>& args) {
  return run_process(LAYOUTPROOF_BIN, args);
}

}  // namespace lp::test
