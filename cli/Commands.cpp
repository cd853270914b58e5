#include "cli/Command.h"

namespace lp::cli {

std::unique_ptr<Command> make_eval_command();
std::unique_ptr<Command> make_print_command();

std::vector<std::unique_ptr<Command>> make_commands() {
  std::vector<std::unique_ptr<Command>> c;
  c.push_back(make_eval_command());
  c.push_back(make_print_command());
  return c;
}

}  // namespace lp::cli
