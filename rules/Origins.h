#pragma once
// Findings on generated statements (`; at "FILE":LINE`, docs/cute.md) are reported where the
// statement was generated: a probe's call site. The statement itself becomes the first note.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "frontend/annotate/AnnotationParser.h"
#include "findings/Finding.h"

namespace lp::rules {

/// The text of a generating file, when the run may show it (nullopt: only its name and line).
using OriginText = std::function<std::optional<std::string>(const std::string& file)>;

/// Moves every finding located in a statement of `file` that has an `at` clause to that clause's
/// FILE:LINE. Obligations stay where they were decided: the generated statement itself.
void move_to_origins(const annotate::ParseResult& file, std::vector<rules::Finding>& findings, const OriginText& text_of);

}  // namespace lp::rules
