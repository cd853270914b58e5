// `layoutproof completion bash|zsh`: prints the shell's completion script, generated from the
// driver's own command-line definition (cli/Completion.h). Hidden from --help: the build runs it
// to write the installed scripts (cmake/Install.cmake).
#include <iostream>

#include "cli/Command.h"
#include "cli/Completion.h"

namespace lp::cli {

namespace {

class CompletionCommandImpl : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    root_ = &app;
    auto* sub = app.add_subcommand("completion", "Print the bash or zsh completion script");
    sub->group("");
    sub->add_option("shell", shell_, "bash or zsh")->required()->check(CLI::IsMember({"bash", "zsh"}));
    return sub;
  }

  int run() override {
    const CompletionCommand tree = completion_tree(*root_);
    std::cout << (shell_ == "bash" ? bash_completion(tree) : zsh_completion(tree));
    return kOk;
  }

 private:
  const CLI::App* root_ = nullptr;
  std::string shell_;
};

}  // namespace

std::unique_ptr<Command> make_completion_command() { return std::make_unique<CompletionCommandImpl>(); }

}  // namespace lp::cli
