#include "cli/Command.h"

#include <fmt/format.h>

#include <charconv>
#include <fstream>
#include <iostream>
#include <limits>

#include "analyzer/support/ReadFile.h"

namespace lp::cli {

std::unique_ptr<Command> make_eval_command();
std::unique_ptr<Command> make_print_command();
std::unique_ptr<Command> make_algebra_command();
std::unique_ptr<Command> make_banks_command();
std::unique_ptr<Command> make_fragment_command();
std::unique_ptr<Command> make_prove_command();
std::unique_ptr<Command> make_check_command();
std::unique_ptr<Command> make_replay_command();
std::unique_ptr<Command> make_report_command();
std::unique_ptr<Command> make_bench_command();
std::unique_ptr<Command> make_extract_command();
std::unique_ptr<Command> make_explain_command();
std::unique_ptr<Command> make_completion_command();

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    items.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

void write_output(const std::string& text, const std::string& path, const std::string& what) {
  if (path.empty()) {
    std::cout << text;
    return;
  }
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw InputError("cannot write the " + what + " to " + path);
}

std::string read_input(const std::string& path) {
  try {
    return read_regular_file(path, kMaxInputBytes);
  } catch (const FileReadError& e) {
    throw InputError(e.what());
  }
}

nlohmann::json read_json_input(const std::string& path) {
  try {
    return parse_json_document(read_regular_file(path, kMaxInputBytes), path);
  } catch (const FileReadError& e) {
    throw InputError(e.what());
  }
}

int64_t parse_int_option(const std::string& text, const std::string& what) {
  int64_t value = 0;
  const char* first = text.data();
  const char* last = first + text.size();
  const auto [end, ec] = std::from_chars(first, last, value);
  if (ec == std::errc::result_out_of_range)
    throw InputError(fmt::format("{}: {} does not fit a 64-bit integer (at most {})", what, text,
                                 std::numeric_limits<int64_t>::max()));
  if (ec != std::errc() || end != last || text.empty()) throw InputError(fmt::format("{}: '{}' is not an integer", what, text));
  return value;
}

Axis axis_option(const std::string& text, const std::string& what) {
  if (text.empty()) throw InputError(what + ": names no axis");
  if (text[0] != '@') return Axis::named(text);
  std::vector<uint32_t> printed;
  for (size_t p = 1; p <= text.size();) {
    size_t q = text.find('@', p);
    int64_t d = parse_int_option(text.substr(p, q == std::string::npos ? std::string::npos : q - p), what);
    if (d < 0 || d > 1023) throw InputError(what + ": basis index " + std::to_string(d) + " is outside [0, 1023]");
    printed.push_back(static_cast<uint32_t>(d));
    if (q == std::string::npos) break;
    p = q + 1;
  }
  return Axis::basis({printed.rbegin(), printed.rend()});
}

std::vector<std::unique_ptr<Command>> make_commands() {
  std::vector<std::unique_ptr<Command>> c;
  c.push_back(make_eval_command());
  c.push_back(make_print_command());
  c.push_back(make_algebra_command());
  c.push_back(make_banks_command());
  c.push_back(make_fragment_command());
  c.push_back(make_prove_command());
  c.push_back(make_check_command());
  c.push_back(make_replay_command());
  c.push_back(make_report_command());
  c.push_back(make_bench_command());
  c.push_back(make_extract_command());
  c.push_back(make_explain_command());
  c.push_back(make_completion_command());
  return c;
}

}  // namespace lp::cli
