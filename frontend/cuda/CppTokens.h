#pragma once
// C++ tokens of a CUDA source or of its preprocessed host code (nvcc -E), enough to find kernel
// definitions and kernel launches: identifiers, numbers, punctuators (`<<<` and `>>>` as one
// token each), with comments, string and character literals skipped and preprocessor line
// markers (`# 12 "file.cu" 3`) followed, so every token knows the file and line it came from.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace lp::cuda {

struct Token {
  enum class Kind { Identifier, Number, Punct };
  Kind kind = Kind::Punct;
  std::string text;
  int file = 0;       ///< index into Tokens::files
  size_t line = 0;    ///< 1-based, in that file
  size_t offset = 0;  ///< byte offset in the text that was tokenized
  bool is(std::string_view s) const { return text == s; }
};

struct Tokens {
  std::vector<Token> tokens;
  std::vector<std::string> files;   ///< files named by line markers; [0] is the text's own name
  std::vector<bool> system_file;    ///< a line marker's flag 3: a system header
};

/// Limits on what a hostile input may cost.
inline constexpr size_t kMaxTokens = size_t{8} << 20;

/// Tokenizes `text` (named `name`). Preprocessor directives other than line markers are skipped;
/// with `follow_markers`, `# LINE "FILE" FLAGS` lines set the file and line of what follows.
/// Throws std::length_error past kMaxTokens.
Tokens tokenize(std::string_view text, const std::string& name, bool follow_markers);

}  // namespace lp::cuda
