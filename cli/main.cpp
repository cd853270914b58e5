// layoutproof: a thin driver. It parses the command line and hands over to one subcommand;
// all the work is in the libraries under analyzer/ (and, later, solver/ and rules/).
#include <spdlog/spdlog.h>

#include "analyzer/diag/Diagnostic.h"
#include "analyzer/support/Error.h"
#include "analyzer/support/Governor.h"
#include "analyzer/support/Process.h"
#include "solver/Engines.h"
#include "solver/ToolVersions.h"

#include <cstdlib>
#include <iostream>

#include "cli/Command.h"

int main(int argc, char** argv) {
  CLI::App app{"LayoutProof: verify GPU tensor layouts (injectivity, bank conflicts, composition, coverage)",
               "layoutproof"};
  app.require_subcommand(1);
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose, "Log what the tool is doing to stderr");
  app.set_version_flag("--version", [] { return lp::version_text(lp::tool_versions()); });

  auto commands = lp::cli::make_commands();
  std::vector<std::pair<CLI::App*, lp::cli::Command*>> subs;
  for (auto& c : commands) subs.emplace_back(c->setup(app), c.get());

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : lp::cli::kBadInput;
  }
  spdlog::set_level(verbose ? spdlog::level::debug : spdlog::level::warn);
  // The compilers and probes commands start, and whatever they start, end with their run.
  lp::adopt_orphans();
  int code = lp::cli::kBadInput;
  try {
    for (auto& [sub, cmd] : subs) {
      if (!sub->parsed()) continue;
      lp::Budget budget;
      budget.memory_bytes = lp::cli::kDefaultMemoryBudgetMb << 20;
      budget.memory_name = "the default memory budget";
      std::optional<lp::BudgetScope> scope;
      if (!cmd->sets_own_budget()) scope.emplace(budget);
      code = cmd->run();
    }
  } catch (const lp::cli::ExitRequest& e) {
    code = e.code;
  } catch (const std::bad_alloc&) {
    std::cerr << "error: the system refused the memory this command needs\n";
    code = lp::cli::kBadInput;
  } catch (const lp::DiagnosticError& e) {  // located input errors print with their source line and caret
    std::cerr << e.diagnostic().render();
    code = lp::cli::kBadInput;
  } catch (const lp::Error& e) {  // input the tool cannot accept, or a budget spent (analyzer/support/Error.h)
    std::cerr << "error: " << e.what() << "\n";
    code = lp::cli::kBadInput;
  } catch (const std::exception& e) {
    std::cerr << "error: internal error: " << e.what() << "\n";
    code = lp::cli::kBadInput;
  }
  // Everything is written. Z3 contexts still being deleted in the background (seconds after a
  // timeout) must not hold the exit up: the process ends without waiting for them.
  std::cout.flush();
  std::cerr.flush();
  if (lp::z3_teardown_pending()) std::_Exit(code);
  return code;
}
