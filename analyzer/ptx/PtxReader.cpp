// The PTX reader: a tokenizer and a recursive-descent parser of the module grammar (PTX ISA 9.0,
// sections 4 "Syntax", 5.1 "State spaces", 7 "Abstracting the ABI", 11 "Directives"). It accepts
// what nvcc, Triton and CUTLASS emit and refuses anything else with a located diagnostic.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "analyzer/ptx/PtxModule.h"
#include "analyzer/support/Governor.h"

namespace lp::ptx {

namespace {

__extension__ using UInt128 = unsigned __int128;

struct Token {
  enum class Kind { Ident, Number, String, Punct, End };
  Kind kind = Kind::End;
  std::string text;
  size_t pos = 0;
  size_t line = 0;
};

bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%' || c == '.';
}
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%' || c == '.'; }

// PTX ISA 9.0 chapter 9: every instruction name (the opcode's first component).
const std::set<std::string>& instruction_names() {
  static const std::set<std::string> kNames = {
      "abs", "activemask", "add", "addc", "alloca", "and", "applypriority", "atom", "bar", "barrier", "bfe", "bfi",
      "bfind", "bmsk", "bra", "brev", "brkpt", "brx", "call", "clusterlaunchcontrol", "clz", "cnot", "copysign", "cos",
      "cp", "createpolicy", "cvt", "cvta", "discard", "div", "dp2a", "dp4a", "elect", "ex2", "exit", "fence", "fma",
      "fns", "getctarank", "griddepcontrol", "isspacep", "istypeof", "ld", "ldmatrix", "ldu", "lg2", "lop3", "mad",
      "mad24", "madc", "mapa", "match", "max", "mbarrier", "membar", "min", "mma", "mov", "movmatrix", "mul", "mul24",
      "multimem", "nanosleep", "neg", "not", "or", "pmevent", "popc", "prefetch", "prefetchu", "prmt", "rcp", "red",
      "redux", "rem", "ret", "rsqrt", "sad", "selp", "set", "setmaxnreg", "setp", "shf", "shfl", "shl", "shr", "sin",
      "slct", "sqrt", "st", "stackrestore", "stacksave", "stmatrix", "sub", "subc", "suld", "suq", "sured", "sust",
      "szext", "tanh", "tcgen05", "tensormap", "testp", "tex", "tld4", "trap", "txq", "vabsdiff", "vabsdiff2",
      "vabsdiff4", "vadd", "vadd2", "vadd4", "vavrg2", "vavrg4", "vmad", "vmax", "vmax2", "vmax4", "vmin", "vmin2",
      "vmin4", "vote", "vset", "vset2", "vset4", "vshl", "vshr", "vsub", "vsub2", "vsub4", "wgmma", "wmma", "xor",
      "ex2", "red", "st", "cvt", "rcp"};
  return kNames;
}

// Special registers (PTX ISA 9.0 chapter 10); `%tid` with a component is `%tid.x`.
bool special_register(const std::string& name) {
  static const std::set<std::string> kBase = {
      "%tid", "%ntid", "%laneid", "%warpid", "%nwarpid", "%ctaid", "%nctaid", "%smid", "%nsmid", "%gridid",
      "%is_explicit_cluster", "%clusterid", "%nclusterid", "%cluster_ctaid", "%cluster_nctaid", "%cluster_ctarank",
      "%cluster_nctarank", "%lanemask_eq", "%lanemask_le", "%lanemask_lt", "%lanemask_ge", "%lanemask_gt", "%clock",
      "%clock_hi", "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi", "%total_smem_size",
      "%aggr_smem_size", "%dynamic_smem_size", "%current_graph_exec", "%reserved_smem_offset_begin",
      "%reserved_smem_offset_end", "%reserved_smem_offset_cap", "%reserved_smem_offset_0", "%reserved_smem_offset_1"};
  // The .v4 registers, read by component; the fourth, `.w`, is unused and reads 0.
  static const std::set<std::string> kVector = {"%tid", "%ntid", "%ctaid", "%nctaid", "%clusterid", "%nclusterid",
                                                "%cluster_ctaid", "%cluster_nctaid"};
  const size_t dot = name.find('.');
  const std::string base = name.substr(0, dot);
  // %envreg0..%envreg31, %pm0..%pm7 and %pm0_64..%pm7_64.
  auto numbered = [&](const std::string& prefix, int count, const std::string& suffix) {
    if (base.size() <= prefix.size() + suffix.size() || base.rfind(prefix, 0) != 0 ||
        base.compare(base.size() - suffix.size(), suffix.size(), suffix) != 0)
      return false;
    const std::string digits = base.substr(prefix.size(), base.size() - prefix.size() - suffix.size());
    if (digits.size() > 2 || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
        (digits.size() == 2 && digits[0] == '0'))
      return false;
    return std::stoi(digits) < count;
  };
  if (dot == std::string::npos && (numbered("%envreg", 32, "") || numbered("%pm", 8, "") || numbered("%pm", 8, "_64")))
    return true;
  if (!kBase.count(base)) return false;
  if (dot == std::string::npos) return true;
  const std::string comp = name.substr(dot + 1);
  return kVector.count(base) && (comp == "x" || comp == "y" || comp == "z" || comp == "w");
}

class Reader {
 public:
  Reader(std::shared_ptr<const SourceText> src, const ReadLimits& limits) : src_(std::move(src)), t_(src_->text), limits_(limits) {}

  Module read() {
    if (t_.size() > limits_.max_bytes)
      fail(0, fmt::format("the PTX file is larger than the {} bytes the reader accepts", limits_.max_bytes));
    Module m;
    m.source = src_;
    mod_ = &m;
    advance();
    while (tok_.kind != Token::Kind::End) top_level();
    validate();
    return m;
  }

 private:
  // ---- tokens ----
  [[noreturn]] void fail(size_t pos, const std::string& message) {
    Diagnostic d;
    d.severity = Severity::Error;
    d.loc = SourceLoc{src_, std::min(pos, t_.size())};
    d.message = message;
    throw DiagnosticError(std::move(d));
  }
  [[noreturn]] void expected(const std::string& what) {
    fail(tok_.pos, tok_.kind == Token::Kind::End ? fmt::format("expected {}, found the end of the file", what)
                                                  : fmt::format("expected {}, found '{}'", what, tok_.text));
  }

  void skip_space() {
    for (;;) {
      while (p_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[p_]))) {
        if (t_[p_] == '\n') ++line_;
        ++p_;
      }
      if (t_.compare(p_, 2, "//") == 0) {
        while (p_ < t_.size() && t_[p_] != '\n') ++p_;
        continue;
      }
      if (t_.compare(p_, 2, "/*") == 0) {
        const size_t end = t_.find("*/", p_ + 2);
        if (end == std::string::npos) fail(p_, "unterminated comment: expected '*/'");
        line_ += static_cast<size_t>(std::count(t_.begin() + static_cast<long>(p_), t_.begin() + static_cast<long>(end), '\n'));
        p_ = end + 2;
        continue;
      }
      return;
    }
  }

  void advance() {
    checkpoint();  // the run's time and memory budget
    skip_space();
    tok_ = Token{};
    tok_.pos = p_;
    tok_.line = line_;
    if (p_ >= t_.size()) return;
    if (++token_count_ > limits_.max_instructions * 32)
      fail(p_, "the PTX file has more tokens than the reader accepts");
    const char c = t_[p_];
    if (ident_start(c)) {
      const size_t b = p_;
      while (p_ < t_.size() && (ident_char(t_[p_]) || (t_[p_] == ':' && p_ + 2 < t_.size() && t_[p_ + 1] == ':' && ident_char(t_[p_ + 2])))) {
        if (t_[p_] == ':') ++p_;
        ++p_;
      }
      tok_.kind = Token::Kind::Ident;
      tok_.text = t_.substr(b, p_ - b);
      return;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      const size_t b = p_;
      while (p_ < t_.size() && (std::isalnum(static_cast<unsigned char>(t_[p_])) || t_[p_] == '.')) ++p_;
      tok_.kind = Token::Kind::Number;
      tok_.text = t_.substr(b, p_ - b);
      return;
    }
    if (c == '"') {
      const size_t b = p_++;
      while (p_ < t_.size() && t_[p_] != '"' && t_[p_] != '\n') ++p_;
      if (p_ >= t_.size() || t_[p_] != '"') fail(b, "unterminated string: expected '\"'");
      ++p_;
      tok_.kind = Token::Kind::String;
      tok_.text = t_.substr(b + 1, p_ - b - 2);
      return;
    }
    tok_.kind = Token::Kind::Punct;
    tok_.text = std::string(1, c);
    ++p_;
  }

  bool is(const char* text) const { return tok_.kind != Token::Kind::String && tok_.text == text; }
  bool accept(const char* text) {
    if (!is(text)) return false;
    advance();
    return true;
  }
  void expect(const char* text) {
    if (!accept(text)) expected(fmt::format("'{}'", text));
  }
  std::string ident(const std::string& what) {
    if (tok_.kind != Token::Kind::Ident) expected(what);
    std::string s = tok_.text;
    advance();
    return s;
  }
  uint64_t parse_number_text(const std::string& s, size_t pos) {
    // PTX integer literals (hex 0x, octal 0, binary 0b, decimal, an optional U suffix) and
    // floating-point bit patterns 0fXXXXXXXX / 0dXXXXXXXXXXXXXXXX.
    std::string body = s;
    if (!body.empty() && (body.back() == 'U' || body.back() == 'u')) body.pop_back();
    int base = 10;
    size_t i = 0;
    if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')) base = 16, i = 2;
    else if (body.size() > 2 && body[0] == '0' && (body[1] == 'f' || body[1] == 'F' || body[1] == 'd' || body[1] == 'D')) {
      const size_t digits = (body[1] == 'f' || body[1] == 'F') ? 8 : 16;
      if (body.size() != digits + 2) fail(pos, fmt::format("malformed floating-point literal '{}': expected {} hex digits", s, digits));
      base = 16, i = 2;
    } else if (body.size() > 2 && body[0] == '0' && (body[1] == 'b' || body[1] == 'B')) base = 2, i = 2;
    else if (body.size() > 1 && body[0] == '0') base = 8, i = 1;
    if (i >= body.size()) fail(pos, fmt::format("malformed number '{}'", s));
    if (body.find('.') != std::string::npos) {
      // A decimal floating-point literal: its value never feeds an address; keep it opaque-free 0.
      for (char ch : body)
        if (!std::isdigit(static_cast<unsigned char>(ch)) && ch != '.' && ch != 'e' && ch != 'E')
          fail(pos, fmt::format("malformed number '{}'", s));
      return 0;
    }
    UInt128 v = 0;
    for (; i < body.size(); ++i) {
      const char ch = static_cast<char>(std::tolower(static_cast<unsigned char>(body[i])));
      int d = std::isdigit(static_cast<unsigned char>(ch)) ? ch - '0' : (ch >= 'a' && ch <= 'f') ? ch - 'a' + 10 : 99;
      if (d >= base) fail(pos, fmt::format("malformed number '{}': '{}' is not a base-{} digit", s, body[i], base));
      v = v * static_cast<unsigned>(base) + static_cast<unsigned>(d);
      if (v > ~uint64_t{0}) fail(pos, fmt::format("number '{}' does not fit in 64 bits", s));
    }
    return static_cast<uint64_t>(v);
  }
  uint64_t number(const std::string& what) {
    if (tok_.kind != Token::Kind::Number) expected(what);
    const uint64_t v = parse_number_text(tok_.text, tok_.pos);
    advance();
    return v;
  }
  int64_t small_int(const std::string& what, int64_t lo, int64_t hi) {
    const size_t pos = tok_.pos;
    bool negative = accept("-");
    const uint64_t v = number(what);
    if (v > static_cast<uint64_t>(INT64_MAX)) fail(pos, fmt::format("{} is out of range", what));
    const int64_t x = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
    if (x < lo || x > hi) fail(pos, fmt::format("{} must be in [{}, {}], found {}", what, lo, hi, x));
    return x;
  }
  // Consumes the rest of the current line (directives without a semicolon).
  void rest_of_line(size_t line) {
    while (tok_.kind != Token::Kind::End && tok_.line == line) advance();
  }
  void skip_to_semicolon() {
    int depth = 0;
    while (tok_.kind != Token::Kind::End && !(depth == 0 && is(";"))) {
      if (is("{")) ++depth;
      if (is("}")) --depth;
      advance();
    }
    expect(";");
  }

  // ---- module level ----
  void top_level() {
    const size_t line = tok_.line;
    if (accept(".version")) {
      mod_->version = tok_.text;
      rest_of_line(line);
      return;
    }
    if (accept(".target")) {
      mod_->target = ident("a target architecture (e.g. sm_80)");
      rest_of_line(line);
      return;
    }
    if (accept(".address_size")) {
      mod_->address_size = static_cast<int>(small_int("the address size", 32, 64));
      return;
    }
    if (is(".file")) return file_directive();
    if (is(".loc")) return loc_directive();
    if (accept(".section")) return section();
    if (accept(".pragma")) return skip_to_semicolon();
    if (accept(".alias")) return skip_to_semicolon();
    bool is_extern = false;
    while (is(".visible") || is(".extern") || is(".weak") || is(".common")) {
      is_extern |= is(".extern");
      advance();
    }
    if (is(".entry") || is(".func")) return function(is_extern);
    if (is(".shared") || is(".global") || is(".const") || is(".local")) return variable(is_extern, nullptr);
    expected("a directive (.version, .target, .entry, .func, a variable)");
  }

  void file_directive() {
    const size_t line = tok_.line;
    advance();
    const size_t pos = tok_.pos;
    const int64_t n = small_int("a file number", 0, INT32_MAX);
    if (tok_.kind != Token::Kind::String) expected("a file name in quotes");
    mod_->files[static_cast<int>(n)] = tok_.text;
    (void)pos;
    advance();
    rest_of_line(line);
  }

  void loc_directive() {
    const size_t line = tok_.line;
    advance();
    DebugLoc l;
    l.file = static_cast<int>(small_int("a file number", 0, INT32_MAX));
    l.line = static_cast<int>(small_int("a line number", 0, INT32_MAX));
    l.col = static_cast<int>(small_int("a column number", 0, INT32_MAX));
    while (tok_.line == line && accept(",")) {
      if (accept("function_name")) {
        l.function_label = ident("a label");
        if (accept("+")) number("an offset");
      } else if (accept("inlined_at")) {
        std::array<int, 3> at{};
        at[0] = static_cast<int>(small_int("a file number", 0, INT32_MAX));
        at[1] = static_cast<int>(small_int("a line number", 0, INT32_MAX));
        at[2] = static_cast<int>(small_int("a column number", 0, INT32_MAX));
        l.inlined_at = at;
      } else {
        rest_of_line(line);
      }
    }
    rest_of_line(line);
    mod_->locs.push_back(l);
    current_loc_ = mod_->locs.size() - 1;
  }

  // `.section NAME { ... }`: debug sections. The strings that name inlined functions
  // ($L__info_stringN: .b8 bytes...) are kept; everything else is skipped.
  void section() {
    ident("a section name");
    const size_t open = tok_.pos;
    expect("{");
    std::string label;
    while (!is("}")) {
      if (tok_.kind == Token::Kind::End) fail(open, "unterminated section: expected '}'");
      if (tok_.kind == Token::Kind::Ident && tok_.text[0] != '.') {
        std::string name = tok_.text;
        advance();
        if (accept(":")) label = name;
        continue;
      }
      if (accept(".b8")) {
        do {
          if (tok_.kind != Token::Kind::Number) break;
          const uint64_t byte = number("a byte");
          if (!label.empty() && byte != 0 && mod_->debug_strings[label].size() < 4096)
            mod_->debug_strings[label] += static_cast<char>(byte);
        } while (accept(","));
        continue;
      }
      advance();
    }
    expect("}");
  }

  // [.align N] .type name[dims] [= init];   in a state space
  void variable(bool is_extern, Function* fn) {
    const std::string space = tok_.text;
    const size_t start = tok_.pos;
    advance();
    int64_t align = 0;
    std::optional<RegType> type;
    int vec = 1;
    for (;;) {
      if (accept(".align")) {
        align = small_int("an alignment", 1, int64_t{1} << 20);
        if ((align & (align - 1)) != 0) fail(start, fmt::format("alignment {} is not a power of two", align));
      } else if (is(".v2") || is(".v4") || is(".v8")) {
        vec = tok_.text == ".v2" ? 2 : tok_.text == ".v4" ? 4 : 8;
        advance();
      } else if (tok_.kind == Token::Kind::Ident && tok_.text[0] == '.') {
        if (auto t = parse_type(tok_.text)) type = t;
        else if (tok_.text != ".ptr" && tok_.text != ".attribute") expected("a type or qualifier of the variable");
        advance();
      } else {
        break;
      }
    }
    if (!type) expected("the variable's type (e.g. .b8)");
    const size_t name_pos = tok_.pos;
    std::string name = ident("a variable name");
    int64_t count = 1;
    bool unsized = false;
    while (accept("[")) {
      if (accept("]")) {
        unsized = true;
        continue;
      }
      const int64_t n = small_int("an array size", 0, int64_t{1} << 40);
      expect("]");
      if (count > (int64_t{1} << 40) / std::max<int64_t>(1, n)) fail(name_pos, "the array is too large");
      count *= n;
    }
    if (accept("<")) {  // a parameterised name list is not allowed for variables
      fail(name_pos, "expected a variable, found a register range");
    }
    if (accept("=")) {
      int depth = 0;
      while (tok_.kind != Token::Kind::End && !(depth == 0 && is(";"))) {
        if (is("{")) ++depth;
        if (is("}")) --depth;
        advance();
      }
    }
    while (accept(",")) ident("a variable name");
    expect(";");
    const int64_t elem = std::max(1, type->bits / 8) * vec;
    if (space == ".shared") {
      SharedSymbol s;
      s.name = name;
      s.align = align ? align : elem;
      s.pos = name_pos;
      if (!(is_extern && unsized)) s.bytes = elem * count;
      if (fn) fn->shared.push_back(s);
      else mod_->shared.push_back(s);
      declared_.insert(name);
    } else if (space == ".param" && fn) {
      fn->local_params[name] = static_cast<int>(std::min<int64_t>(elem * count, INT32_MAX));
    } else {
      if (!fn) mod_->variables[name] = elem * count;
      declared_.insert(name);
    }
  }

  std::vector<Param> param_list() {
    std::vector<Param> out;
    expect("(");
    if (accept(")")) return out;
    do {
      Param p;
      p.pos = tok_.pos;
      if (!accept(".param") && !accept(".reg")) expected("'.param'");
      int64_t count = 1;
      while (tok_.kind == Token::Kind::Ident && tok_.text[0] == '.') {
        if (accept(".align")) {
          small_int("an alignment", 1, int64_t{1} << 20);
          continue;
        }
        if (auto t = parse_type(tok_.text)) p.type = t;
        advance();
      }
      if (!p.type) expected("the parameter's type");
      p.name = ident("a parameter name");
      while (accept("[")) {
        if (accept("]")) continue;
        const int64_t n = small_int("an array size", 0, int64_t{1} << 20);
        expect("]");
        if (n > 0 && count > (int64_t{1} << 30) / n) fail(p.pos, "the parameter is too large");
        count *= n;
      }
      p.bytes = static_cast<int>(std::min<int64_t>(std::max(1, p.type->bits / 8) * count, INT32_MAX));
      out.push_back(p);
    } while (accept(","));
    expect(")");
    return out;
  }

  void function(bool is_extern) {
    Function f;
    f.is_entry = is(".entry");
    f.pos = tok_.pos;
    advance();
    if (!f.is_entry && is("(")) f.returns = param_list();
    f.name = ident("a function name");
    declared_.insert(f.name);
    if (is("(")) f.params = param_list();
    for (;;) {
      if (is(".maxntid") || is(".reqntid")) {
        const bool req = is(".reqntid");
        advance();
        std::array<int64_t, 3> dims{1, 1, 1};
        for (int k = 0; k < 3; ++k) {
          dims[static_cast<size_t>(k)] = small_int("a thread count", 1, 1 << 20);
          if (!accept(",")) break;
        }
        (req ? f.reqntid : f.maxntid) = dims;
      } else if (accept(".minnctapersm")) {
        f.minnctapersm = small_int("a count", 0, int64_t{1} << 30);
      } else if (accept(".maxclusterrank")) {
        f.maxclusterrank = small_int("a count", 1, int64_t{1} << 30);
      } else if (accept(".maxnreg") || accept(".maxnctapersm")) {
        small_int("a count", 0, int64_t{1} << 30);
      } else if (accept(".reqnctapercluster")) {
        std::array<int64_t, 3> dims{1, 1, 1};
        for (int k = 0; k < 3; ++k) {
          dims[static_cast<size_t>(k)] = small_int("a cluster extent", 1, 1 << 20);
          if (!accept(",")) break;
        }
        f.reqnctapercluster = dims;
      } else if (accept(".explicitcluster")) {
        f.explicitcluster = true;
      } else if (accept(".noreturn")) {
      } else if (accept(".pragma")) {
        skip_to_semicolon();
      } else {
        break;
      }
    }
    if (accept(";")) {  // a declaration (prototype)
      if (!mod_->function(f.name)) mod_->functions.push_back(std::move(f));
      return;
    }
    (void)is_extern;
    const size_t open = tok_.pos;
    expect("{");
    f.has_body = true;
    body(f, open);
    // A definition replaces an earlier prototype.
    auto it = std::find_if(mod_->functions.begin(), mod_->functions.end(), [&](const Function& g) { return g.name == f.name; });
    if (it != mod_->functions.end()) {
      if (it->has_body) fail(f.pos, fmt::format("function '{}' is defined twice", f.name));
      *it = std::move(f);
    } else {
      mod_->functions.push_back(std::move(f));
    }
  }

  void reg_decl(Function& f) {
    std::optional<RegType> type;
    while (tok_.kind == Token::Kind::Ident && tok_.text[0] == '.') {
      if (auto t = parse_type(tok_.text)) type = t;
      else if (tok_.text != ".v2" && tok_.text != ".v4") expected("a register type");
      advance();
    }
    if (!type) expected("a register type (e.g. .b32)");
    do {
      const size_t pos = tok_.pos;
      std::string name = ident("a register name");
      if (name[0] == '.') fail(pos, fmt::format("expected a register name, found '{}'", name));
      if (accept("<")) {
        const int64_t n = small_int("a register count", 0, limits_.max_registers);
        expect(">");
        f.ranges.push_back({name, n, *type});
      } else {
        f.regs[name] = *type;
      }
    } while (accept(","));
    expect(";");
  }

  void body(Function& f, size_t open) {
    int depth = 1;
    while (depth > 0) {
      if (tok_.kind == Token::Kind::End) fail(open, "unterminated function body: expected '}'");
      if (accept("{")) {
        if (++depth > limits_.max_nesting)
          fail(tok_.pos, fmt::format("blocks nested more than {} deep", limits_.max_nesting));
        continue;
      }
      if (accept("}")) {
        --depth;
        continue;
      }
      if (is(".loc")) {
        loc_directive();
        continue;
      }
      if (is(".file")) {
        file_directive();
        continue;
      }
      if (accept(".reg")) {
        reg_decl(f);
        continue;
      }
      if (is(".shared") || is(".local") || is(".param") || is(".const") || is(".global")) {
        variable(false, &f);
        continue;
      }
      if (accept(".pragma")) {
        skip_to_semicolon();
        continue;
      }
      if (tok_.kind == Token::Kind::Ident && tok_.text[0] != '.' && tok_.text[0] != '%') {
        // A label, a call prototype, or an instruction.
        const size_t pos = tok_.pos;
        std::string word = tok_.text;
        advance();
        if (accept(":")) {
          if (accept(".callprototype") || accept(".branchtargets")) {
            declared_.insert(word);
            skip_to_semicolon();
            continue;
          }
          if (f.labels.count(word)) fail(pos, fmt::format("label '{}' is defined twice", word));
          f.labels[word] = f.body.size();
          continue;
        }
        instruction(f, std::nullopt, word, pos);
        continue;
      }
      if (accept("@")) {
        Operand g;
        g.pos = tok_.pos;
        g.negated = accept("!");
        g.kind = Operand::Kind::Register;
        g.name = ident("a predicate register");
        const size_t pos = tok_.pos;
        std::string word = ident("an instruction");
        instruction(f, g, word, pos);
        continue;
      }
      expected("an instruction, a label or a declaration");
    }
  }

  Operand operand() {
    Operand o;
    o.pos = tok_.pos;
    if (accept("{")) {
      o.kind = Operand::Kind::Vector;
      if (!is("}")) do o.elems.push_back(operand()); while (accept(","));
      expect("}");
      return o;
    }
    if (accept("(")) {
      o.kind = Operand::Kind::List;
      if (!is(")")) do o.elems.push_back(operand()); while (accept(","));
      expect(")");
      return o;
    }
    if (accept("[")) {
      o.kind = Operand::Kind::Address;
      if (tok_.kind == Token::Kind::Ident) {
        Operand base;
        base.pos = tok_.pos;
        base.name = tok_.text;
        base.kind = tok_.text[0] == '%' ? Operand::Kind::Register : Operand::Kind::Symbol;
        advance();
        o.elems.push_back(base);
        if (is("+") || is("-")) {
          const bool minus = is("-");
          advance();
          const size_t pos = tok_.pos;
          const bool neg2 = accept("-");
          const uint64_t v = number("an offset");
          if (v > static_cast<uint64_t>(INT32_MAX) * 4) fail(pos, "address offset out of range");
          o.offset = (minus != neg2) ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
        }
        while (accept(",")) o.elems.push_back(operand());  // texture/surface forms
      } else {
        const size_t pos = tok_.pos;
        const bool neg = accept("-");
        const uint64_t v = number("an address");
        if (v > static_cast<uint64_t>(INT32_MAX) * 4) fail(pos, "address out of range");
        o.offset = neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
      }
      expect("]");
      return o;
    }
    if (accept("!")) {
      o = operand();
      o.negated = true;
      return o;
    }
    if (is("-") || tok_.kind == Token::Kind::Number) {
      const bool neg = accept("-");
      o.kind = Operand::Kind::Immediate;
      o.imm = number("a number");
      if (neg) o.imm = 0 - o.imm;
      return o;
    }
    if (tok_.kind == Token::Kind::Ident) {
      o.name = tok_.text;
      advance();
      if (o.name == "_") {
        o.kind = Operand::Kind::Sink;
        return o;
      }
      o.kind = o.name[0] == '%' ? Operand::Kind::Register : Operand::Kind::Symbol;
      if (o.kind == Operand::Kind::Symbol && (is("+") || is("-"))) {  // sym+8
        const bool minus = is("-");
        advance();
        const uint64_t v = number("an offset");
        if (v > static_cast<uint64_t>(INT32_MAX) * 4) fail(o.pos, "offset out of range");
        o.offset = minus ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
      }
      if (accept("|")) o.pair = ident("a predicate register");
      return o;
    }
    expected("an operand");
  }

  void instruction(Function& f, std::optional<Operand> guard, std::string opcode, size_t pos) {
    if (f.body.size() >= limits_.max_instructions)
      fail(pos, fmt::format("more than {} instructions in one function", limits_.max_instructions));
    Instruction ins;
    ins.guard = std::move(guard);
    ins.pos = ins.guard ? ins.guard->pos - 1 : pos;
    ins.opcode = opcode;
    size_t b = 0;
    while (b <= opcode.size()) {
      size_t e = opcode.find('.', b);
      if (e == std::string::npos) e = opcode.size();
      ins.parts.push_back(opcode.substr(b, e - b));
      b = e + 1;
    }
    if (!known_instruction(ins.parts[0])) fail(pos, fmt::format("unknown instruction '{}'", opcode));
    if (!is(";")) do ins.operands.push_back(operand()); while (accept(","));
    expect(";");
    ins.debug_loc = current_loc_;
    f.body.push_back(std::move(ins));
  }

  // ---- after parsing: every register, label and symbol used is declared ----
  void check_register(const Function& f, const std::string& name, size_t pos) {
    if (special_register(name)) return;
    if (!f.reg_type(name)) fail(pos, fmt::format("use of undeclared register '{}'", name));
  }
  void check_operand(const Function& f, Operand& o, bool label_ok) {
    // Register names need no '%' (PTX ISA 4.4): a declared register named like an identifier.
    if (o.kind == Operand::Kind::Symbol && f.reg_type(o.name)) o.kind = Operand::Kind::Register;
    switch (o.kind) {
      case Operand::Kind::Register:
        check_register(f, o.name, o.pos);
        break;
      case Operand::Kind::Symbol: {
        const bool known = o.name == kWarpSizeIdentifier || declared_.count(o.name) || f.labels.count(o.name) || f.local_params.count(o.name) ||
                           std::any_of(f.params.begin(), f.params.end(), [&](const Param& p) { return p.name == o.name; }) ||
                           std::any_of(f.returns.begin(), f.returns.end(), [&](const Param& p) { return p.name == o.name; }) ||
                           std::any_of(f.shared.begin(), f.shared.end(), [&](const SharedSymbol& s) { return s.name == o.name; });
        if (!known) fail(o.pos, fmt::format("use of undeclared identifier '{}'", o.name));
        (void)label_ok;
        break;
      }
      default:
        break;
    }
    if (o.pair) check_register(f, *o.pair, o.pos);
    for (Operand& e : o.elems) check_operand(f, e, label_ok);
  }
  void validate() {
    for (Function& f : mod_->functions) {
      for (Instruction& ins : f.body) {
        if (ins.guard) check_register(f, ins.guard->name, ins.guard->pos);
        const bool branch = ins.parts[0] == "bra" || ins.parts[0] == "brx";
        for (Operand& o : ins.operands) {
          if (branch && o.kind == Operand::Kind::Symbol && !f.labels.count(o.name) && !declared_.count(o.name))
            fail(o.pos, fmt::format("branch to undefined label '{}'", o.name));
          check_operand(f, o, branch);
        }
      }
    }
  }

  std::shared_ptr<const SourceText> src_;
  const std::string& t_;
  ReadLimits limits_;
  size_t p_ = 0, line_ = 1, token_count_ = 0;
  Token tok_;
  Module* mod_ = nullptr;
  std::optional<size_t> current_loc_;
  std::set<std::string> declared_;
};

}  // namespace

bool known_instruction(const std::string& base) { return instruction_names().count(base) != 0; }

std::optional<RegType> parse_type(const std::string& name) {
  static const std::map<std::string, std::pair<int, bool>> kTypes = {
      {".pred", {1, false}},   {".b8", {8, false}},    {".u8", {8, false}},     {".s8", {8, false}},
      {".b16", {16, false}},   {".u16", {16, false}},  {".s16", {16, false}},   {".f16", {16, true}},
      {".bf16", {16, true}},   {".e4m3x2", {16, true}}, {".e5m2x2", {16, true}},
      {".b32", {32, false}},   {".u32", {32, false}},  {".s32", {32, false}},   {".f32", {32, true}},
      {".f16x2", {32, true}},  {".bf16x2", {32, true}}, {".tf32", {32, true}},
      {".b64", {64, false}},   {".u64", {64, false}},  {".s64", {64, false}},   {".f64", {64, true}},
      {".b128", {128, false}}, {".texref", {64, false}}, {".samplerref", {64, false}}, {".surfref", {64, false}}};
  auto it = kTypes.find(name);
  if (it == kTypes.end()) return std::nullopt;
  return RegType{name, it->second.first, it->second.second};
}

bool Instruction::has(const std::string& part) const { return std::find(parts.begin(), parts.end(), part) != parts.end(); }

std::optional<RegType> Function::reg_type(const std::string& name) const {
  auto it = regs.find(name);
  if (it != regs.end()) return it->second;
  size_t d = name.size();
  while (d > 0 && std::isdigit(static_cast<unsigned char>(name[d - 1]))) --d;
  if (d == name.size() || d == 0 || name.size() - d > 18) return std::nullopt;
  if (name.size() - d > 1 && name[d] == '0') return std::nullopt;  // %r01 is not %r1
  const std::string prefix = name.substr(0, d);
  const int64_t index = std::stoll(name.substr(d));
  for (const RegRange& r : ranges)
    if (r.prefix == prefix && index < r.count) return r.type;
  return std::nullopt;
}

const Function* Module::function(const std::string& name) const {
  for (const Function& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

const SharedSymbol* Module::shared_symbol(const Function& f, const std::string& name) const {
  for (const SharedSymbol& s : f.shared)
    if (s.name == name) return &s;
  for (const SharedSymbol& s : shared)
    if (s.name == name) return &s;
  return nullptr;
}

std::vector<SourceFrame> source_frames(const Module& m, size_t index) {
  std::vector<SourceFrame> inner_first;
  const DebugLoc* d = &m.locs.at(index);
  inner_first.push_back({d->file, d->line, d->col, d->function_label});
  size_t cur = index;
  for (int depth = 0; d->inlined_at && depth < 64; ++depth) {
    const auto at = *d->inlined_at;
    inner_first.push_back({at[0], at[1], at[2], {}});
    std::optional<size_t> found;
    for (size_t j = cur, scanned = 0; j-- > 0 && scanned < 4096; ++scanned)
      if (m.locs[j].file == at[0] && m.locs[j].line == at[1] && m.locs[j].col == at[2]) {
        found = j;
        break;
      }
    if (!found) break;
    cur = *found;
    d = &m.locs[cur];
    inner_first.back().function_label = d->function_label;
  }
  return {inner_first.rbegin(), inner_first.rend()};
}

Module read_ptx(std::shared_ptr<const SourceText> source, const ReadLimits& limits) {
  return Reader(std::move(source), limits).read();
}

}  // namespace lp::ptx
