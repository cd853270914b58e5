#include "frontend/cuda/CudaSource.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "frontend/cuda/CudaSourceTokens.h"

namespace lp::cuda {

namespace detail {

std::vector<size_t> match_brackets(const std::vector<Token>& t) {
  std::vector<size_t> match(t.size(), std::string::npos);
  std::vector<size_t> open;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].kind != Token::Kind::Punct) continue;
    const std::string& s = t[i].text;
    if (s == "(" || s == "[" || s == "{") {
      open.push_back(i);
    } else if (s == ")" || s == "]" || s == "}") {
      const char want = s == ")" ? '(' : s == "]" ? '[' : '{';
      // Unbalanced text (a macro's half): drop opens of another kind.
      while (!open.empty() && t[open.back()].text[0] != want) open.pop_back();
      if (open.empty()) continue;
      match[i] = open.back();
      match[open.back()] = i;
      open.pop_back();
    }
  }
  return match;
}

const std::set<std::string>& fundamental_words() {
  static const std::set<std::string> k = {"void", "bool", "char", "short", "int", "long", "signed", "unsigned", "float",
                                          "double", "const", "volatile", "__restrict__", "__restrict", "restrict", "auto",
                                          "size_t", "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t",
                                          "int64_t", "uint64_t", "half", "__half", "struct", "class", "typename"};
  return k;
}

// The size of a fundamental type named by `words` (sizeof), nullopt for others.
std::optional<int64_t> fundamental_size(const std::vector<std::string>& words) {
  std::string last;
  int longs = 0;
  bool pointer = false;
  for (const std::string& w : words) {
    if (w == "*") pointer = true;
    else if (w == "long") ++longs;
    else if (w != "const" && w != "volatile" && w != "unsigned" && w != "signed" && w != "std" && w != "::") last = w;
  }
  if (pointer) return 8;
  static const std::map<std::string, int64_t> kSizes = {
      {"char", 1},     {"bool", 1},     {"short", 2},    {"int", 4},      {"float", 4},    {"double", 8},
      {"size_t", 8},   {"int8_t", 1},   {"uint8_t", 1},  {"int16_t", 2},  {"uint16_t", 2}, {"int32_t", 4},
      {"uint32_t", 4}, {"int64_t", 8},  {"uint64_t", 8}, {"half", 2},     {"__half", 2},   {"__nv_bfloat16", 2},
      {"float2", 8},   {"float4", 16},  {"int2", 8},     {"int4", 16},    {"uint2", 8},    {"uint4", 16},
      {"double2", 16}, {"half2", 4},    {"__half2", 4},  {"char4", 4},    {"uchar4", 4}};
  if (last.empty()) return longs > 0 ? std::optional<int64_t>(8) : std::optional<int64_t>(4);  // long, unsigned
  if (longs > 0 && (last == "int" || last == "double")) return last == "double" ? 16 : 8;
  auto it = kSizes.find(last);
  return it == kSizes.end() ? std::nullopt : std::optional<int64_t>(it->second);
}

// Whether `word` may be part of the declared type of an arithmetic variable, or of an arithmetic
// expression besides its variables (casts, std::min): a block given as such a value converts to
// dim3(value, 1, 1).
bool arithmetic_word(const std::string& word) {
  static const std::set<std::string> kWords = {
      "int",     "unsigned", "signed",   "long",    "short",    "char",     "bool",    "float",   "double",
      "size_t",  "uint",     "int8_t",   "uint8_t", "int16_t",  "uint16_t", "int32_t", "uint32_t", "int64_t",
      "uint64_t", "const",   "constexpr", "static", "volatile", "std",      "::"};
  return kWords.count(word) != 0;
}

std::optional<int64_t> integer_literal(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), '\''), s.end());
  while (!s.empty() && (s.back() == 'u' || s.back() == 'U' || s.back() == 'l' || s.back() == 'L' || s.back() == 'z' ||
                        s.back() == 'Z'))
    s.pop_back();
  if (s.empty()) return std::nullopt;
  int base = 10;
  size_t i = 0;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) base = 16, i = 2;
  else if (s.size() > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) base = 2, i = 2;
  else if (s.size() > 1 && s[0] == '0') base = 8, i = 1;
  unsigned __int128 v = 0;
  for (; i < s.size(); ++i) {
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
    int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : 99;
    if (d >= base) return std::nullopt;
    v = v * static_cast<unsigned>(base) + static_cast<unsigned>(d);
    if (v > static_cast<unsigned __int128>(INT64_MAX)) return std::nullopt;
  }
  return static_cast<int64_t>(v);
}

}  // namespace detail

namespace {

bool is_attribute_name(const std::string& s) {
  return s.size() > 4 && s.rfind("__", 0) == 0 && s.compare(s.size() - 2, 2, "__") == 0;
}

std::string normalise_arg(std::string a) {
  a.erase(std::remove_if(a.begin(), a.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }), a.end());
  if (auto v = detail::integer_literal(a)) return std::to_string(*v);
  if (a.size() > 1 && a[0] == '-')
    if (auto v = detail::integer_literal(a.substr(1))) return std::to_string(-*v);
  return a;
}

}  // namespace

std::vector<KernelDefinition> kernel_definitions(std::string_view source, const std::string& name) {
  const Tokens toks = tokenize(source, name, false);
  const std::vector<Token>& t = toks.tokens;
  const std::vector<size_t> match = detail::match_brackets(t);
  std::vector<KernelDefinition> out;
  for (size_t i = 0; i < t.size(); ++i) {
    if (!t[i].is("__global__")) continue;
    KernelDefinition d;
    d.line = t[i].line;
    size_t k = i + 1;
    size_t open = std::string::npos;
    for (; k < t.size() && !t[k].is(";") && !t[k].is("{"); ++k) {
      if (!t[k].is("(") || match[k] == std::string::npos) continue;
      if (k > 0 && t[k - 1].kind == Token::Kind::Identifier && !is_attribute_name(t[k - 1].text) &&
          !t[k - 1].is("__attribute__") && !t[k - 1].is("alignas") && !t[k - 1].is("__declspec")) {
        d.name = t[k - 1].text;
        open = k;
        break;
      }
      k = match[k];
    }
    if (open == std::string::npos) continue;
    const size_t close = match[open];
    // The parameters' names: the last identifier of each parameter that is not a type's word.
    for (size_t b = open + 1; b < close;) {
      size_t e = b;
      while (e < close && !t[e].is(",")) {
        if (t[e].is("<")) {  // template arguments of a parameter's type hold commas of their own
          for (int depth = 0; e < close; ++e) {
            if (t[e].is("<")) ++depth;
            else if (t[e].is(">")) --depth;
            if (depth == 0) break;
          }
        } else if ((t[e].is("(") || t[e].is("[")) && match[e] != std::string::npos) {
          e = match[e];
        }
        ++e;
      }
      size_t end = e;
      for (size_t q = b; q < e; ++q)
        if (t[q].is("=")) {
          end = q;
          break;
        }
      std::string pname;
      size_t idents = 0;
      for (size_t q = b; q < end; ++q)
        if (t[q].kind == Token::Kind::Identifier) {
          ++idents;
          if (!detail::fundamental_words().count(t[q].text)) pname = t[q].text;
        }
      if (idents < 2 || (end > b && t[end - 1].kind != Token::Kind::Identifier && !t[end - 1].is("]"))) pname.clear();
      if (end > b && t[end - 1].kind == Token::Kind::Identifier && detail::fundamental_words().count(t[end - 1].text)) pname.clear();
      if (!(b == e && e == close)) d.params.push_back(pname);
      b = e + 1;
    }
    size_t body = close + 1;
    while (body < t.size() && !t[body].is("{") && !t[body].is(";")) ++body;
    if (body >= t.size() || t[body].is(";") || match[body] == std::string::npos) continue;
    d.body_line = t[body].line;
    d.end_line = t[match[body]].line;
    if (d.params.size() == 1 && d.params[0].empty() && close == open + 2 && t[open + 1].is("void")) d.params.clear();
    out.push_back(std::move(d));
    i = match[body];
  }
  return out;
}

KernelName split_kernel_name(std::string_view s) {
  std::string text(s);
  // A parameter list at the end: (...).
  auto strip_group = [&](char open, char close) -> std::optional<std::string> {
    if (text.empty() || text.back() != close) return std::nullopt;
    int depth = 0;
    for (size_t k = text.size(); k-- > 0;) {
      if (text[k] == close) ++depth;
      else if (text[k] == open && --depth == 0) {
        std::string inner = text.substr(k + 1, text.size() - k - 2);
        text.resize(k);
        return inner;
      }
    }
    return std::nullopt;
  };
  strip_group('(', ')');
  while (!text.empty() && text.back() == ' ') text.pop_back();
  // The name is the last top-level word (a demangled template's return type comes first).
  int depth = 0;
  for (size_t k = text.size(); k-- > 0;) {
    if (text[k] == '>') ++depth;
    else if (text[k] == '<') --depth;
    else if (text[k] == ' ' && depth == 0) {
      text = text.substr(k + 1);
      break;
    }
  }
  KernelName n;
  if (auto inner = strip_group('<', '>')) {
    std::vector<std::string> args;
    int d = 0;
    std::string cur;
    for (char c : *inner) {
      if (c == '<' || c == '(') ++d;
      if (c == '>' || c == ')') --d;
      if (c == ',' && d == 0) {
        args.push_back(normalise_arg(cur));
        cur.clear();
      } else {
        cur += c;
      }
    }
    args.push_back(normalise_arg(cur));
    n.template_args = std::move(args);
  }
  const size_t q = text.rfind("::");
  if (q == std::string::npos) {
    n.base = text;
  } else {
    n.qualifier = text.substr(0, q + 2);
    n.base = text.substr(q + 2);
  }
  return n;
}

bool launches_kernel(const KernelName& launched, const KernelName& defined) {
  if (launched.base != defined.base) return false;
  if (!launched.qualifier.empty() && (defined.qualifier.size() < launched.qualifier.size() ||
                                      defined.qualifier.compare(defined.qualifier.size() - launched.qualifier.size(),
                                                                launched.qualifier.size(), launched.qualifier) != 0))
    return false;
  if (!launched.template_args) return true;
  if (!defined.template_args || defined.template_args->size() != launched.template_args->size()) return false;
  for (size_t k = 0; k < launched.template_args->size(); ++k)
    if ((*launched.template_args)[k] != "?" && (*launched.template_args)[k] != (*defined.template_args)[k]) return false;
  return true;
}

}  // namespace lp::cuda
