#include "cli/Command.h"

namespace lp::cli {

std::unique_ptr<Command> make_eval_command();
std::unique_ptr<Command> make_print_command();
std::unique_ptr<Command> make_algebra_command();
std::unique_ptr<Command> make_banks_command();
std::unique_ptr<Command> make_fragment_command();
std::unique_ptr<Command> make_prove_command();

std::vector<std::unique_ptr<Command>> make_commands() {
  std::vector<std::unique_ptr<Command>> c;
  c.push_back(make_eval_command());
  c.push_back(make_print_command());
  c.push_back(make_algebra_command());
  c.push_back(make_banks_command());
  c.push_back(make_fragment_command());
  c.push_back(make_prove_command());
  return c;
}

}  // namespace lp::cli
