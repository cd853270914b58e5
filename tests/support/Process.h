#pragma once
// Runs the built `layoutproof` binary the way a user does: an argument vector, no shell.
#include <string>
#include <vector>

namespace lp::test {

struct ProcessResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// Runs `program` with `args`, capturing stdout and stderr. Never goes through a shell.
ProcessResult run_process(const std::string& program, const std::vector<std::string>& args);

/// Runs the layoutproof binary under test.
inline ProcessResult run_layoutproof(const std::vector<std::string>& args) {
  return run_process(LAYOUTPROOF_BIN, args);
}

}  // namespace lp::test
