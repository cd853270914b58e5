#include "frontend/cuda/CppTokens.h"

#include <cctype>
#include <stdexcept>

namespace lp::cuda {

namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

// Punctuators longest first: a launch's `<<<` and `>>>` are one token each.
constexpr std::string_view kPuncts[] = {"<<<", ">>>", "<<=", ">>=", "...", "->*", "::", "->", "++", "--", "<<", ">>",
                                        "<=",  ">=",  "==",  "!=",  "&&",  "||",  "+=", "-=", "*=", "/=", "%=", "&=",
                                        "|=",  "^=",  ".*"};

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& name, bool follow_markers) : t_(text), follow_(follow_markers) {
    out_.files.push_back(name);
    out_.system_file.push_back(false);
  }

  Tokens run() {
    bool line_start = true;
    while (i_ < t_.size()) {
      const char c = t_[i_];
      if (c == '\n') {
        ++line_;
        ++i_;
        line_start = true;
        continue;
      }
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i_;
        continue;
      }
      if (c == '#' && line_start) {
        directive();
        continue;
      }
      line_start = false;
      if (c == '/' && peek(1) == '/') {
        while (i_ < t_.size() && t_[i_] != '\n') ++i_;
        continue;
      }
      if (c == '/' && peek(1) == '*') {
        i_ += 2;
        while (i_ < t_.size() && !(t_[i_] == '*' && peek(1) == '/')) {
          if (t_[i_] == '\n') ++line_;
          ++i_;
        }
        i_ = std::min(t_.size(), i_ + 2);
        continue;
      }
      if (c == '"' || c == '\'') {
        literal(c);
        continue;
      }
      if (c == 'R' && peek(1) == '"') {
        raw_string();
        continue;
      }
      const size_t start = i_;
      if (ident_start(c)) {
        while (i_ < t_.size() && ident_char(t_[i_])) ++i_;
        push(Token::Kind::Identifier, start);
        continue;
      }
      if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && std::isdigit(static_cast<unsigned char>(peek(1))))) {
        // A pp-number: digits, letters, dots, digit separators and exponent signs.
        while (i_ < t_.size() &&
               (ident_char(t_[i_]) || t_[i_] == '.' || t_[i_] == '\'' ||
                ((t_[i_] == '+' || t_[i_] == '-') && (t_[i_ - 1] == 'e' || t_[i_ - 1] == 'E' || t_[i_ - 1] == 'p' || t_[i_ - 1] == 'P'))))
          ++i_;
        push(Token::Kind::Number, start);
        continue;
      }
      size_t len = 1;
      for (std::string_view p : kPuncts)
        if (t_.substr(i_, p.size()) == p) {
          len = p.size();
          break;
        }
      i_ += len;
      push(Token::Kind::Punct, start);
    }
    return std::move(out_);
  }

 private:
  char peek(size_t k) const { return i_ + k < t_.size() ? t_[i_ + k] : '\0'; }

  void push(Token::Kind kind, size_t start) {
    if (out_.tokens.size() >= kMaxTokens) throw std::length_error("more than 8M C++ tokens");
    out_.tokens.push_back(Token{kind, std::string(t_.substr(start, i_ - start)), file_, line_, start});
  }

  void literal(char quote) {
    ++i_;
    while (i_ < t_.size() && t_[i_] != quote && t_[i_] != '\n') {
      if (t_[i_] == '\\') ++i_;
      ++i_;
    }
    if (i_ < t_.size() && t_[i_] == quote) ++i_;
  }

  void raw_string() {
    // R"delim( ... )delim"
    const size_t open = t_.find('(', i_);
    if (open == std::string_view::npos) {
      i_ = t_.size();
      return;
    }
    const std::string close = ")" + std::string(t_.substr(i_ + 2, open - i_ - 2)) + "\"";
    const size_t end = t_.find(close, open);
    for (size_t k = i_; k < (end == std::string_view::npos ? t_.size() : end); ++k)
      if (t_[k] == '\n') ++line_;
    i_ = end == std::string_view::npos ? t_.size() : end + close.size();
  }

  // `# 12 "file" 1 3` (a line marker) or any other directive, with its continuation lines.
  void directive() {
    const size_t start = i_;
    size_t e = i_;
    size_t lines = 0;
    while (e < t_.size() && t_[e] != '\n') {
      if (t_[e] == '\\' && e + 1 < t_.size() && t_[e + 1] == '\n') {
        ++lines;
        ++e;
      }
      ++e;
    }
    const std::string_view d = t_.substr(start + 1, e - start - 1);
    i_ = e;
    line_ += lines;
    if (!follow_) return;
    size_t k = 0;
    while (k < d.size() && d[k] == ' ') ++k;
    if (d.substr(k, 4) == "line") k += 4;
    while (k < d.size() && d[k] == ' ') ++k;
    size_t n = 0, digits = 0;
    while (k < d.size() && std::isdigit(static_cast<unsigned char>(d[k])) && digits < 12) n = n * 10 + static_cast<size_t>(d[k++] - '0'), ++digits;
    if (digits == 0) return;
    while (k < d.size() && d[k] == ' ') ++k;
    std::string file = out_.files[static_cast<size_t>(file_)];
    bool system = out_.system_file[static_cast<size_t>(file_)];
    if (k < d.size() && d[k] == '"') {
      const size_t q = d.find('"', k + 1);
      if (q == std::string_view::npos) return;
      file = std::string(d.substr(k + 1, q - k - 1));
      system = d.substr(q + 1).find(" 3") != std::string_view::npos;
    }
    int index = -1;
    for (size_t f = 0; f < out_.files.size(); ++f)
      if (out_.files[f] == file) index = static_cast<int>(f);
    if (index < 0) {
      index = static_cast<int>(out_.files.size());
      out_.files.push_back(file);
      out_.system_file.push_back(system);
    }
    file_ = index;
    // The marker names the line of the line that follows it; the newline ending it adds one.
    line_ = n - 1;
  }

  std::string_view t_;
  bool follow_;
  size_t i_ = 0, line_ = 1;
  int file_ = 0;
  Tokens out_;
};

}  // namespace

Tokens tokenize(std::string_view text, const std::string& name, bool follow_markers) {
  return Lexer(text, name, follow_markers).run();
}

}  // namespace lp::cuda
