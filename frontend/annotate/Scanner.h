#pragma once
// Finds LayoutProof annotation statements in a file's text (docs/annotations.md, "Where
// annotations live"). The scanner knows just enough of each language to tell comments from code:
// C/C++/CUDA string, character and raw-string literals, `//` comments (with backslash-newline
// splices) and `/* */` blocks; Python strings (single, triple, prefixed) and `#` comments; and
// standalone `.lp` files, where every line is annotation text and `#` starts a comment.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/diag/Diagnostic.h"

#include "analyzer/support/ReadFile.h"
#include "analyzer/support/Vocabulary.h"

namespace lp::annotate {

enum class Language { CLike, Python, Standalone };

/// The language of a path, decided by its extension: .c .cc .cpp .cxx .h .hpp .cu .cuh are
/// C-like, .py is Python, .lp is standalone; nullopt for anything else.
std::optional<Language> language_for_path(std::string_view path);
/// How diagnostics name each language.
inline constexpr Vocabulary<Language, 3> kLanguageNames{
    {{Language::CLike, "C/C++/CUDA"}, {Language::Python, "Python"}, {Language::Standalone, "standalone .lp"}}};
const char* language_name(Language lang);

/// What one file may ask of the scanner. Exceeding a limit is a diagnostic, never a crash.
struct ScanLimits {
  size_t max_file_bytes = kMaxSourceFileBytes;
  size_t binary_probe_bytes = 8000;  ///< a NUL byte this early marks a binary file (git's rule)
  size_t max_line_bytes = 4096;      ///< a physical line that carries annotation text
  size_t max_continuation_lines = 64;
  size_t max_statements = 10000;
};

/// One statement as found in the file. `text` has exactly the bytes of the file range
/// [begin, end), except that everything between statement pieces (the `\` that continues a
/// line, comment openers, block-comment asterisks, repeated markers, carriage returns) is
/// replaced by spaces, newlines kept. So text[i] sits at file offset begin + i, and line and
/// column of any statement byte are the file's own.
struct RawStatement {
  size_t begin = 0, end = 0;
  std::string text;
  size_t lines = 1;  ///< physical lines it spans
};

struct ScanResult {
  std::vector<RawStatement> statements;
  std::vector<Diagnostic> diagnostics;
  bool skipped = false;  ///< binary or over-long file: nothing was scanned
};

/// The annotation marker in comments: `layoutproof:` (lowercase, then a colon).
inline constexpr std::string_view kMarker = "layoutproof:";

ScanResult scan(const std::shared_ptr<const SourceText>& file, Language lang, const ScanLimits& limits = {});

/// True for the words that begin a statement (used to recognise a misspelled marker).
bool is_statement_keyword(std::string_view word);

}  // namespace lp::annotate
