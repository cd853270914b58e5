#pragma once
// The scanner every layout parser shares: positions into one SourceText, whitespace skipping,
// checked integer literals, a nesting-depth limit, and errors as clang-style diagnostics with a
// caret and what was expected.
#include <cstdint>
#include <memory>
#include <string>
#include <optional>
#include <string_view>
#include <vector>

#include "analyzer/diag/Diagnostic.h"
#include "analyzer/ir/Parametric.h"

namespace lp {

/// A name bound to one value while a group of annotation statements is instantiated
/// (`for D in 64, 128 { ... }`): in a layout it reads as that integer.
struct BoundConstant {
  std::string name;
  int64_t value = 0;
};

/// A name for a term of one parameter (`param S = 2*D`): where a layout writes it, the term
/// stands, so one size is one variable.
struct DerivedParam {
  std::string name;
  ParamTerm term;
};

/// The names a layout text may use for integers: declared parameters (symbolic, recorded as
/// ParamUses), derived parameters (terms of those) and bound constants (replaced by their
/// values). Any may be null.
struct Symbols {
  Symbols(const std::vector<ParamSpec>* params = nullptr, const std::vector<BoundConstant>* constants = nullptr,
          const std::vector<DerivedParam>* derived = nullptr)
      : params(params), constants(constants), derived(derived) {}
  const std::vector<ParamSpec>* params;
  const std::vector<BoundConstant>* constants;
  const std::vector<DerivedParam>* derived;
  bool empty() const {
    return (!params || params->empty()) && (!constants || constants->empty()) && (!derived || derived->empty());
  }
};

/// An integer written as an expression over symbols: its value in the parsed instance (every
/// parameter at its largest value) and, when it uses a parameter, the term.
struct IntExpr {
  int64_t value = 0;
  std::optional<ParamTerm> param;
};

/// Limits on what a user's text may ask of a parser.
struct ParseLimits {
  size_t max_depth = 64;           ///< nesting of tuples, groups and calls
  size_t max_length = 1 << 20;     ///< bytes of one layout text
};

class Cursor {
 public:
  Cursor(std::shared_ptr<const SourceText> src, ParseLimits limits = {}, Symbols symbols = {});

  /// If symbols exist and the text here is an integer expression that uses one (`M`, `2*M+8`,
  /// `D/2`, `M*N`), consumes it; a plain literal is left for the notation's own reader (`_8`, `8@1`).
  /// `sums`: whether `+` and `-` join terms (not where `+` separates a notation's own terms).
  /// An expression is one ParamTerm: a product of parameters, scaled, divided and shifted; bound
  /// constants may appear anywhere; a division must be exact for every admissible value (`D/2`
  /// needs D declared a multiple of 2) and never divides by a parameter. No parentheses (they are
  /// tuples).
  std::optional<IntExpr> parse_int_expr(bool sums = true);
  /// The value a parameter term takes in the parsed instance (the parameter's largest value).
  int64_t instance_value(const ParamTerm& t);
  const Symbols& symbols() const { return symbols_; }
  /// The value of a bound constant named `name`, if one is bound.
  std::optional<int64_t> constant(std::string_view name) const;
  /// Where build_layout records parameter uses (null when no parameters are declared).
  std::vector<ParamUse>* param_uses() { return param_uses_; }
  void set_param_uses(std::vector<ParamUse>* sink) { param_uses_ = sink; }

  const std::shared_ptr<const SourceText>& source() const { return src_; }
  std::string_view text() const { return src_->text; }
  size_t pos() const { return pos_; }
  void set_pos(size_t p) { pos_ = p; }

  void skip_ws();
  bool at_end();  ///< after skipping whitespace
  /// Character `ahead` bytes past the current position, without skipping whitespace; 0 at end.
  char peek_raw(size_t ahead = 0) const;
  /// First character after whitespace; 0 at end.
  char peek();
  /// True if the text after whitespace starts with `s` (and, for words, is not followed by an
  /// identifier character).
  bool looking_at(std::string_view s);
  bool consume(std::string_view s);
  void expect(std::string_view s, std::string_view context);

  /// A signed decimal literal, `-` allowed. Overflow is an error located at the literal.
  int64_t parse_int(std::string_view what);
  /// An identifier [A-Za-z_][A-Za-z0-9_]*; empty if none here.
  std::string parse_identifier();
  /// Integer constant expression: literals, + - * // / (exact), parentheses, unary minus.
  /// Used for C++ template arguments (`Int<128 + 4>`) and Python arguments.
  int64_t parse_const_expr(std::string_view what);
  /// The same without top-level + and -, for places where '+' separates terms
  /// (TIRx's `1@laneid + 2@warpid + 64`); a sum needs parentheses there.
  int64_t parse_const_term(std::string_view what);

  /// Guards one level of nesting; throws when the depth limit is exceeded.
  class Depth {
   public:
    explicit Depth(Cursor& c);
    ~Depth() { --c_.depth_; }
    Depth(const Depth&) = delete;
    Depth& operator=(const Depth&) = delete;

   private:
    Cursor& c_;
  };

  [[noreturn]] void fail_at(size_t offset, const std::string& message) const;
  /// "expected X" at the current token, naming what was found instead.
  [[noreturn]] void fail_expected(std::string_view what);
  /// A description of the token at the current position: "')'", "end of input", "byte 0xE2".
  std::string describe_here();

 private:
  int64_t const_sum();
  int64_t const_product();
  int64_t const_atom();

  std::shared_ptr<const SourceText> src_;
  ParseLimits limits_;
  struct Affine;
  Affine affine_sum(bool sums, bool& symbolic);
  Affine affine_product(bool& symbolic);
  Affine affine_atom(bool& symbolic, bool first);
  /// The value a name stands for: a bound constant, a derived parameter's term or a parameter.
  std::optional<Affine> symbol(const std::string& name) const;

  Symbols symbols_;
  std::vector<ParamUse>* param_uses_ = nullptr;
  size_t pos_ = 0;
  size_t depth_ = 0;
  std::string_view const_what_ = "an integer";  ///< what the constant expression being read is
};

bool is_ident_start(char c);
bool is_ident_char(char c);

}  // namespace lp
