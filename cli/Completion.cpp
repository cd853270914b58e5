#include "cli/Completion.h"

#include <fmt/format.h>

#include <iostream>

#include "cli/Command.h"

namespace lp::cli {

namespace {

// CLI::IsMember describes its set as "{a,b,c}" (CLI/Validators.hpp, generate_set), and an option's
// type name joins its validators' descriptions with ':' ("TEXT:{text,json}"). Nothing else in the
// driver's type names has braces.
std::vector<std::string> choices_of(const std::string& type_name) {
  const size_t open = type_name.rfind('{');
  const size_t close = type_name.rfind('}');
  if (open == std::string::npos || close == std::string::npos || close < open) return {};
  std::vector<std::string> items;
  std::string item;
  for (char c : type_name.substr(open + 1, close - open - 1)) {
    if (c == ',') {
      items.push_back(item);
      item.clear();
    } else {
      item += c;
    }
  }
  items.push_back(item);
  return items;
}

void add_args(const CLI::App& app, CompletionCommand& into) {
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_group().empty()) continue;  // hidden
    CompletionArg a;
    a.description = opt->get_description();
    a.positional = !opt->nonpositional();
    if (a.positional) {
      a.names.push_back(opt->get_name());
    } else {
      for (const std::string& s : opt->get_snames()) a.names.push_back("-" + s);
      for (const std::string& l : opt->get_lnames()) a.names.push_back("--" + l);
    }
    a.takes_value = opt->get_items_expected_max() > 0;  // flags expect no items
    a.repeatable = opt->get_items_expected_max() > 1;
    a.choices = choices_of(opt->get_type_name());
    into.args.push_back(std::move(a));
  }
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name().empty()) {  // an option group: its options belong to this command
      add_args(*sub, into);
    } else if (!sub->get_group().empty()) {
      into.subcommands.push_back(completion_tree(*sub));
    }
  }
}

// ---- bash: the tree as four lookup functions keyed by the subcommand path ("", "prove", ...).

std::string join(const std::vector<std::string>& items, const char* sep = " ") {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

// Words of the tree are CLI11 names ([-_.A-Za-z0-9]) and IsMember items; both are quoted anyway.
std::string sh_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct BashTables {
  std::string subs, opts, values, choices, positionals;
};

void bash_tables(const CompletionCommand& c, const std::string& path, BashTables& t) {
  std::vector<std::string> sub_names, opt_names;
  for (const CompletionCommand& s : c.subcommands) sub_names.push_back(s.name);
  for (const CompletionArg& a : c.args) {
    if (a.positional) {
      // A positional's choices (e.g. `algebra OP`) are offered where a subcommand would be.
      if (!a.choices.empty() && t.positionals.find(sh_quote(path) + ")") == std::string::npos)
        t.positionals += fmt::format("    {}) echo {} ;;\n", sh_quote(path), sh_quote(join(a.choices)));
      continue;
    }
    for (const std::string& n : a.names) {
      opt_names.push_back(n);
      if (!a.takes_value) continue;
      t.values += fmt::format("    {}) return 0 ;;\n", sh_quote(path + " " + n));
      if (!a.choices.empty()) t.choices += fmt::format("    {}) echo {} ;;\n", sh_quote(path + " " + n), sh_quote(join(a.choices)));
    }
  }
  if (!sub_names.empty()) t.subs += fmt::format("    {}) echo {} ;;\n", sh_quote(path), sh_quote(join(sub_names)));
  t.opts += fmt::format("    {}) echo {} ;;\n", sh_quote(path), sh_quote(join(opt_names)));
  for (const CompletionCommand& s : c.subcommands) bash_tables(s, path.empty() ? s.name : path + " " + s.name, t);
}

// ---- zsh: one _arguments function per command.

// Inside an _arguments spec: '[description]' must escape ] and \, and ':' separates fields.
std::string zsh_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\n') c = ' ';
    if (c == '[' || c == ']' || c == ':' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string zsh_action(const CompletionArg& a) {
  if (a.choices.empty()) return "_files";
  std::vector<std::string> escaped;
  for (const std::string& ch : a.choices) escaped.push_back(zsh_escape(ch));
  return "(" + join(escaped) + ")";
}

std::string zsh_function_name(const std::string& path) {
  std::string name = path.empty() ? "_layoutproof" : "_layoutproof_";
  for (char c : path) name += (c == ' ' || c == '-') ? '_' : c;
  return name;
}

void zsh_functions(const CompletionCommand& c, const std::string& path, std::string& out) {
  std::vector<std::string> specs;
  for (const CompletionArg& a : c.args) {
    const std::string desc = zsh_escape(a.description);
    if (a.positional) {
      specs.push_back(fmt::format("{}:{}:{}", a.repeatable ? "*" : "", zsh_escape(a.names.front()), zsh_action(a)));
      continue;
    }
    const std::string exclusive = a.repeatable || a.names.size() < 2 ? "" : "(" + join(a.names) + ")";
    for (const std::string& n : a.names) {
      std::string spec = (a.repeatable ? "*" : exclusive) + n;
      // A long option's value may follow '=' or be the next word, as CLI11 accepts both.
      if (a.takes_value && n.rfind("--", 0) == 0) spec += "=";
      spec += "[" + desc + "]";
      if (a.takes_value) spec += ":" + zsh_escape(n.substr(n.find_first_not_of('-'))) + ":" + zsh_action(a);
      specs.push_back(std::move(spec));
    }
  }
  const std::string fn = zsh_function_name(path);
  out += fn + "() {\n";
  if (c.subcommands.empty()) {
    out += "  _arguments -s";
    for (const std::string& s : specs) out += " \\\n    " + sh_quote(s);
    out += "\n}\n\n";
    return;
  }
  out += "  local curcontext=$curcontext state state_descr line\n  typeset -A opt_args\n  _arguments -C -s";
  for (const std::string& s : specs) out += " \\\n    " + sh_quote(s);
  out += " \\\n    ': :->command' \\\n    '*:: :->argument'\n";
  out += "  case $state in\n    command)\n      local -a commands\n      commands=(\n";
  for (const CompletionCommand& s : c.subcommands)
    out += "        " + sh_quote(zsh_escape(s.name) + ":" + zsh_escape(s.description)) + "\n";
  out += fmt::format("      )\n      _describe -t commands {} commands ;;\n", sh_quote("layoutproof" + (path.empty() ? "" : " " + path) + " command"));
  out += "    argument)\n      case $line[1] in\n";
  for (const CompletionCommand& s : c.subcommands)
    out += fmt::format("        {}) {} ;;\n", sh_quote(s.name), zsh_function_name(path.empty() ? s.name : path + " " + s.name));
  out += "      esac ;;\n  esac\n}\n\n";
  for (const CompletionCommand& s : c.subcommands) zsh_functions(s, path.empty() ? s.name : path + " " + s.name, out);
}

}  // namespace

CompletionCommand completion_tree(const CLI::App& app) {
  CompletionCommand c;
  c.name = app.get_name();
  c.description = app.get_description();
  add_args(app, c);
  return c;
}

std::string bash_completion(const CompletionCommand& root) {
  BashTables t;
  bash_tables(root, "", t);
  return fmt::format(R"BASH(# bash completion for layoutproof; generated by `layoutproof completion bash` from its
# command-line definition. Install as .../bash-completion/completions/layoutproof or source it.

# The subcommands, options, options that take a value, their choices and a positional's choices
# of each command, by its subcommand path ("" for the driver, "prove", ...).
_layoutproof_subcommands() {{
  case $1 in
{}  esac
}}
_layoutproof_options() {{
  case $1 in
{}  esac
}}
_layoutproof_takes_value() {{
  case "$1 $2" in
{}  esac
  return 1
}}
_layoutproof_choices() {{
  case "$1 $2" in
{}  esac
}}
_layoutproof_positional_choices() {{
  case $1 in
{}  esac
}}

_layoutproof() {{
  local cur=${{COMP_WORDS[COMP_CWORD]}} path= word i value_next=0
  COMPREPLY=()
  # The subcommand path so far; the word after an option that takes a value is that value.
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${{COMP_WORDS[i]}}
    if ((value_next)); then value_next=0; continue; fi
    if [[ $word == -* ]]; then
      [[ $word != *=* ]] && _layoutproof_takes_value "$path" "$word" && value_next=1
      continue
    fi
    [[ " $(_layoutproof_subcommands "$path") " == *" $word "* ]] && path=${{path:+$path }}$word
  done
  local words
  if ((value_next)); then
    words=$(_layoutproof_choices "$path" "${{COMP_WORDS[COMP_CWORD - 1]}}")
    if [[ -n $words ]]; then
      mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
    else
      compopt -o filenames 2>/dev/null || true
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    fi
    return 0
  fi
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_layoutproof_options "$path")" -- "$cur")
    return 0
  fi
  words="$(_layoutproof_subcommands "$path") $(_layoutproof_positional_choices "$path")"
  if [[ -n ${{words// }} ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
  else
    compopt -o filenames 2>/dev/null || true
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  fi
  return 0
}}
complete -F _layoutproof layoutproof
)BASH",
                     t.subs, t.opts, t.values, t.choices, t.positionals);
}

std::string zsh_completion(const CompletionCommand& root) {
  std::string out =
      "#compdef layoutproof\n"
      "# zsh completion for layoutproof; generated by `layoutproof completion zsh` from its command-line\n"
      "# definition. Install as _layoutproof in a directory of $fpath.\n\n";
  zsh_functions(root, "", out);
  out += "_layoutproof \"$@\"\n";
  return out;
}

namespace {

// `layoutproof completion bash|zsh`: prints the shell's script. Hidden from --help: the build runs
// it to write the installed scripts (cmake/GenerateShareFiles.cmake).
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
