#include "frontend/annotate/Scanner.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>

namespace lp::annotate {

namespace {

constexpr size_t npos = std::string::npos;

/// One line of comment text: the bytes after the comment opener (or a whole line of a block
/// comment, or a whole .lp line without its `#` comment), carriage return excluded.
struct CommentLine {
  size_t begin = 0, end = 0;
  size_t comment = 0;       ///< index of the comment it belongs to
  bool whole_line = false;  ///< nothing but whitespace before it on its physical line
  bool block = false;       ///< inside a /* */ comment
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r'; }
bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

size_t eol(const std::string& t, size_t i) {
  size_t e = t.find('\n', i);
  return e == npos ? t.size() : e;
}

size_t line_start(const std::string& t, size_t i) {
  size_t s = i == 0 ? npos : t.rfind('\n', i - 1);
  return s == npos ? 0 : s + 1;
}

// Content end of a line ending at `e`: a carriage return before the newline is not content.
size_t trim_cr(const std::string& t, size_t b, size_t e) { return (e > b && t[e - 1] == '\r') ? e - 1 : e; }

bool only_space_before(const std::string& t, size_t i) {
  for (size_t k = line_start(t, i); k < i; ++k)
    if (!is_space(t[k])) return false;
  return true;
}

// Position of a trailing backslash in [b, e) ignoring trailing whitespace, or npos.
size_t trailing_backslash(const std::string& t, size_t b, size_t e) {
  while (e > b && is_space(t[e - 1])) --e;
  return (e > b && t[e - 1] == '\\') ? e - 1 : npos;
}

size_t skip_space(const std::string& t, size_t i, size_t e) {
  while (i < e && is_space(t[i])) ++i;
  return i;
}

Diagnostic make_diag(const std::shared_ptr<const SourceText>& src, size_t offset, Severity sev, std::string msg) {
  Diagnostic d;
  d.severity = sev;
  d.loc = SourceLoc{src, offset};
  d.message = std::move(msg);
  return d;
}

// A quoted literal that cannot span lines ("..." or '...' in C, '...' in Python): ends at the
// closing quote, or (unterminated) before the newline. A backslash escapes the next byte.
size_t skip_quoted(const std::string& t, size_t i, char q) {
  size_t j = i + 1;
  while (j < t.size()) {
    if (t[j] == '\\') {
      j += 2;
    } else if (t[j] == q) {
      return j + 1;
    } else if (t[j] == '\n') {
      return j;
    } else {
      ++j;
    }
  }
  return t.size();
}

class Lexer {
 public:
  Lexer(const std::shared_ptr<const SourceText>& src, std::vector<Diagnostic>& diags)
      : src_(src), t_(src->text), diags_(diags) {}

  std::vector<CommentLine> lex(Language lang) {
    switch (lang) {
      case Language::CLike: lex_c(); break;
      case Language::Python: lex_python(); break;
      case Language::Standalone: lex_standalone(); break;
    }
    return std::move(lines_);
  }

 private:
  void push(size_t b, size_t e, bool whole, bool block) { lines_.push_back({b, e, comment_, whole, block}); }

  void lex_c() {
    const size_t n = t_.size();
    size_t i = 0;
    while (i < n) {
      char c = t_[i];
      if (c == '/' && i + 1 < n && t_[i + 1] == '/') {
        i = line_comment(i);
      } else if (c == '/' && i + 1 < n && t_[i + 1] == '*') {
        i = block_comment(i);
      } else if (c == '"' || c == '\'') {
        i = skip_quoted(t_, i, c);
      } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        size_t j = i;
        while (j < n && is_word_char(t_[j])) ++j;
        std::string_view word(t_.data() + i, j - i);
        bool raw_prefix = word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR";
        i = (raw_prefix && j < n && t_[j] == '"') ? raw_string(i, j) : j;
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        i = pp_number(i);
      } else {
        ++i;
      }
    }
  }

  // `//` to the end of the line; a backslash ending the line splices the next line into the
  // comment, as the C preprocessor does (GCC and Clang allow whitespace after the backslash).
  size_t line_comment(size_t i) {
    const bool whole = only_space_before(t_, i);
    size_t b = i + 2;
    bool first = true;
    for (;;) {
      size_t e = eol(t_, b);
      size_t ce = trim_cr(t_, b, e);
      push(b, ce, first ? whole : true, false);
      if (e < t_.size() && trailing_backslash(t_, b, ce) != npos) {
        b = e + 1;
        first = false;
        continue;
      }
      ++comment_;
      return e;
    }
  }

  size_t block_comment(size_t i) {
    const bool whole = only_space_before(t_, i);
    size_t b = i + 2;
    size_t close = t_.find("*/", b);
    size_t stop = close == npos ? t_.size() : close;
    if (close == npos)
      diags_.push_back(make_diag(src_, i, Severity::Warning,
                                 "unterminated '/*' comment: it runs to the end of the file"));
    bool first = true;
    for (size_t s = b;;) {
      size_t e = std::min(eol(t_, s), stop);
      push(s, e == stop ? e : trim_cr(t_, s, e), first ? whole : true, true);
      if (e >= stop) break;
      s = e + 1;
      first = false;
    }
    ++comment_;
    return close == npos ? t_.size() : close + 2;
  }

  // R"delim( ... )delim" with a delimiter of at most 16 characters; anything else after R is an
  // ordinary string, which the caller lexes next.
  size_t raw_string(size_t start, size_t quote) {
    size_t k = quote + 1;
    while (k < t_.size() && k - quote - 1 <= 16 && t_[k] != '(' &&
           !(t_[k] == ')' || t_[k] == '\\' || t_[k] == '"' || std::isspace(static_cast<unsigned char>(t_[k]))))
      ++k;
    if (k >= t_.size() || t_[k] != '(' || k - quote - 1 > 16) return quote;
    std::string closing = ")" + t_.substr(quote + 1, k - quote - 1) + "\"";
    size_t end = t_.find(closing, k + 1);
    if (end == npos) {
      diags_.push_back(make_diag(src_, start, Severity::Warning,
                                 "unterminated raw string literal: the rest of the file is not searched for annotations"));
      return t_.size();
    }
    return end + closing.size();
  }

  // A preprocessing number: digits, letters, '.', exponent signs and C++14 digit separators, so
  // the `'` in 1'000 does not open a character literal.
  size_t pp_number(size_t i) {
    size_t j = i + 1;
    while (j < t_.size()) {
      char ch = t_[j];
      if (is_word_char(ch) || ch == '.') {
        ++j;
      } else if (ch == '\'' && j + 1 < t_.size() && is_word_char(t_[j + 1])) {
        j += 2;
      } else if ((ch == '+' || ch == '-') && std::string_view("eEpP").find(t_[j - 1]) != std::string_view::npos) {
        ++j;
      } else {
        break;
      }
    }
    return j;
  }

  void lex_python() {
    const size_t n = t_.size();
    size_t i = 0;
    while (i < n) {
      char c = t_[i];
      if (c == '#') {
        size_t e = eol(t_, i);
        push(i + 1, trim_cr(t_, i + 1, e), only_space_before(t_, i), false);
        ++comment_;
        i = e;
      } else if (c == '"' || c == '\'') {
        i = python_string(i, c);
      } else {
        ++i;
      }
    }
  }

  size_t python_string(size_t i, char q) {
    const std::string triple(3, q);
    if (t_.compare(i, 3, triple) != 0) return skip_quoted(t_, i, q);
    for (size_t j = i + 3; j < t_.size();) {
      if (t_[j] == '\\') {
        j += 2;
      } else if (t_.compare(j, 3, triple) == 0) {
        return j + 3;
      } else {
        ++j;
      }
    }
    diags_.push_back(make_diag(src_, i, Severity::Warning,
                               "unterminated triple-quoted string: the rest of the file is not searched for annotations"));
    return t_.size();
  }

  // Every line is annotation text up to a `#` outside a "..." string or a `...` layout.
  void lex_standalone() {
    for (size_t s = 0; s < t_.size();) {
      size_t e = eol(t_, s), ce = trim_cr(t_, s, e), cut = ce;
      char quote = 0;
      for (size_t k = s; k < ce; ++k) {
        char ch = t_[k];
        if (quote) {
          if (ch == '\\' && quote == '"') ++k;
          else if (ch == quote) quote = 0;
        } else if (ch == '"' || ch == '`') {
          quote = ch;
        } else if (ch == '#') {
          cut = k;
          break;
        }
      }
      push(s, cut, true, false);
      ++comment_;
      s = e + 1;
    }
  }

  std::shared_ptr<const SourceText> src_;
  const std::string& t_;
  std::vector<Diagnostic>& diags_;
  std::vector<CommentLine> lines_;
  size_t comment_ = 0;
};

constexpr std::array<std::string_view, 16> kKeywords = {"smem",    "tmem",   "regs",    "global", "param",  "arch",
                                                        "access",  "tma",    "wgmma",   "tcgen05", "compose", "divide",
                                                        "product", "covers", "expect", "allow"};

bool iequals_prefix(const std::string& t, size_t i, size_t e, std::string_view word) {
  if (e - i < word.size()) return false;
  for (size_t k = 0; k < word.size(); ++k)
    if (std::tolower(static_cast<unsigned char>(t[i + k])) != word[k]) return false;
  return true;
}

class Extractor {
 public:
  Extractor(const std::shared_ptr<const SourceText>& src, Language lang, const ScanLimits& limits,
            std::vector<CommentLine> lines, ScanResult& out)
      : src_(src), t_(src->text), lang_(lang), limits_(limits), lines_(std::move(lines)), out_(out) {}

  void run() {
    for (size_t k = 0; k < lines_.size(); ++k) {
      std::optional<size_t> start = statement_start(lines_[k]);
      if (!start) continue;
      if (out_.statements.size() >= limits_.max_statements) {
        error(*start, fmt::format("more than {} annotation statements in one file; the rest are not read",
                                  limits_.max_statements));
        return;
      }
      k = collect(k, *start);
    }
  }

 private:
  struct Piece {
    size_t begin, end;  ///< statement text on one line; end excludes a continuing backslash
  };

  void error(size_t offset, std::string msg) { out_.diagnostics.push_back(make_diag(src_, offset, Severity::Error, std::move(msg))); }

  // Skips the whitespace, block-comment asterisks and (where allowed) the marker that precede
  // statement text on a line.
  size_t skip_prefix(const CommentLine& l, bool continuation) const {
    size_t p = skip_space(t_, l.begin, l.end);
    if (l.block) {
      while (p < l.end && (t_[p] == '*' || t_[p] == '!')) ++p;
      p = skip_space(t_, p, l.end);
    }
    if (continuation && lang_ == Language::CLike && !l.block && p + 2 <= l.end && t_.compare(p, 2, "//") == 0)
      p = skip_space(t_, p + 2, l.end);
    if ((continuation || lang_ == Language::Standalone) && p + kMarker.size() <= l.end &&
        t_.compare(p, kMarker.size(), kMarker) == 0)
      p = skip_space(t_, p + kMarker.size(), l.end);
    return p;
  }

  // Where the statement on this line starts, or nullopt if the line carries none.
  std::optional<size_t> statement_start(const CommentLine& l) {
    size_t p = skip_prefix(l, false);
    if (lang_ == Language::Standalone) {
      if (p == l.end) return std::nullopt;
      return p;
    }
    if (p + kMarker.size() <= l.end && t_.compare(p, kMarker.size(), kMarker) == 0) return p + kMarker.size();
    // `LayoutProof smem ...` or `layoutproof smem ...`: an annotation the user meant to write;
    // ignoring it would silently drop a check.
    if (iequals_prefix(t_, p, l.end, "layoutproof")) {
      size_t q = p + 11;
      if (q < l.end && is_word_char(t_[q])) return std::nullopt;
      q = skip_space(t_, q, l.end);
      if (q < l.end && t_[q] == ':') q = skip_space(t_, q + 1, l.end);
      size_t w = q;
      while (w < l.end && is_word_char(t_[w])) ++w;
      if (is_statement_keyword(std::string_view(t_.data() + q, w - q)))
        error(p, "malformed annotation marker: write 'layoutproof:' in lowercase, followed by a colon");
    }
    return std::nullopt;
  }

  // Gathers the statement starting on line k at `start` and its continuation lines; returns the
  // index of the last line consumed.
  size_t collect(size_t k, size_t start) {
    std::vector<Piece> pieces;
    bool ok = true;
    size_t b = start;
    for (;;) {
      const CommentLine& l = lines_[k];
      size_t ls = line_start(t_, l.begin), le = trim_cr(t_, ls, eol(t_, l.begin));
      if (ok && le - ls > limits_.max_line_bytes) {
        error(ls + limits_.max_line_bytes, fmt::format("annotation line is {} bytes long; the limit is {}", le - ls,
                                                      limits_.max_line_bytes));
        ok = false;
      }
      size_t bs = trailing_backslash(t_, b, l.end);
      pieces.push_back({b, bs == npos ? l.end : bs});
      if (bs == npos) break;
      if (ok && pieces.size() > limits_.max_continuation_lines) {
        error(bs, fmt::format("more than {} continuation lines in one statement", limits_.max_continuation_lines));
        ok = false;
      }
      std::optional<std::string> why = continuation_problem(k);
      if (why) {
        if (ok) error(bs, *why);
        ok = false;
        break;
      }
      ++k;
      b = skip_prefix(lines_[k], true);
      if (b == lines_[k].end) {
        if (ok) error(bs, "the statement continues with '\\' but the next line is empty; expected more of the statement");
        ok = false;
        break;
      }
    }
    if (ok) emit(pieces);
    return k;
  }

  // Why line k's statement cannot continue onto line k + 1, or nullopt if it can.
  std::optional<std::string> continuation_problem(size_t k) const {
    const CommentLine& l = lines_[k];
    bool has_next = k + 1 < lines_.size();
    if (l.block || (lang_ == Language::CLike && !l.block)) {
      // Block comments continue inside the same comment; `//` comments through the splice.
      if (has_next && lines_[k + 1].comment == l.comment) return std::nullopt;
      return l.block ? "the statement continues with '\\' but its comment ends here; continue it inside the same comment"
                     : "the statement continues with '\\' but the file ends here";
    }
    size_t next_line_begin = eol(t_, l.begin) + 1;
    if (has_next && lines_[k + 1].whole_line && line_start(t_, lines_[k + 1].begin) == next_line_begin)
      return std::nullopt;
    if (lang_ == Language::Python)
      return "the statement continues with '\\' but the next line is not a '#' comment; expected the rest of the "
             "statement in a '#' comment on the next line";
    return "the statement continues with '\\' but the file ends here";
  }

  void emit(const std::vector<Piece>& pieces) {
    RawStatement r;
    r.begin = pieces.front().begin;
    r.end = pieces.back().end;
    r.text = t_.substr(r.begin, r.end - r.begin);
    r.lines = pieces.size();
    for (size_t p = 0; p + 1 < pieces.size(); ++p)
      for (size_t i = pieces[p].end; i < pieces[p + 1].begin; ++i)
        if (r.text[i - r.begin] != '\n') r.text[i - r.begin] = ' ';
    for (char& ch : r.text)
      if (ch == '\r') ch = ' ';
    out_.statements.push_back(std::move(r));
  }

  std::shared_ptr<const SourceText> src_;
  const std::string& t_;
  Language lang_;
  const ScanLimits& limits_;
  std::vector<CommentLine> lines_;
  ScanResult& out_;
};

}  // namespace

std::optional<Language> language_for_path(std::string_view path) {
  size_t slash = path.find_last_of("/\\");
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  size_t dot = base.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return std::nullopt;
  std::string ext(base.substr(dot + 1));
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::string_view e : {"c", "cc", "cpp", "cxx", "h", "hpp", "cu", "cuh"})
    if (ext == e) return Language::CLike;
  if (ext == "py") return Language::Python;
  if (ext == "lp") return Language::Standalone;
  return std::nullopt;
}

const char* language_name(Language lang) { return vocabulary_name(kLanguageNames, lang, "unknown"); }

bool is_statement_keyword(std::string_view word) {
  return std::find(kKeywords.begin(), kKeywords.end(), word) != kKeywords.end();
}

ScanResult scan(const std::shared_ptr<const SourceText>& file, Language lang, const ScanLimits& limits) {
  ScanResult out;
  const std::string& t = file->text;
  if (t.size() > limits.max_file_bytes) {
    out.diagnostics.push_back(make_diag(file, 0, Severity::Error,
                                        fmt::format("file is {} bytes; the limit is {} bytes, so it is not read",
                                                    t.size(), limits.max_file_bytes)));
    out.skipped = true;
    return out;
  }
  size_t nul = t.find('\0');
  if (nul != npos && nul < limits.binary_probe_bytes) {
    out.diagnostics.push_back(make_diag(
        file, nul, Severity::Error,
        fmt::format("binary file (NUL byte at offset {}); expected {} text, so it is skipped", nul, language_name(lang))));
    out.skipped = true;
    return out;
  }
  Lexer lexer(file, out.diagnostics);
  std::vector<CommentLine> lines = lexer.lex(lang);
  Extractor(file, lang, limits, std::move(lines), out).run();
  return out;
}

}  // namespace lp::annotate
