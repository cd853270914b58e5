#pragma once
// The base of every error the tool raises on purpose: input it cannot accept (a layout outside
// its domain, an overflow, an unknown instruction, a malformed file) or a budget the run has
// spent. Its message is complete for a user; the driver prints it as `error: MESSAGE` and exits
// 2. Any other exception that reaches the driver is a bug, reported as an internal error.
#include <stdexcept>
#include <string>

namespace lp {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace lp
