#pragma once
// Shell completion generated from the command line's own definition: the CLI11 app every
// subcommand has set up is walked into a tree of commands and options, and each shell's script is
// written from that tree, so completion cannot drift from the options the driver accepts.
// Completion.cpp also defines the hidden `layoutproof completion bash|zsh` command that prints them.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace lp::cli {

/// An option or a positional argument of one command.
struct CompletionArg {
  std::vector<std::string> names;    ///< "--format", "-v" (options); the name (positionals)
  std::string description;
  bool positional = false;
  bool takes_value = false;          ///< flags take none
  bool repeatable = false;           ///< a vector: many values, or given more than once
  std::vector<std::string> choices;  ///< CLI::IsMember's set; empty: any value (a file name is offered)
};

/// A command (the driver itself at the root) with its arguments and subcommands.
struct CompletionCommand {
  std::string name;
  std::string description;
  std::vector<CompletionArg> args;
  std::vector<CompletionCommand> subcommands;  ///< hidden ones (group "") are left out
};

/// The tree of `app` and its visible subcommands.
CompletionCommand completion_tree(const CLI::App& app);

/// A bash-completion script defining and registering `_layoutproof` (bash >= 4).
std::string bash_completion(const CompletionCommand& root);
/// A zsh completion function file (`#compdef layoutproof`, installed as `_layoutproof`).
std::string zsh_completion(const CompletionCommand& root);

}  // namespace lp::cli
