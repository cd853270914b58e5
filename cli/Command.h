#pragma once
// A subcommand of the `layoutproof` driver. Each lives in its own file and is listed once in
// Commands.cpp; the driver parses arguments with CLI11 and calls run() on the chosen one.
#include <CLI/CLI.hpp>
#include <memory>
#include <vector>

namespace lp::cli {

/// Exit codes shared by every subcommand.
enum ExitCode : int { kOk = 0, kFindings = 1, kBadInput = 2 };

class Command {
 public:
  virtual ~Command() = default;
  /// Adds the subcommand and its options to `app`; returns the subcommand.
  virtual CLI::App* setup(CLI::App& app) = 0;
  /// Runs after a successful parse; returns the process exit code.
  virtual int run() = 0;
};

std::vector<std::unique_ptr<Command>> make_commands();

/// Parses a layout argument; on error prints the diagnostic to stderr and throws ExitRequest.
struct ExitRequest {
  int code;
};

}  // namespace lp::cli
