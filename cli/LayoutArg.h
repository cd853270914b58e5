#pragma once
// Reading layouts given on the command line, with diagnostics that point into the argument.
#include <optional>
#include <string>

#include "analyzer/parse/Parsers.h"

namespace lp::cli {

/// Parses `text` (named `<layout>` in diagnostics). On bad input prints the diagnostic and
/// throws ExitRequest{kBadInput}.
ParsedLayout read_layout_arg(const std::string& text, const std::string& notation_option,
                             const std::string& arg_name = "<layout>", const std::vector<ParamSpec>* params = nullptr);

/// `NAME=LO..HI` or `NAME=LO..HI%MULTIPLE`; throws InputError with the reason.
ParamSpec parse_param_option(const std::string& text);

/// "cute" | "tirx" | "descriptor" | "" (auto) → Notation; throws ExitRequest on an unknown name.
std::optional<Notation> notation_from_option(const std::string& name);

}  // namespace lp::cli
