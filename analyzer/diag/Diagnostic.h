#pragma once
// Clang-style diagnostics: `file:line:col: error: message [rule-id]`, the source line, a caret
// under the offending column, then notes. Every front-end error in LayoutProof is one of these.
#include <cstddef>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/support/Vocabulary.h"
#include <string_view>
#include <vector>
#include "analyzer/support/Error.h"

namespace lp {

/// A named piece of text that diagnostics point into (a file, or a command-line argument).
/// Invariant: `text` is the exact bytes that byte offsets in SourceLoc refer to.
struct SourceText {
  std::string name;  ///< shown before the line number, e.g. "kernel.cu" or "<layout>"
  std::string text;
  /// Offset within the file at which `text` starts, used when a layout was cut out of a larger
  /// file so locations still name the file's own line and column.
  size_t line_base = 1;
  size_t col_base = 1;  ///< column of text[0] when it sits on line `line_base`
};

/// A byte offset into a SourceText. `source` may be null for messages without a location.
struct SourceLoc {
  std::shared_ptr<const SourceText> source;
  size_t offset = 0;
};

enum class Severity { Note, Warning, Error };

/// clang's words for the severities (SARIF's levels use the same ones), most severe first, as help
/// texts list them: the one table of their names, their parser and the lists of choices.
inline constexpr Vocabulary<Severity, 3> kSeverityNames{
    {{Severity::Error, "error"}, {Severity::Warning, "warning"}, {Severity::Note, "note"}}};
const char* severity_name(Severity s);
/// The severity named `name`; nullopt for any other word.
std::optional<Severity> severity_from_name(std::string_view name);
/// "error", "warning", "note", for a command line's choices.
std::vector<std::string> severity_names();
/// "error, warning or note".
std::string severity_choices();

struct Note {
  SourceLoc loc;  ///< may have a null source: then the note has no location line
  std::string message;
};

struct Diagnostic {
  Severity severity = Severity::Error;
  SourceLoc loc;
  std::string message;
  std::string rule_id;  ///< empty for front-end errors
  std::vector<Note> notes;

  /// Line and column (1-based) of `loc`, columns counted in bytes like clang.
  std::pair<size_t, size_t> line_col() const;
  /// The full clang-style rendering, ending with a newline.
  std::string render() const;
};

/// Exception carrying a diagnostic: what parsers and IR constructors throw on bad input.
class DiagnosticError : public Error {
 public:
  explicit DiagnosticError(Diagnostic d) : Error(d.message), diag_(std::move(d)) {}
  const Diagnostic& diagnostic() const { return diag_; }

 private:
  Diagnostic diag_;
};

/// Line and column of a byte offset (1-based), honouring the text's line/column base.
std::pair<size_t, size_t> line_col_of(const SourceText& src, size_t offset);

/// The bytes of the source line `loc` sits on, without its line terminator ("" without a source).
std::string source_line(const SourceLoc& loc);

}  // namespace lp
