#include "cli/LayoutArg.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <iostream>

#include "cli/Command.h"

namespace lp::cli {

std::optional<Notation> notation_from_option(const std::string& name) {
  if (name.empty() || name == "auto") return std::nullopt;
  if (auto n = notation_from_name(name)) return n;
  std::cerr << "error: unknown notation '" << name << "' (expected " << notation_choices() << ")\n";
  throw ExitRequest{kBadInput};
}

ParamSpec parse_param_option(const std::string& text) {
  ParamSpec p;
  size_t eq = text.find('='), dots = text.find("..");
  if (eq == std::string::npos || dots == std::string::npos || dots < eq)
    throw InputError("--param '" + text + "' is not NAME=LO..HI[%MULTIPLE]");
  p.name = text.substr(0, eq);
  if (p.name.empty() || !is_ident_start(p.name[0]) ||
      !std::all_of(p.name.begin(), p.name.end(), [](char c) { return is_ident_char(c); }))
    throw InputError("--param name '" + p.name + "' is not an identifier");
  auto number = [&](const std::string& s) { return parse_int_option(s, "--param '" + text + "'"); };
  size_t pct = text.find('%', dots);
  p.lo = number(text.substr(eq + 1, dots - eq - 1));
  p.hi = number(text.substr(dots + 2, pct == std::string::npos ? std::string::npos : pct - dots - 2));
  if (pct != std::string::npos) p.multiple = number(text.substr(pct + 1));
  if (p.lo < 1 || p.hi < p.lo || p.multiple < 1)
    throw InputError("--param '" + text + "' needs 1 <= LO <= HI and MULTIPLE >= 1");
  return p;
}

ParsedLayout read_layout_arg(const std::string& text, const std::string& notation_option,
                             const std::string& arg_name, const std::vector<ParamSpec>* params) {
  auto notation = notation_from_option(notation_option);
  try {
    ParsedLayout parsed = parse_layout_text(text, arg_name, notation, params);
    spdlog::debug("{}: read as {} notation ({}), {} modes over {} axes", arg_name, notation_name(parsed.notation),
                  notation ? "forced" : "detected", parsed.layout.modes().size(), parsed.layout.axes().size());
    return parsed;
  } catch (const DiagnosticError& e) {
    std::cerr << e.diagnostic().render();
    throw ExitRequest{kBadInput};
  }
}

}  // namespace lp::cli
