#pragma once
// Shared by the libFuzzer targets of fuzz/: what follows parsing a layout (evaluation at a few
// points, printing in every notation and reparsing the printed text). Only the documented error
// types of each step are caught; anything else (another exception, a sanitizer report, a hang)
// is a finding.
#include <cstdint>
#include <optional>
#include <string>

#include "analyzer/diag/Diagnostic.h"
#include "analyzer/ir/Checked.h"
#include "analyzer/ir/Layout.h"
#include "analyzer/ir/Print.h"
#include "analyzer/parse/Parsers.h"

namespace lp::fuzz {

/// Evaluates `layout` at its first, last and a middle index (LayoutError, OverflowError allowed).
inline void evaluate_some(const Layout& layout) {
  try {
    if (!layout.has_domain()) return;
    int64_t n = layout.size();
    // images(i) lists every replica combination (up to kMaxEnumeration, refused above): bounded,
    // but millions of points per call would make the fuzzer crawl, so list only small sets.
    const bool list = layout.replica_count() <= 4096 || layout.replica_count() > kMaxEnumeration;
    for (int64_t i : {int64_t{0}, n / 2, n - 1}) {
      if (i < 0 || i >= n) continue;
      if (list) (void)layout.images(i);
      if (layout.is_scalar()) (void)layout.offset_at(i);
    }
    (void)layout.cosize();
    // Enumeration is bounded by kMaxEnumeration; keep the fuzzer fast with a smaller cut.
    if (n <= 4096 && layout.replica_count() <= 64) (void)image(layout);
  } catch (const LayoutError&) {
  } catch (const OverflowError&) {
  }
}

/// Prints `layout` in every notation (ConversionError allowed) and reparses the printed text.
inline void print_and_reparse(const Layout& layout) {
  for (Notation n : {Notation::Cute, Notation::Tirx, Notation::Descriptor}) {
    std::optional<Printed> printed;
    try {
      printed = print(layout, n);
    } catch (const ConversionError&) {
      continue;
    } catch (const OverflowError&) {
      continue;
    }
    try {
      ParsedLayout again = parse_layout_text(printed->text, "<printed>", n);
      evaluate_some(again.layout);
    } catch (const DiagnosticError&) {
    } catch (const LayoutError&) {
    } catch (const OverflowError&) {
    }
  }
}

/// Parses `text` in `notation` (nullopt: detected) and runs what follows parsing.
inline void parse_layout_and_use(std::string text, std::optional<Notation> notation) {
  std::optional<ParsedLayout> parsed;
  try {
    parsed = parse_layout_text(std::move(text), "<fuzz>", notation);
  } catch (const DiagnosticError& e) {
    (void)e.diagnostic().render();  // rendering the caret line is part of the error path
    return;
  }
  evaluate_some(parsed->layout);
  print_and_reparse(parsed->layout);
}

}  // namespace lp::fuzz
