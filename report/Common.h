#pragma once
// Helpers shared by the report writers: names, positions, deterministic ordering, the summary
// counts, and byte-level sanitising of untrusted text (messages and source lines come from user
// files and may hold anything).
#include <string>
#include <string_view>
#include <vector>

#include "report/Findings.h"

namespace lp::report {

using rules::kind_name;

/// Where a location points, as reports print it. Line and column are 0 without a source.
struct Position {
  std::string file;
  size_t line = 0;
  size_t column = 0;  ///< 1-based, in bytes like clang
};
Position position_of(const SourceLoc& loc);
/// `file:line:column`, or "" without a location.
std::string location_text(const SourceLoc& loc);

/// Findings (or obligations) ordered by file, line, column, rule, then message/description, so
/// every format lists them identically whatever order the checker produced them in.
std::vector<const Finding*> sorted_findings(const std::vector<Finding>& findings);
std::vector<const Obligation*> sorted_obligations(const std::vector<Obligation>& obligations);

struct Summary {
  size_t findings = 0;  ///< violations and invalid annotations (not unknowns)
  size_t errors = 0, warnings = 0, notes = 0;  ///< of `findings`, by severity
  size_t unknowns = 0;
  size_t baselined = 0;
  size_t files = 0;  ///< distinct files checked or named by a finding/obligation
  size_t obligations = 0;
  size_t proven = 0;
};
/// Counts `f` in `s`: as an unknown, or as a finding of its severity.
void count_finding(Summary& s, const Finding& f);
Summary summarize(const CheckRun& run);

/// Decodes UTF-8, calling `emit(code_point, valid)` per character; each byte of an invalid or
/// overlong sequence is reported alone with valid == false.
template <class F>
void for_each_code_point(std::string_view s, F&& emit) {
  size_t i = 0;
  while (i < s.size()) {
    auto b0 = static_cast<unsigned char>(s[i]);
    size_t len = b0 < 0x80 ? 1 : (b0 >> 5) == 0x6 ? 2 : (b0 >> 4) == 0xE ? 3 : (b0 >> 3) == 0x1E ? 4 : 0;
    char32_t cp = len == 1 ? b0 : len == 2 ? (b0 & 0x1F) : len == 3 ? (b0 & 0x0F) : (b0 & 0x07);
    bool ok = len != 0 && i + len <= s.size();
    for (size_t k = 1; ok && k < len; ++k) {
      auto b = static_cast<unsigned char>(s[i + k]);
      ok = (b >> 6) == 0x2;
      cp = (cp << 6) | (b & 0x3F);
    }
    static constexpr char32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    ok = ok && cp >= kMin[len] && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
    if (ok) {
      emit(cp, true);
      i += len;
    } else {
      emit(static_cast<char32_t>(b0), false);
      ++i;
    }
  }
}

void append_utf8(std::string& out, char32_t cp);

/// One terminal-safe line: line breaks and tabs become spaces, other control characters
/// (ESC included) and invalid UTF-8 bytes become '?'; valid non-ASCII text is kept.
std::string one_line(std::string_view s);

}  // namespace lp::report
