#include "analyzer/parse/Cursor.h"

#include <fmt/format.h>

#include "analyzer/ir/Checked.h"

namespace lp {

bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }

Cursor::Cursor(std::shared_ptr<const SourceText> src, ParseLimits limits, const std::vector<ParamSpec>* params)
    : src_(std::move(src)), limits_(limits), params_(params) {
  if (src_->text.size() > limits_.max_length)
    fail_at(0, fmt::format("layout text is {} bytes, more than the limit of {}", src_->text.size(),
                           limits_.max_length));
}

std::optional<ParamTerm> Cursor::parse_param_term() {
  if (!params_ || params_->empty()) return std::nullopt;
  size_t save = pos_;
  auto find = [&](const std::string& name) -> std::optional<size_t> {
    for (size_t p = 0; p < params_->size(); ++p)
      if ((*params_)[p].name == name) return p;
    return std::nullopt;
  };
  skip_ws();
  int64_t coeff = 1;
  bool leading_number = false;
  if ((peek_raw() >= '0' && peek_raw() <= '9') || peek_raw() == '-') {
    coeff = parse_int("a coefficient");
    if (!consume("*")) {
      pos_ = save;
      return std::nullopt;
    }
    leading_number = true;
  }
  skip_ws();
  size_t at = pos_;
  std::string name = parse_identifier();
  auto p = name.empty() ? std::nullopt : find(name);
  if (!p) {
    if (leading_number && !name.empty()) fail_at(at, fmt::format("'{}' is not a declared parameter", name));
    pos_ = save;
    return std::nullopt;
  }
  if (!leading_number && consume("*")) coeff = parse_int("a coefficient after '*'");
  if (coeff == 0) fail_at(save, "a parameter term with coefficient 0");
  return ParamTerm{*p, coeff};
}

int64_t Cursor::instance_value(const ParamTerm& t) {
  try {
    return checked_mul(t.coeff, (*params_)[t.param].hi, "parameter term");
  } catch (const OverflowError& e) {
    fail_at(pos_, e.what());
  }
}

void Cursor::skip_ws() {
  const std::string& t = src_->text;
  while (pos_ < t.size() && (t[pos_] == ' ' || t[pos_] == '\t' || t[pos_] == '\n' || t[pos_] == '\r'))
    ++pos_;
}

bool Cursor::at_end() {
  skip_ws();
  return pos_ >= src_->text.size();
}

char Cursor::peek_raw(size_t ahead) const {
  size_t p = pos_ + ahead;
  return p < src_->text.size() ? src_->text[p] : '\0';
}

char Cursor::peek() {
  skip_ws();
  return peek_raw();
}

bool Cursor::looking_at(std::string_view s) {
  skip_ws();
  if (text().substr(pos_, s.size()) != s) return false;
  if (!s.empty() && is_ident_char(s.back()) && is_ident_char(peek_raw(s.size()))) return false;
  return true;
}

bool Cursor::consume(std::string_view s) {
  if (!looking_at(s)) return false;
  pos_ += s.size();
  return true;
}

void Cursor::expect(std::string_view s, std::string_view context) {
  if (consume(s)) return;
  fail_expected(fmt::format("'{}' {}", s, context));
}

std::string Cursor::describe_here() {
  skip_ws();
  if (pos_ >= src_->text.size()) return "end of input";
  unsigned char c = static_cast<unsigned char>(src_->text[pos_]);
  if (c < 0x20 || c >= 0x7f) return fmt::format("byte 0x{:02X}", c);
  if (is_ident_char(static_cast<char>(c))) {
    size_t e = pos_;
    while (e < src_->text.size() && is_ident_char(src_->text[e]) && e - pos_ < 40) ++e;
    return fmt::format("'{}'", src_->text.substr(pos_, e - pos_));
  }
  return fmt::format("'{}'", static_cast<char>(c));
}

void Cursor::fail_at(size_t offset, const std::string& message) const {
  Diagnostic d;
  d.loc = SourceLoc{src_, offset};
  d.message = message;
  throw DiagnosticError(std::move(d));
}

void Cursor::fail_expected(std::string_view what) {
  std::string found = describe_here();
  fail_at(pos_, fmt::format("expected {}, found {}", what, found));
}

Cursor::Depth::Depth(Cursor& c) : c_(c) {
  if (++c_.depth_ > c_.limits_.max_depth) {
    --c_.depth_;
    c_.fail_at(c_.pos_, fmt::format("nesting deeper than {} levels", c_.limits_.max_depth));
  }
}

int64_t Cursor::parse_int(std::string_view what) {
  skip_ws();
  size_t start = pos_;
  bool neg = false;
  if (peek_raw() == '-') {
    neg = true;
    ++pos_;
  }
  if (!(peek_raw() >= '0' && peek_raw() <= '9')) {
    pos_ = start;
    fail_expected(what);
  }
  // Accumulate negatively so INT64_MIN is representable.
  int64_t v = 0;
  while (peek_raw() >= '0' && peek_raw() <= '9') {
    int digit = peek_raw() - '0';
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_sub_overflow(v, digit, &v))
      fail_at(start, fmt::format("integer literal does not fit in 64 bits (limit {})",
                                 neg ? "-2^63" : "2^63-1"));
    ++pos_;
  }
  if (!neg) {
    if (v == INT64_MIN) fail_at(start, "integer literal does not fit in 64 bits (limit 2^63-1)");
    v = -v;
  }
  return v;
}

std::string Cursor::parse_identifier() {
  skip_ws();
  if (!is_ident_start(peek_raw())) return {};
  size_t s = pos_;
  while (is_ident_char(peek_raw())) ++pos_;
  return std::string(text().substr(s, pos_ - s));
}

int64_t Cursor::parse_const_expr(std::string_view what) {
  skip_ws();
  size_t start = pos_;
  const_what_ = what;
  try {
    return const_sum();
  } catch (const OverflowError& e) {
    fail_at(start, fmt::format("{} in {}", e.what(), what));
  }
}

int64_t Cursor::parse_const_term(std::string_view what) {
  skip_ws();
  size_t start = pos_;
  const_what_ = what;
  try {
    return const_product();
  } catch (const OverflowError& e) {
    fail_at(start, fmt::format("{} in {}", e.what(), what));
  }
}

int64_t Cursor::const_sum() {
  int64_t v = const_product();
  while (true) {
    if (consume("+")) v = checked_add(v, const_product(), "constant expression");
    else if (peek() == '-' ) {
      ++pos_;
      v = checked_sub(v, const_product(), "constant expression");
    } else return v;
  }
}

int64_t Cursor::const_product() {
  int64_t v = const_atom();
  while (true) {
    skip_ws();
    size_t op = pos_;
    if (consume("*")) {
      v = checked_mul(v, const_atom(), "constant expression");
    } else if (consume("//")) {
      int64_t d = const_atom();
      if (d == 0) fail_at(op, "division by zero");
      int64_t q = v / d;
      if ((v % d != 0) && ((v < 0) != (d < 0))) --q;  // floor, as Python's //
      v = q;
    } else if (consume("/")) {
      int64_t d = const_atom();
      if (d == 0) fail_at(op, "division by zero");
      if (v % d != 0) fail_at(op, fmt::format("{} / {} is not an integer", v, d));
      v /= d;
    } else if (consume("%")) {
      int64_t d = const_atom();
      if (d == 0) fail_at(op, "modulo by zero");
      v %= d;
    } else {
      return v;
    }
  }
}

int64_t Cursor::const_atom() {
  Depth guard(*this);
  skip_ws();
  if (consume("(")) {
    int64_t v = const_sum();
    expect(")", "to close the parenthesised expression");
    return v;
  }
  if (peek() == '-') {
    ++pos_;
    return checked_neg(const_atom(), "constant expression");
  }
  if (peek() == '+') {
    ++pos_;
    return const_atom();
  }
  if (peek_raw() >= '0' && peek_raw() <= '9') return parse_int(const_what_);
  if (is_ident_start(peek_raw())) {
    size_t at = pos_;
    std::string id = parse_identifier();
    fail_at(at, fmt::format("'{}' is not a number: layout texts must give every extent and stride "
                            "as an integer (bind parameters in an annotation)",
                            id));
  }
  fail_expected(const_what_);
}

}  // namespace lp
