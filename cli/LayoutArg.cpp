#include "cli/LayoutArg.h"

#include <spdlog/spdlog.h>

#include <iostream>

#include "cli/Command.h"

namespace lp::cli {

std::optional<Notation> notation_from_option(const std::string& name) {
  if (name.empty() || name == "auto") return std::nullopt;
  if (name == "cute") return Notation::Cute;
  if (name == "tirx") return Notation::Tirx;
  if (name == "descriptor") return Notation::Descriptor;
  std::cerr << "error: unknown notation '" << name << "' (expected cute, tirx or descriptor)\n";
  throw ExitRequest{kBadInput};
}

ParsedLayout read_layout_arg(const std::string& text, const std::string& notation_option,
                             const std::string& arg_name) {
  auto notation = notation_from_option(notation_option);
  try {
    ParsedLayout parsed = parse_layout_text(text, arg_name, notation);
    spdlog::debug("{}: read as {} notation ({}), {} modes over {} axes", arg_name, notation_name(parsed.notation),
                  notation ? "forced" : "detected", parsed.layout.modes().size(), parsed.layout.axes().size());
    return parsed;
  } catch (const DiagnosticError& e) {
    std::cerr << e.diagnostic().render();
    throw ExitRequest{kBadInput};
  }
}

}  // namespace lp::cli
