#pragma once
// A subcommand of the `layoutproof` driver. Each lives in its own file and is listed once in
// Commands.cpp; the driver parses arguments with CLI11 and calls run() on the chosen one.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyzer/ir/Axis.h"
#include "analyzer/support/Error.h"

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
  /// Whether the command installs the resource budget of its run itself (`check` takes it from
  /// its configuration); every other command runs under kDefaultMemoryBudgetMb.
  virtual bool sets_own_budget() const { return false; }
};

/// The memory budget of a command that sets none of its own: the default of `[solver] memory-mb`.
inline constexpr uint64_t kDefaultMemoryBudgetMb = 2048;

std::vector<std::unique_ptr<Command>> make_commands();

/// Thrown by a command when it has already printed its diagnostic.
struct ExitRequest {
  int code;
};

/// A malformed option value; the driver prints "error: <what>" and exits with kBadInput, as it
/// does for every other user-input error type of the libraries.
class InputError : public Error {
 public:
  explicit InputError(const std::string& what) : Error(what) {}
};

/// The comma-separated items of an option value, empty items kept ("a,,b" has three).
std::vector<std::string> split_commas(const std::string& text);

/// Writes `text` to the file `path`, or to standard output when `path` is empty; InputError
/// ("cannot write the WHAT to PATH") when the file cannot be written.
void write_output(const std::string& text, const std::string& path, const std::string& what);

/// The documents the commands read (findings, benchmark results) are refused above this size.
inline constexpr uint64_t kMaxInputBytes = uint64_t{256} << 20;

/// The whole regular file `path` (at most kMaxInputBytes), or InputError saying why not.
std::string read_input(const std::string& path);
/// The JSON document in `path` (at most kMaxInputBytes, kMaxJsonDepth levels), or InputError.
nlohmann::json read_json_input(const std::string& path);

/// A whole decimal integer ("-12"), or InputError naming `what` and saying whether the text is not
/// an integer or does not fit 64 bits (never a silently clamped value).
int64_t parse_int_option(const std::string& text, const std::string& what);

/// An axis as users write it in options: a name (`laneid`, `m`) or a basis (`@1@0`, innermost
/// index first, as CuTe prints it).
Axis axis_option(const std::string& text, const std::string& what);

}  // namespace lp::cli
