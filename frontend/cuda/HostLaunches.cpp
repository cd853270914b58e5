// The kernel launches of preprocessed host code (host_launches, CudaSource.h): the host code's
// declarations, the constant evaluator of launch arguments, and the chevron and cudaLaunchKernel* launches.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "frontend/cuda/CudaSource.h"
#include "frontend/cuda/CudaSourceTokens.h"

namespace lp::cuda {

namespace {

// ---- values and the constant evaluator ----

struct Value {
  bool dim3 = false;
  std::array<int64_t, 3> v{0, 1, 1};
};

struct NotConstant {
  std::string why;
};

// A variable declared in the host code: its initializer's tokens and what may change it.
struct Declaration {
  std::string name;
  size_t begin = 0, end = 0;  ///< the initializer's tokens [begin, end); empty for a dim3 with no arguments
  bool dim3 = false;
  bool arithmetic = false;    ///< every word of its type is an arithmetic type's (arithmetic_word)
  bool is_const = false;
  bool braced_args = false;   ///< dim3 NAME(a, b) or NAME{a, b}: the tokens are the arguments
  size_t at = 0;              ///< the name's token
  size_t scope_end = 0;       ///< the closing brace of its enclosing block (tokens.size() at namespace scope)
  std::optional<int64_t> enumerator;  ///< an enumerator's value
};

class HostCode {
 public:
  HostCode(Tokens toks, const std::vector<std::string>& skip) : T_(std::move(toks)), t_(T_.tokens) {
    match_ = detail::match_brackets(t_);
    block_of_ = enclosing_blocks(t_, match_);
    user_.assign(T_.files.size(), true);
    for (size_t f = 0; f < T_.files.size(); ++f) {
      if (T_.system_file[f]) user_[f] = false;
      for (const std::string& p : skip)
        if (!p.empty() && T_.files[f].rfind(p, 0) == 0) user_[f] = false;
    }
    scan_declarations();
    pointers_.emplace(t_, match_, block_of_);
  }

  std::vector<HostLaunch> launches() {
    std::vector<HostLaunch> out;
    for (size_t i = 0; i < t_.size(); ++i) {
      if (!user_[static_cast<size_t>(t_[i].file)]) continue;
      std::optional<HostLaunch> l;
      if (t_[i].is("<<<")) l = chevron_launch(i);
      else if (t_[i].kind == Token::Kind::Identifier &&
               (t_[i].is("cudaLaunchKernel") || t_[i].is("cudaLaunchCooperativeKernel") || t_[i].is("cudaLaunchKernelEx")) &&
               i + 1 < t_.size() && (t_[i + 1].is("(") || t_[i + 1].is("<")))
        l = api_launch(i);
      if (!l) continue;
      // A launch through a function pointer starts each kernel assigned to it.
      for (const std::string& k : pointers_->launched(l->kernel, i)) {
        out.push_back(*l);
        out.back().kernel = k;
      }
    }
    return out;
  }

 private:
  // ---- scopes ----
  // The innermost block `{` containing token i (npos at namespace scope).
  size_t enclosing_block(size_t i) const { return block_of_[i]; }
  // Each token's innermost enclosing block, in one pass: matched braces nest (match_brackets pairs
  // them with a stack), so the open blocks at a token are a stack too.
  static std::vector<size_t> enclosing_blocks(const std::vector<Token>& t, const std::vector<size_t>& match) {
    std::vector<size_t> block(t.size(), std::string::npos), open;
    for (size_t i = 0; i < t.size(); ++i) {
      while (!open.empty() && match[open.back()] <= i) open.pop_back();
      if (!open.empty()) block[i] = open.back();
      if (t[i].is("{") && match[i] != std::string::npos && match[i] > i) open.push_back(i);
    }
    return block;
  }
  // Whether the block opened at `open` is a function's body: `) [qualifiers] {` whose `(` does not
  // follow a control keyword.
  bool function_body(size_t open) const {
    size_t k = open;
    while (k > 0 && (t_[k - 1].is("const") || t_[k - 1].is("noexcept") || t_[k - 1].is("override") ||
                     t_[k - 1].is("mutable") || t_[k - 1].is("final")))
      --k;
    if (k == 0 || !t_[k - 1].is(")") || match_[k - 1] == std::string::npos) return false;
    const size_t paren = match_[k - 1];
    if (paren == 0) return true;
    const Token& before = t_[paren - 1];
    return !(before.is("if") || before.is("for") || before.is("while") || before.is("switch") || before.is("catch"));
  }
  // The outermost function body containing token i (npos outside functions).
  size_t function_of(size_t i) const {
    size_t found = std::string::npos;
    for (size_t b = enclosing_block(i); b != std::string::npos; b = enclosing_block(b))
      if (function_body(b)) found = b;
    return found;
  }

  // ---- declarations ----
  // Words that start a statement but not a declaration (`else n = 4;` assigns, it declares nothing).
  static bool statement_keyword(const Token& x) {
    static const std::set<std::string> k = {"else",   "return", "case",   "goto",     "throw",    "delete", "new",
                                            "typedef", "using", "namespace", "template", "operator", "do",   "co_return",
                                            "co_yield", "friend", "public", "private",  "protected", "struct", "class",
                                            "union",  "enum",   "extern"};
    return x.kind == Token::Kind::Identifier && k.count(x.text) != 0;
  }

  void scan_declarations() {
    bool statement_start = true;
    for (size_t i = 0; i < t_.size(); ++i) {
      const Token& x = t_[i];
      if (x.is(";") || x.is("{") || x.is("}")) {
        statement_start = true;
        continue;
      }
      if (!statement_start) continue;
      statement_start = false;
      if (x.is("enum")) {
        enum_at(i);
        continue;
      }
      // A declaration: its type's words (identifiers and `::`; a pointer or reference type holds no
      // launch shape), then the first declarator's name. `uint n = 4;` and `const dim3 b(8, 8);`
      // are declarations; `n = 4;` and `else n = 4;` are not.
      size_t k = i;
      bool is_const = false, dim3 = false;
      size_t words = 0;
      while (k + 1 < t_.size() && (t_[k].kind == Token::Kind::Identifier || t_[k].is("::")) && !statement_keyword(t_[k])) {
        if (t_[k].kind == Token::Kind::Identifier) ++words;
        is_const |= t_[k].is("const") || t_[k].is("constexpr");
        dim3 |= t_[k].is("dim3");
        ++k;
      }
      // k is past the name: the type is every word before it.
      if (words < 2 || k == i || t_[k - 1].kind != Token::Kind::Identifier) continue;
      --k;
      bool arithmetic = true;
      for (size_t w = i; w < k; ++w) arithmetic &= detail::arithmetic_word(t_[w].text);
      if (t_[k - 1].kind != Token::Kind::Identifier) continue;  // `ns::name = ...` assigns
      // Declarators: NAME (= init | (args) | {args})? separated by commas, up to ';'.
      while (k < t_.size() && t_[k].kind == Token::Kind::Identifier) {
        Declaration d;
        d.name = t_[k].text;
        d.at = k;
        d.dim3 = dim3;
        d.arithmetic = arithmetic;
        d.is_const = is_const;
        const size_t block = enclosing_block(k);
        d.scope_end = block == std::string::npos ? t_.size() : match_[block];
        size_t n = k + 1;
        if (n < t_.size() && (t_[n].is("(") || t_[n].is("{")) && match_[n] != std::string::npos) {
          if (!dim3 && t_[n].is("(")) break;  // a function declaration
          d.braced_args = true;
          d.begin = n + 1;
          d.end = match_[n];
          n = match_[n] + 1;
        } else if (n < t_.size() && t_[n].is("=")) {
          d.begin = n + 1;
          n = d.begin;
          while (n < t_.size() && !t_[n].is(",") && !t_[n].is(";")) {
            if ((t_[n].is("(") || t_[n].is("{") || t_[n].is("[")) && match_[n] != std::string::npos) n = match_[n];
            ++n;
          }
          d.end = n;
        } else if (n < t_.size() && (t_[n].is(",") || t_[n].is(";")) && dim3) {
          d.braced_args = true;  // dim3 NAME; is (1, 1, 1)
          d.begin = d.end = n;
        } else {
          break;
        }
        decls_[d.name].push_back(d);
        if (n < t_.size() && t_[n].is(",")) {
          k = n + 1;
          continue;
        }
        break;
      }
    }
  }

  void enum_at(size_t i) {
    size_t k = i + 1;
    while (k < t_.size() && !t_[k].is("{") && !t_[k].is(";")) ++k;
    if (k >= t_.size() || !t_[k].is("{") || match_[k] == std::string::npos) return;
    const size_t close = match_[k];
    int64_t next = 0;
    const size_t block = enclosing_block(i);
    for (size_t e = k + 1; e < close;) {
      if (t_[e].kind != Token::Kind::Identifier) {
        ++e;
        continue;
      }
      Declaration d;
      d.name = t_[e].text;
      d.at = e;
      d.is_const = true;
      d.scope_end = block == std::string::npos ? t_.size() : match_[block];
      size_t n = e + 1;
      if (n < close && t_[n].is("=")) {
        size_t end = n + 1;
        while (end < close && !t_[end].is(",")) {
          if ((t_[end].is("(") || t_[end].is("{")) && match_[end] != std::string::npos) end = match_[end];
          ++end;
        }
        try {
          next = evaluate(n + 1, end, e, 0).v[0];
        } catch (const NotConstant&) {
          return;  // later enumerators depend on it
        }
        n = end;
      }
      d.enumerator = next++;
      decls_[d.name].push_back(d);
      e = n;
      while (e < close && !t_[e].is(",")) ++e;
      ++e;
    }
  }

  // The declarations of `name` visible at token `use`: the first, and how many there are.
  std::pair<const Declaration*, int> declarations_at(const std::string& name, size_t use) const {
    std::pair<const Declaration*, int> out{nullptr, 0};
    if (auto it = decls_.find(name); it != decls_.end())
      for (const Declaration& d : it->second)
        if (d.at < use && use <= d.scope_end && out.second++ == 0) out.first = &d;
    return out;
  }

  // The one declaration of `name` visible at token `use`, or why there is none that is constant.
  const Declaration& visible(const std::string& name, size_t use) const {
    const auto [found, count] = declarations_at(name, use);
    if (count > 1) throw NotConstant{fmt::format("'{}' is declared more than once where it is used", name)};
    if (!found) throw NotConstant{fmt::format("'{}' is not a constant the checker can evaluate", name)};
    if (!found->is_const && !found->enumerator) unchanged(*found);
    return *found;
  }

  // A variable that is not const counts as a constant only when nothing in its scope changes it.
  void unchanged(const Declaration& d) const {
    static const std::set<std::string> kAssign = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++", "--"};
    for (size_t k = d.at + 1; k < std::min(d.scope_end, t_.size()); ++k) {
      if (!t_[k].is(d.name) || k == d.at) continue;
      if (k > 0 && (t_[k - 1].is("&") || t_[k - 1].is("++") || t_[k - 1].is("--") || t_[k - 1].is(".") || t_[k - 1].is("->")))
        if (!t_[k - 1].is(".") && !t_[k - 1].is("->"))
          throw NotConstant{fmt::format("'{}' may change at line {} (its address is taken or it is incremented)", d.name, t_[k].line)};
      size_t n = k + 1;
      if (n + 1 < t_.size() && t_[n].is(".") && t_[n + 1].kind == Token::Kind::Identifier) n += 2;  // threads.x = ...
      if (n < t_.size() && kAssign.count(t_[n].text))
        throw NotConstant{fmt::format("'{}' is assigned at line {}", d.name, t_[k].line)};
    }
  }

  // ---- expressions ----
  // Evaluates tokens [b, e) as a constant expression; `use` is where it is evaluated for (for
  // visibility), `depth` bounds the chase through declarations.
  Value evaluate(size_t b, size_t e, size_t use, int depth) const {
    if (depth > 32) throw NotConstant{"constants defined through more than 32 others"};
    Parser p{*this, b, e, use, depth};
    Value v = p.conditional();
    if (p.i != e) throw NotConstant{fmt::format("'{}' is not a constant expression the checker can evaluate", text(b, e))};
    return v;
  }

  std::string text(size_t b, size_t e) const {
    std::string s;
    for (size_t k = b; k < e && k < t_.size(); ++k) {
      if (!s.empty() && t_[k].kind == Token::Kind::Identifier && t_[k - 1].kind == Token::Kind::Identifier) s += ' ';
      s += t_[k].text;
    }
    return s;
  }

  Value declared_value(const Declaration& d, int depth) const {
    if (d.enumerator) return Value{false, {*d.enumerator, 1, 1}};
    if (d.dim3 && d.braced_args) return dim3_of(d.begin, d.end, d.at, depth);
    Value v = evaluate(d.begin, d.end, d.at, depth + 1);
    if (d.dim3 && !v.dim3) v = Value{true, {v.v[0], 1, 1}};
    return v;
  }

  Value dim3_of(size_t b, size_t e, size_t use, int depth) const {
    Value out{true, {1, 1, 1}};
    size_t k = b, n = 0;
    while (k < e) {
      size_t end = k;
      while (end < e && !t_[end].is(",")) {
        if ((t_[end].is("(") || t_[end].is("{") || t_[end].is("[")) && match_[end] != std::string::npos) end = match_[end];
        ++end;
      }
      if (n == 3) throw NotConstant{"a dim3 with more than three extents"};
      Value x = evaluate(k, end, use, depth + 1);
      if (x.dim3) {
        if (n != 0 || end != e) throw NotConstant{"a dim3 built from a dim3 and more"};
        return x;
      }
      out.v[n++] = x.v[0];
      k = end + 1;
    }
    return out;
  }

  struct Parser {
    const HostCode& h;
    size_t i, e, use;
    int depth;

    const Token* at(size_t k = 0) const { return i + k < e ? &h.t_[i + k] : nullptr; }
    bool is(std::string_view s, size_t k = 0) const { return at(k) && at(k)->is(s); }
    [[noreturn]] void fail() const {
      throw NotConstant{fmt::format("'{}' is not a constant expression the checker can evaluate", h.text(i, e))};
    }
    static int64_t checked(__int128 x) {
      if (x > INT64_MAX || x < INT64_MIN) throw NotConstant{"an integer overflow"};
      return static_cast<int64_t>(x);
    }
    static int64_t scalar(const Value& v) {
      if (v.dim3) throw NotConstant{"a dim3 where an integer is expected"};
      return v.v[0];
    }
    static Value of(int64_t x) { return Value{false, {x, 1, 1}}; }

    Value conditional() {
      Value c = binary(0);
      if (!is("?")) return c;
      ++i;
      Value a = conditional();
      if (!is(":")) fail();
      ++i;
      Value b = conditional();
      return scalar(c) ? a : b;
    }

    Value binary(int level) {
      static const std::vector<std::vector<std::string>> kLevels = {
          {"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<", "<=", ">", ">="}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"}};
      if (level == static_cast<int>(kLevels.size())) return unary();
      Value left = binary(level + 1);
      for (;;) {
        const Token* op = at();
        if (!op || std::find(kLevels[level].begin(), kLevels[level].end(), op->text) == kLevels[level].end()) return left;
        ++i;
        const int64_t a = scalar(left), b = scalar(binary(level + 1));
        const std::string& o = op->text;
        __int128 r = 0;
        if (o == "||") r = a || b;
        else if (o == "&&") r = a && b;
        else if (o == "|") r = a | b;
        else if (o == "^") r = a ^ b;
        else if (o == "&") r = a & b;
        else if (o == "==") r = a == b;
        else if (o == "!=") r = a != b;
        else if (o == "<") r = a < b;
        else if (o == "<=") r = a <= b;
        else if (o == ">") r = a > b;
        else if (o == ">=") r = a >= b;
        else if (o == "<<") {
          if (b < 0 || b > 62) throw NotConstant{"a shift out of range"};
          r = static_cast<__int128>(a) << b;
        } else if (o == ">>") {
          if (b < 0 || b > 63) throw NotConstant{"a shift out of range"};
          r = a >> b;
        } else if (o == "+") r = static_cast<__int128>(a) + b;
        else if (o == "-") r = static_cast<__int128>(a) - b;
        else if (o == "*") r = static_cast<__int128>(a) * b;
        else {
          if (b == 0) throw NotConstant{"a division by zero"};
          r = o == "/" ? a / b : a % b;
        }
        left = of(checked(r));
      }
    }

    // `(int)`, `(unsigned int)`, `(size_t)`: a cast to an integer type.
    bool integer_cast() const {
      if (!is("(")) return false;
      size_t k = 1;
      bool any = false;
      while (at(k) && at(k)->kind == Token::Kind::Identifier) {
        static const std::set<std::string> kInt = {"int", "unsigned", "signed", "long", "short", "char", "size_t",
                                                   "uint32_t", "int32_t", "uint64_t", "int64_t", "const"};
        if (!kInt.count(at(k)->text)) return false;
        any = true;
        ++k;
      }
      return any && is(")", k);
    }

    Value unary() {
      if (is("-")) return ++i, of(checked(-static_cast<__int128>(scalar(unary()))));
      if (is("+")) return ++i, unary();
      if (is("!")) return ++i, of(!scalar(unary()));
      if (is("~")) return ++i, of(~scalar(unary()));
      if (integer_cast()) {
        while (!is(")")) ++i;
        ++i;
        return unary();
      }
      return postfix(primary());
    }

    Value postfix(Value v) {
      while (is(".") && at(1) && v.dim3) {
        const std::string& m = at(1)->text;
        if (m != "x" && m != "y" && m != "z") fail();
        i += 2;
        v = of(v.v[static_cast<size_t>(m[0] - 'x')]);
      }
      return v;
    }

    // Tokens [i, close) of a parenthesised argument list starting at `(`; i moves past it.
    std::pair<size_t, size_t> group() {
      if (!is("(") && !is("{")) fail();
      const size_t close = h.match_[i];
      if (close == std::string::npos || close >= e) fail();
      const std::pair<size_t, size_t> r{i + 1, close};
      i = close + 1;
      return r;
    }

    Value primary() {
      const Token* x = at();
      if (!x) fail();
      if (x->is("(")) {
        auto [b, end] = group();
        return h.evaluate(b, end, use, depth + 1);
      }
      if (x->kind == Token::Kind::Number) {
        auto v = detail::integer_literal(x->text);
        if (!v) throw NotConstant{fmt::format("'{}' is not an integer literal", x->text)};
        ++i;
        return of(*v);
      }
      if (x->kind != Token::Kind::Identifier) fail();
      if (x->is("true") || x->is("false")) return ++i, of(x->is("true"));
      if (x->is("sizeof")) {
        ++i;
        auto [b, end] = group();
        std::vector<std::string> words;
        for (size_t k = b; k < end; ++k) words.push_back(h.t_[k].text);
        auto size = detail::fundamental_size(words);
        if (!size) throw NotConstant{fmt::format("sizeof({}) is not the size of a fundamental type", h.text(b, end))};
        return of(*size);
      }
      if (x->is("dim3")) {
        ++i;
        auto [b, end] = group();
        return h.dim3_of(b, end, use, depth + 1);
      }
      if (x->is("static_cast") || x->is("int64_t") || x->is("int") || x->is("unsigned") || x->is("size_t")) {
        ++i;
        if (is("<")) {
          while (at() && !is(">")) ++i;
          if (!at()) fail();
          ++i;
        }
        auto [b, end] = group();
        return h.evaluate(b, end, use, depth + 1);
      }
      std::string name = x->text;
      ++i;
      while (is("::") && at(1) && at(1)->kind == Token::Kind::Identifier) {
        name = at(1)->text;  // std::min, ns::kTile: the unqualified name
        i += 2;
      }
      if ((name == "min" || name == "max") && is("(")) {
        auto [b, end] = group();
        size_t comma = b;
        while (comma < end && !h.t_[comma].is(",")) {
          if ((h.t_[comma].is("(") || h.t_[comma].is("{")) && h.match_[comma] != std::string::npos) comma = h.match_[comma];
          ++comma;
        }
        if (comma >= end) fail();
        const int64_t a = scalar(h.evaluate(b, comma, use, depth + 1)), c = scalar(h.evaluate(comma + 1, end, use, depth + 1));
        return of(name == "min" ? std::min(a, c) : std::max(a, c));
      }
      const Declaration& d = h.visible(name, use);
      return h.declared_value(d, depth + 1);
    }
  };

  // ---- launches ----
  // The kernel expression ending at token `last`: [qualifier::]name[<args>], as a string with its
  // template arguments evaluated where they are constants ("?" where not).
  std::optional<std::string> kernel_before(size_t last, size_t use) const {
    size_t k = last;
    std::string args;
    if (t_[k].is(">") || t_[k].is(">>")) {
      int depth = 0;
      size_t open = k + 1;
      for (size_t j = k + 1; j-- > 0;) {
        if (t_[j].is(">")) ++depth;
        else if (t_[j].is(">>")) depth += 2;
        else if (t_[j].is("<")) --depth;
        if (depth == 0) {
          open = j;
          break;
        }
        if (t_[j].is(";") || t_[j].is("{") || t_[j].is("}")) return std::nullopt;
      }
      if (open > k || open == 0) return std::nullopt;
      args = template_args(open + 1, k, use);
      k = open - 1;
    }
    if (t_[k].kind != Token::Kind::Identifier) return std::nullopt;
    std::string name = t_[k].text + args;
    while (k >= 2 && t_[k - 1].is("::") && t_[k - 2].kind == Token::Kind::Identifier) {
      name = t_[k - 2].text + "::" + name;
      k -= 2;
    }
    return name;
  }

  std::string template_args(size_t b, size_t e, size_t use) const {
    std::string out = "<";
    size_t k = b;
    while (k < e) {
      size_t end = k;
      int angle = 0;
      while (end < e && !(angle == 0 && t_[end].is(","))) {
        if (t_[end].is("<")) ++angle;
        else if (t_[end].is(">")) --angle;
        else if ((t_[end].is("(") || t_[end].is("[")) && match_[end] != std::string::npos) end = match_[end];
        ++end;
      }
      std::string arg;
      try {
        arg = std::to_string(scalar_of(evaluate(k, end, use, 0)));
      } catch (const NotConstant&) {
        bool types = true;
        for (size_t j = k; j < end; ++j) types &= detail::fundamental_words().count(t_[j].text) || t_[j].is("*");
        arg = types ? text(k, end) : "?";
      }
      out += (out.size() > 1 ? "," : "") + arg;
      k = end + 1;
    }
    return out + ">";
  }
  static int64_t scalar_of(const Value& v) {
    if (v.dim3) throw NotConstant{"a dim3"};
    return v.v[0];
  }

  // ---- blocks that are not constants ----
  // The extents of a block [b, e) that is not a constant: a `dim3(...)` or a dim3 variable
  // declared with arguments gives those of its arguments that are constants; one value of
  // arithmetic type gives (?, 1, 1). Nullopt where the type is not known (a dim3 parameter, a
  // member, a function's result).
  std::optional<hw::BlockExtents> known_extents(size_t b, size_t e, size_t use, int depth) const {
    if (depth > 32 || b >= e) return std::nullopt;
    if (t_[b].is("dim3") && b + 1 < e && (t_[b + 1].is("(") || t_[b + 1].is("{")) && match_[b + 1] == e - 1)
      return dim3_extents(b + 2, e - 1, use, depth + 1);
    if (e == b + 1 && t_[b].kind == Token::Kind::Identifier) {
      const Declaration* d = nullptr;
      try {
        d = &visible(t_[b].text, use);
      } catch (const NotConstant&) {
        d = nullptr;  // changed, declared twice or not a local variable: only its type may still say
      }
      if (d && d->dim3) return d->braced_args ? dim3_extents(d->begin, d->end, d->at, depth + 1)
                                              : known_extents(d->begin, d->end, d->at, depth + 1);
    }
    if (arithmetic(b, e, use)) return hw::BlockExtents{{std::nullopt, 1, 1}};
    return std::nullopt;
  }

  // The extents of dim3's arguments [b, e): each a constant or unknown, those not given 1. A
  // single argument may be a dim3 (a copy), so it is unknown unless its type is arithmetic.
  std::optional<hw::BlockExtents> dim3_extents(size_t b, size_t e, size_t use, int depth) const {
    const auto args = arguments(b, e);
    if (args.size() > 3) return std::nullopt;
    if (args.size() == 1) {
      try {
        const Value v = evaluate(args[0].first, args[0].second, use, depth);
        return hw::BlockExtents::exactly(v.v);
      } catch (const NotConstant&) {
        return known_extents(args[0].first, args[0].second, use, depth);
      }
    }
    hw::BlockExtents out{{1, 1, 1}};
    for (size_t n = 0; n < args.size(); ++n) {
      try {
        out.extent[n] = scalar_of(evaluate(args[n].first, args[n].second, use, depth));
      } catch (const NotConstant&) {
        out.extent[n] = std::nullopt;
      }
    }
    return out;
  }

  // Whether tokens [b, e) are an expression of arithmetic type: literals, operators, casts and
  // std::min/max over variables and parameters declared with an arithmetic type. A member, an
  // element, a call or a name whose declaration is not read makes it unknown.
  bool arithmetic(size_t b, size_t e, size_t use) const {
    for (size_t k = b; k < e; ++k) {
      const Token& x = t_[k];
      if (x.is(".") || x.is("->") || x.is("[") || x.is("{")) return false;
      if (x.kind != Token::Kind::Identifier) continue;
      if (detail::arithmetic_word(x.text) || x.is("min") || x.is("max") || x.is("static_cast") || x.is("sizeof")) continue;
      if (!arithmetic_variable(x.text, use)) return false;
    }
    return b < e;
  }

  // Whether `name` at token `use` is a variable of arithmetic type: one declaration visible there
  // (an enumerator, or declared with arithmetic words only) or a parameter of an enclosing
  // function declared so, and not both (a lambda's parameter may hide a local).
  bool arithmetic_variable(const std::string& name, size_t use) const {
    const auto [d, count] = declarations_at(name, use);
    if (count > 1) return false;
    const std::optional<bool> declared = d ? std::optional<bool>(d->enumerator.has_value() || d->arithmetic) : std::nullopt;
    std::optional<bool> parameter;
    for (size_t open = enclosing_block(use); open != std::string::npos; open = enclosing_block(open)) {
      if (!function_body(open)) continue;
      if (auto p = parameter_type(open, name)) {
        parameter = *p;
        break;
      }
    }
    if (declared && parameter) return false;
    return declared.value_or(false) || parameter.value_or(false);
  }

  // Whether the parameter `name` of the function whose body opens at `open` is declared with
  // arithmetic words (references allowed); nullopt when the function has no such parameter.
  std::optional<bool> parameter_type(size_t open, const std::string& name) const {
    size_t k = open;
    while (k > 0 && !t_[k - 1].is(")")) --k;
    if (k == 0 || match_[k - 1] == std::string::npos) return std::nullopt;
    for (const auto& [pb, pe] : arguments(match_[k - 1] + 1, k - 1)) {
      size_t end = pb;
      while (end < pe && !t_[end].is("=")) ++end;
      if (end == pb || !t_[end - 1].is(name)) continue;
      bool arithmetic_type = end - 1 > pb;
      for (size_t w = pb; w + 1 < end; ++w) arithmetic_type &= detail::arithmetic_word(t_[w].text) || t_[w].is("&");
      return arithmetic_type;
    }
    return std::nullopt;
  }

  // One launch argument: a block or grid shape (a dim3 or an integer), or bytes.
  std::optional<std::array<int64_t, 3>> shape(size_t b, size_t e, size_t use, std::string& why) const {
    try {
      const Value v = evaluate(b, e, use, 0);
      return v.v;
    } catch (const NotConstant& n) {
      why = n.why;
      return std::nullopt;
    }
  }

  // The arguments of a call or a launch configuration: [open+1, close) split at top-level commas.
  std::vector<std::pair<size_t, size_t>> arguments(size_t b, size_t e) const {
    std::vector<std::pair<size_t, size_t>> out;
    size_t k = b;
    while (k < e) {
      size_t end = k;
      while (end < e && !t_[end].is(",")) {
        if ((t_[end].is("(") || t_[end].is("{") || t_[end].is("[")) && match_[end] != std::string::npos) end = match_[end];
        ++end;
      }
      out.emplace_back(k, end);
      k = end + 1;
    }
    return out;
  }

  HostLaunch located(size_t i, std::string kernel) const {
    HostLaunch l;
    l.kernel = std::move(kernel);
    l.file = T_.files[static_cast<size_t>(t_[i].file)];
    l.line = t_[i].line;
    return l;
  }

  void fill(HostLaunch& l, std::optional<std::pair<size_t, size_t>> grid, std::optional<std::pair<size_t, size_t>> block,
            std::optional<std::pair<size_t, size_t>> smem, size_t use) const {
    std::string why;
    if (grid) l.grid = shape(grid->first, grid->second, use, why);
    why.clear();
    if (!block) l.not_constant = "the launch's block is not given";
    else if (auto exact = shape(block->first, block->second, use, why)) l.block = hw::BlockExtents::exactly(*exact);
    else {
      l.block = known_extents(block->first, block->second, use, 0).value_or(hw::BlockExtents{});
      l.not_constant = why;
    }
    if (!smem) {
      l.dynamic_smem = 0;
    } else {
      std::string ignored;
      if (auto s = shape(smem->first, smem->second, use, ignored)) l.dynamic_smem = (*s)[0];
    }
  }

  std::optional<HostLaunch> chevron_launch(size_t i) const {
    if (i == 0) return std::nullopt;
    auto kernel = kernel_before(i - 1, i);
    if (!kernel) return std::nullopt;
    size_t close = i + 1;
    int depth = 0;
    for (; close < t_.size(); ++close) {
      if (t_[close].is(">>>") && depth == 0) break;
      if (t_[close].is("(") || t_[close].is("[") || t_[close].is("{")) ++depth;
      if (t_[close].is(")") || t_[close].is("]") || t_[close].is("}")) --depth;
      if (t_[close].is(";")) return std::nullopt;
    }
    if (close >= t_.size()) return std::nullopt;
    const auto args = arguments(i + 1, close);
    HostLaunch l = located(i, *kernel);
    auto arg = [&](size_t n) { return n < args.size() ? std::optional(args[n]) : std::nullopt; };
    fill(l, arg(0), arg(1), arg(2), i);
    return l;
  }

  // The kernel a launch API's function argument names: `kernel`, `&kernel`, `(void*)kernel<4>`,
  // `reinterpret_cast<const void*>(&kernel)`.
  std::optional<std::string> kernel_in(size_t b, size_t e, size_t use) const {
    size_t last = e;
    while (last > b && (t_[last - 1].is(")") && match_[last - 1] != std::string::npos && match_[last - 1] >= b &&
                        !(match_[last - 1] > b && t_[match_[last - 1] - 1].kind == Token::Kind::Identifier &&
                          !t_[match_[last - 1] - 1].is("reinterpret_cast") && !t_[match_[last - 1] - 1].is("static_cast"))))
      --last;
    if (last <= b) return std::nullopt;
    return kernel_before(last - 1, use);
  }

  std::optional<HostLaunch> api_launch(size_t i) const {
    size_t open = i + 1;
    if (t_[open].is("<")) {  // cudaLaunchKernel<T>(...)
      while (open < t_.size() && !t_[open].is("(")) ++open;
    }
    if (open >= t_.size() || match_[open] == std::string::npos) return std::nullopt;
    const auto args = arguments(open + 1, match_[open]);
    if (args.size() < 2) return std::nullopt;
    if (!t_[i].is("cudaLaunchKernelEx")) {
      // (func, gridDim, blockDim, args, sharedMem, stream)
      auto kernel = kernel_in(args[0].first, args[0].second, i);
      if (!kernel || args.size() < 3) return std::nullopt;
      HostLaunch l = located(i, *kernel);
      fill(l, args[1], args[2], args.size() > 4 ? std::optional(args[4]) : std::nullopt, i);
      return l;
    }
    // cudaLaunchKernelEx(&config, kernel, args...): the configuration's fields, each assigned
    // once in the function before the launch.
    size_t c = args[0].first;
    if (t_[c].is("&")) ++c;
    if (c >= args[0].second || t_[c].kind != Token::Kind::Identifier) return std::nullopt;
    const std::string config = t_[c].text;
    auto kernel = kernel_in(args[1].first, args[1].second, i);
    if (!kernel) return std::nullopt;
    HostLaunch l = located(i, *kernel);
    const size_t fn = function_of(i);
    std::map<std::string, std::vector<std::pair<size_t, size_t>>> fields;
    for (size_t k = fn == std::string::npos ? 0 : fn; k + 3 < i; ++k)
      if (t_[k].is(config) && t_[k + 1].is(".") && t_[k + 3].is("=")) {
        size_t end = k + 4;
        while (end < t_.size() && !t_[end].is(";")) ++end;
        fields[t_[k + 2].text].emplace_back(k + 4, end);
      }
    auto field = [&](const char* name) -> std::optional<std::pair<size_t, size_t>> {
      auto it = fields.find(name);
      if (it == fields.end() || it->second.size() != 1) return std::nullopt;
      return it->second.front();
    };
    fill(l, field("gridDim"), field("blockDim"), field("dynamicSmemBytes"), i);
    if (!field("dynamicSmemBytes")) l.dynamic_smem.reset();
    if (!field("blockDim"))
      l.not_constant = fmt::format("{}.blockDim is not assigned exactly once before the launch", config);
    return l;
  }

  Tokens T_;
  const std::vector<Token>& t_;
  std::vector<size_t> match_;
  std::vector<size_t> block_of_;  ///< enclosing_block of each token
  std::vector<bool> user_;
  std::map<std::string, std::vector<Declaration>> decls_;
  std::optional<detail::KernelPointers> pointers_;
};

}  // namespace

std::vector<HostLaunch> host_launches(std::string_view preprocessed, const std::vector<std::string>& skip_prefixes) {
  return HostCode(tokenize(preprocessed, "<preprocessed>", true), skip_prefixes).launches();
}

}  // namespace lp::cuda
