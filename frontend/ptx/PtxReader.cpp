// The PTX reader: a tokenizer and a recursive-descent parser of the module grammar (PTX ISA 9.0,
// sections 4 "Syntax", 5.1 "State spaces", 7 "Abstracting the ABI", 11 "Directives"). It accepts
// what nvcc, Triton and CUTLASS emit and refuses anything else with a located diagnostic.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "frontend/ptx/PtxReader.h"
#include "analyzer/support/Governor.h"

namespace lp::ptx {

namespace {

__extension__ using UInt128 = unsigned __int128;

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

}  // namespace

namespace detail {

Reader::Reader(std::shared_ptr<const SourceText> src, const ReadLimits& limits) : src_(std::move(src)), t_(src_->text), limits_(limits) {}

Module Reader::read() {
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

// ---- tokens ----

void Reader::fail(size_t pos, const std::string& message) {
  Diagnostic d;
  d.severity = Severity::Error;
  d.loc = SourceLoc{src_, std::min(pos, t_.size())};
  d.message = message;
  throw DiagnosticError(std::move(d));
}

void Reader::expected(const std::string& what) {
  fail(tok_.pos, tok_.kind == Token::Kind::End ? fmt::format("expected {}, found the end of the file", what)
                                                : fmt::format("expected {}, found '{}'", what, tok_.text));
}

void Reader::skip_space() {
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

void Reader::advance() {
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

bool Reader::is(const char* text) const { return tok_.kind != Token::Kind::String && tok_.text == text; }

bool Reader::accept(const char* text) {
  if (!is(text)) return false;
  advance();
  return true;
}

void Reader::expect(const char* text) {
  if (!accept(text)) expected(fmt::format("'{}'", text));
}

std::string Reader::ident(const std::string& what) {
  if (tok_.kind != Token::Kind::Ident) expected(what);
  std::string s = tok_.text;
  advance();
  return s;
}

uint64_t Reader::parse_number_text(const std::string& s, size_t pos) {
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

uint64_t Reader::number(const std::string& what) {
  if (tok_.kind != Token::Kind::Number) expected(what);
  const uint64_t v = parse_number_text(tok_.text, tok_.pos);
  advance();
  return v;
}

int64_t Reader::small_int(const std::string& what, int64_t lo, int64_t hi) {
  const size_t pos = tok_.pos;
  bool negative = accept("-");
  const uint64_t v = number(what);
  if (v > static_cast<uint64_t>(INT64_MAX)) fail(pos, fmt::format("{} is out of range", what));
  const int64_t x = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  if (x < lo || x > hi) fail(pos, fmt::format("{} must be in [{}, {}], found {}", what, lo, hi, x));
  return x;
}

// Consumes the rest of the current line (directives without a semicolon).
void Reader::rest_of_line(size_t line) {
  while (tok_.kind != Token::Kind::End && tok_.line == line) advance();
}

void Reader::skip_to_semicolon() {
  int depth = 0;
  while (tok_.kind != Token::Kind::End && !(depth == 0 && is(";"))) {
    if (is("{")) ++depth;
    if (is("}")) --depth;
    advance();
  }
  expect(";");
}

// ---- module level ----

void Reader::top_level() {
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

void Reader::file_directive() {
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

void Reader::loc_directive() {
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
void Reader::section() {
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
void Reader::variable(bool is_extern, Function* fn) {
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

std::vector<Param> Reader::param_list() {
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

void Reader::function(bool is_extern) {
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

void Reader::reg_decl(Function& f) {
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

}  // namespace detail

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
  return detail::Reader(std::move(source), limits).read();
}

}  // namespace lp::ptx