#include "analyzer/parse/Cursor.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "analyzer/ir/Checked.h"

namespace lp {

bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }

Cursor::Cursor(std::shared_ptr<const SourceText> src, ParseLimits limits, Symbols symbols)
    : src_(std::move(src)), limits_(limits), symbols_(symbols) {
  if (src_->text.size() > limits_.max_length)
    fail_at(0, fmt::format("layout text is {} bytes, more than the limit of {}", src_->text.size(),
                           limits_.max_length));
}

/// coeff * prod(params) / divisor + constant, or a constant when params is empty (coeff is then
/// unused); `at` is where it starts. divisor >= 1 shares no factor with coeff.
struct Cursor::Affine {
  int64_t constant = 0;
  int64_t coeff = 0, divisor = 1;
  std::vector<size_t> params;
  size_t at = 0;
  bool symbolic() const { return !params.empty(); }
};

namespace {

// coeff / divisor in lowest terms with a positive divisor.
void reduce(int64_t& coeff, int64_t& divisor) {
  const int64_t g = std::gcd(coeff < 0 ? -coeff : coeff, divisor);
  coeff /= g;
  divisor /= g;
}

}  // namespace

std::optional<int64_t> Cursor::constant(std::string_view name) const {
  if (symbols_.constants)
    for (const BoundConstant& b : *symbols_.constants)
      if (b.name == name) return b.value;
  return std::nullopt;
}

std::optional<IntExpr> Cursor::parse_int_expr(bool sums) {
  if (symbols_.empty()) return std::nullopt;
  skip_ws();
  const size_t save = pos_;
  // A name that is no symbol (`_8`, an axis) is the notation's own token: nothing is read.
  if (is_ident_start(peek_raw())) {
    const std::string name = parse_identifier();
    pos_ = save;
    if (!symbol(name)) return std::nullopt;
  }
  bool symbolic = false;
  Affine a;
  try {
    a = affine_sum(sums, symbolic);
  } catch (const OverflowError& e) {
    fail_at(save, e.what());
  }
  if (!symbolic) {
    pos_ = save;
    return std::nullopt;
  }
  IntExpr out;
  if (!a.symbolic()) {
    out.value = a.constant;
    return out;
  }
  ParamTerm t{a.params, a.coeff, a.divisor, a.constant};
  if (!t.exact_for(*symbols_.params)) {
    std::string declared;
    for (size_t p : t.params) {
      const ParamSpec& spec = (*symbols_.params)[p];
      declared += fmt::format("{}{} is declared % {}", declared.empty() ? "" : ", ", spec.name, spec.multiple);
    }
    fail_at(save, fmt::format("{} is not an integer for every admissible value ({}); declare the parameter a multiple "
                              "of {} (param NAME = LO..HI % {})",
                              t.text(*symbols_.params), declared, t.divisor, t.divisor));
  }
  out.value = instance_value(t);
  out.param = t;
  return out;
}

Cursor::Affine Cursor::affine_sum(bool sums, bool& symbolic) {
  Affine v = affine_product(symbolic);
  while (sums) {
    skip_ws();
    const size_t op = pos_;
    const char ch = peek_raw();
    if (ch != '+' && ch != '-') break;
    ++pos_;
    symbolic = true;
    Affine r = affine_product(symbolic);
    const int64_t sign = ch == '+' ? 1 : -1;
    v.constant = checked_add(v.constant, checked_mul(sign, r.constant, "integer expression"), "integer expression");
    if (!r.symbolic()) continue;
    if (!v.symbolic()) {
      v.params = r.params;
      v.coeff = checked_mul(sign, r.coeff, "integer expression");
      v.divisor = r.divisor;
      continue;
    }
    if (v.params != r.params)
      fail_at(op, fmt::format("'{}' and '{}' are two different terms of parameters in one extent or stride; one "
                              "product of parameters may appear, scaled and shifted (2*M+8, M*N/64)",
                              ParamTerm{v.params, v.coeff, v.divisor, 0}.text(*symbols_.params),
                              ParamTerm{r.params, r.coeff, r.divisor, 0}.text(*symbols_.params)));
    // c1/d1 + c2/d2 = (c1*d2 + c2*d1) / (d1*d2)
    v.coeff = checked_add(checked_mul(v.coeff, r.divisor, "integer expression"),
                          checked_mul(sign * r.coeff, v.divisor, "integer expression"), "integer expression");
    v.divisor = checked_mul(v.divisor, r.divisor, "integer expression");
    reduce(v.coeff, v.divisor);
    if (v.coeff == 0) {
      v.params.clear();
      v.divisor = 1;
    }
  }
  return v;
}

Cursor::Affine Cursor::affine_product(bool& symbolic) {
  Affine v = affine_atom(symbolic, true);
  while (true) {
    skip_ws();
    const size_t op = pos_;
    const char ch = peek_raw();
    if (ch != '*' && ch != '/') return v;
    ++pos_;
    symbolic = true;
    Affine r = affine_atom(symbolic, false);
    if (ch == '*') {
      if (v.symbolic() && r.symbolic()) {
        if (v.constant != 0 || r.constant != 0)
          fail_at(op, "a product of a shifted parameter term (D+8 names a sum); multiply parameters first, then "
                      "shift (M*N+8)");
        v.params.insert(v.params.end(), r.params.begin(), r.params.end());
        std::sort(v.params.begin(), v.params.end());
        v.coeff = checked_mul(v.coeff, r.coeff, "integer expression");
        v.divisor = checked_mul(v.divisor, r.divisor, "integer expression");
        reduce(v.coeff, v.divisor);
        continue;
      }
      if (r.symbolic()) std::swap(v, r);
      if (v.symbolic()) {
        v.coeff = checked_mul(v.coeff, r.constant, "integer expression");
        reduce(v.coeff, v.divisor);
        if (v.coeff == 0) {
          v.params.clear();
          v.divisor = 1;
        }
      }
      v.constant = checked_mul(v.constant, r.constant, "integer expression");
      continue;
    }
    if (r.symbolic()) fail_at(r.at, "a division by a parameter; divide only by integers and loop variables");
    if (r.constant == 0) fail_at(op, "division by zero");
    if (v.constant % r.constant != 0)
      fail_at(op, fmt::format("{} / {} is not an integer", v.constant, r.constant));
    v.constant /= r.constant;
    if (v.symbolic()) {
      if (r.constant < 0) {
        v.coeff = checked_neg(v.coeff, "integer expression");
        r.constant = checked_neg(r.constant, "integer expression");
      }
      v.divisor = checked_mul(v.divisor, r.constant, "integer expression");
      reduce(v.coeff, v.divisor);
    }
  }
}

Cursor::Affine Cursor::affine_atom(bool& symbolic, bool first) {
  skip_ws();
  Affine a;
  a.at = pos_;
  const bool negate = first && peek_raw() == '-' && !(peek_raw(1) >= '0' && peek_raw(1) <= '9');
  if (negate) {
    ++pos_;
    skip_ws();
    symbolic = true;
  }
  if (peek_raw() >= '0' && peek_raw() <= '9') {
    a.constant = parse_int("an integer");
  } else if (peek_raw() == '-' && first) {
    a.constant = parse_int("an integer");
  } else {
    const size_t at = pos_;
    std::string name = parse_identifier();
    if (name.empty()) fail_expected("an integer, a loop variable or a parameter");
    std::optional<Affine> value = symbol(name);
    if (!value) fail_at(at, fmt::format("'{}' is not a declared parameter or a loop variable", name));
    value->at = a.at;
    a = *value;
    symbolic = true;
  }
  if (negate) {
    a.constant = checked_neg(a.constant, "integer expression");
    if (a.symbolic()) a.coeff = checked_neg(a.coeff, "integer expression");
  }
  return a;
}

std::optional<Cursor::Affine> Cursor::symbol(const std::string& name) const {
  Affine a;
  if (std::optional<int64_t> v = constant(name)) {
    a.constant = *v;
    return a;
  }
  if (symbols_.derived)
    for (const DerivedParam& d : *symbols_.derived)
      if (d.name == name) {
        a.params = d.term.params;
        a.coeff = d.term.coeff;
        a.divisor = d.term.divisor;
        a.constant = d.term.offset;
        return a;
      }
  if (symbols_.params)
    for (size_t k = 0; k < symbols_.params->size(); ++k)
      if ((*symbols_.params)[k].name == name) {
        a.params = {k};
        a.coeff = 1;
        return a;
      }
  return std::nullopt;
}

int64_t Cursor::instance_value(const ParamTerm& t) {
  try {
    return t.value_at_end(*symbols_.params, true);
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
    if (std::optional<int64_t> v = constant(id)) return *v;
    fail_at(at, fmt::format("'{}' is not a number: layout texts must give every extent and stride "
                            "as an integer (bind parameters in an annotation)",
                            id));
  }
  fail_expected(const_what_);
}

}  // namespace lp
