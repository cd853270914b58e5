#include <fmt/format.h>

#include "analyzer/parse/Parsers.h"

namespace lp {

namespace {

bool starts_with_word(std::string_view t, std::string_view w) {
  if (t.substr(0, w.size()) != w) return false;
  return t.size() == w.size() || !is_ident_char(t[w.size()]);
}

}  // namespace

Notation detect_notation(std::string_view text) {
  size_t i = text.find_first_not_of(" \t\r\n");
  if (i == std::string_view::npos) return Notation::Cute;
  std::string_view t = text.substr(i);
  if (t.substr(0, 2) == "T." || t.substr(0, 2) == "S[" || t.substr(0, 2) == "R[" || t.substr(0, 2) == "O[" ||
      starts_with_word(t, "ComposeLayout") || starts_with_word(t, "TileLayout") ||
      starts_with_word(t, "SwizzleLayout") || t.substr(0, 3) == "S [")
    return Notation::Tirx;
  if (t[0] == '(') {
    // A descriptor is a bare group of bases: no ':' at all (CuTe always writes shape:stride).
    if (t.find(':') == std::string_view::npos && t.find('@') != std::string_view::npos) return Notation::Descriptor;
    if (t.find_first_not_of("(), \t\r\n") == std::string_view::npos) return Notation::Descriptor;
  }
  return Notation::Cute;
}

bool is_cpp_spelling(std::string_view text) {
  size_t i = text.find_first_not_of(" \t\r\n");
  if (i == std::string_view::npos) return false;
  std::string_view t = text.substr(i);
  if (t.substr(0, 6) == "cute::") t = t.substr(6);
  for (std::string_view w : {"composition", "make_layout", "make_composed_layout", "Layout", "ComposedLayout"})
    if (starts_with_word(t, w)) return true;
  // Any other C++ name (tile_to_shape(...), GMMA::Layout_K_SW128_Atom<T>, a type alias) goes to
  // the C++ reader, which names what it does not support; `Sw<`/`S<` (a swizzle in CuTe's and the
  // DSL's print format) and a parameter (`M:_1`, `M*2:_1`) stay in the print format.
  if (!is_ident_start(t[0])) return false;
  size_t e = 0;
  while (e < t.size() && is_ident_char(t[e])) ++e;
  const std::string_view word = t.substr(0, e);
  size_t n = t.find_first_not_of(" \t\r\n", e);
  if (n == std::string_view::npos) return true;
  if ((word == "Sw" || word == "S") && t[n] == '<') return false;
  return t[n] == '(' || t[n] == '<' || t[n] == '{' || t.substr(n, 2) == "::";
}

ParsedLayout parse_layout(std::shared_ptr<const SourceText> src, std::optional<Notation> notation,
                          ParseLimits limits, Symbols symbols) {
  Cursor c(src, limits, symbols);
  std::vector<ParamUse> uses;
  if (symbols.params) c.set_param_uses(&uses);
  if (c.at_end()) c.fail_at(c.pos(), "expected a layout, found an empty text");
  Notation n = notation.value_or(detect_notation(src->text));
  Layout layout = [&] {
    switch (n) {
      case Notation::Tirx: return parse_tirx(c);
      case Notation::Descriptor: return parse_descriptor(c);
      case Notation::Cute: return is_cpp_spelling(src->text) ? parse_cpp_spelling(c) : parse_cute(c);
    }
    return parse_cute(c);
  }();
  if (!c.at_end()) c.fail_expected("the end of the layout");
  return ParsedLayout{std::move(layout), n, std::move(uses)};
}

ParsedLayout parse_layout_text(std::string text, std::string name, std::optional<Notation> notation,
                               const std::vector<ParamSpec>* params) {
  auto src = std::make_shared<SourceText>();
  src->name = std::move(name);
  src->text = std::move(text);
  return parse_layout(std::move(src), notation, {}, params);
}

}  // namespace lp
