// The pieces annotation statements are made of, read by StatementReader (StatementReader.h): tokens,
// declared names, layouts (in backquotes, to the end of a statement, tilers) and operands.
#include <fmt/format.h>

#include <cctype>

#include "frontend/annotate/StatementReader.h"

namespace lp::annotate {

namespace {

bool is_token_char(char c) { return is_ident_char(c) || c == '.'; }

}  // namespace

namespace detail {

const char* kind_phrase(const AnnotationParser::Entity& e) {
  using K = AnnotationParser::Kind;
  switch (e.kind) {
    case K::Buffer:
      switch (e.space) {
        case Space::Smem: return "an smem buffer";
        case Space::Tmem: return "a tmem buffer";
        case Space::Regs: return "a register layout";
        case Space::Global: return "a global tensor";
      }
      break;
    case K::Param: return "a parameter";
    case K::Access: return "an access";
    case K::Tma: return "a TMA copy";
    case K::Desc: return "a descriptor";
    case K::Compose: return "a composition";
    case K::Divide: return "a divide";
    case K::Product: return "a product";
  }
  return "a name";
}

bool has_layout(const AnnotationParser::Entity& e) {
  using K = AnnotationParser::Kind;
  return e.kind == K::Buffer || e.kind == K::Compose || e.kind == K::Divide || e.kind == K::Product;
}

}  // namespace detail

// ---- tokens -------------------------------------------------------------------------------------

Name StatementReader::name(std::string_view what) {
  size_t at = here();
  std::string id = c().parse_identifier();
  if (id.empty()) c().fail_expected(what);
  return Name{std::move(id), loc(at)};
}

// A dotted name (instruction or fragment), or a swizzle mode: [A-Za-z0-9_.]+.
Name StatementReader::token(std::string_view what, bool dots) {
  size_t at = here();
  size_t e = at;
  const std::string& t = c().source()->text;
  while (e < t.size() && (dots ? is_token_char(t[e]) : is_ident_char(t[e]))) ++e;
  if (e == at) c().fail_expected(what);
  c().set_pos(e);
  return Name{t.substr(at, e - at), loc(at)};
}

Number StatementReader::integer(std::string_view what) {
  size_t at = here();
  if (std::optional<IntExpr> e = c().parse_int_expr()) {
    if (e->param) fail(loc(at), fmt::format("expected {}: a parameter stands only for an extent or a stride in a layout", what));
    return Number{e->value, loc(at)};
  }
  char ch = c().peek_raw();
  if (!(std::isdigit(static_cast<unsigned char>(ch)) || ch == '-')) c().fail_expected(what);
  int64_t v = c().parse_int(what);
  return Number{v, loc(at)};
}

Number StatementReader::positive(std::string_view what) {
  Number n = integer(what);
  if (n.value < 1) fail(n.loc, fmt::format("expected {} of at least 1, found {}", what, n.value));
  return n;
}

void StatementReader::end_of_statement() {
  if (!c().at_end()) c().fail_expected("the end of the statement");
}

// `NAME:` right after a statement's keywords names the operation; otherwise nothing is read.
std::optional<Name> StatementReader::optional_label() {
  size_t save = here();
  std::string id = c().parse_identifier();
  if (!id.empty() && c().peek() == ':') {
    c().set_pos(c().pos() + 1);
    Name n{std::move(id), loc(save)};
    declare(n);
    return n;
  }
  c().set_pos(save);
  return std::nullopt;
}

// ---- names --------------------------------------------------------------------------------------

// Inside a `for` loop the name is stored with the instance's label (`tile_K[D=64]`): each
// instance declares its own, and may not shadow a name declared outside it.
void StatementReader::declare(Name& n) {
  if (c().constant(n.text))
    fail(n.loc, fmt::format("'{}' is a loop variable; a declaration needs a name of its own", n.text));
  for (const std::string& key : p_.visible_keys(n.text))
    if (auto it = p_.names_.find(key); it != p_.names_.end())
      fail(n.loc, fmt::format("'{}' is already declared; every name in a file is declared once{}", n.text,
                              key == n.text ? "" : " (in each instance of a loop)"),
           {Note{it->second.loc, fmt::format("'{}' was first declared here", n.text)}});
  n.text = p_.visible_keys(n.text).front();
  declared_ = n;
}

Name StatementReader::smem_buffer(std::string_view role) {
  Name n = name(fmt::format("the name of the smem buffer {}", role));
  resolve(
      n, [](const AnnotationParser::Entity& e) { return e.kind == AnnotationParser::Kind::Buffer && e.space == Space::Smem; },
      "an smem buffer");
  return n;
}

void StatementReader::commit(AnnotationParser::Kind kind, Space space) {
  if (declared_) p_.names_[declared_->text] = AnnotationParser::Entity{kind, space, declared_->loc, false};
}

// ---- layouts ------------------------------------------------------------------------------------

// Parses statement-part bytes [b, e) of the current cut as one layout.
LayoutExpr StatementReader::layout_at(size_t b, size_t e, std::string_view context) {
  const std::string& t = c().source()->text;
  while (b < e && std::isspace(static_cast<unsigned char>(t[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(t[e - 1]))) --e;
  if (b == e) fail(loc(b), fmt::format("expected a layout {}", context));
  size_t stmt_offset = base_ - raw_.begin + b;
  Part part = cut(stmt_offset, stmt_offset + (e - b));
  const std::vector<ParamSpec>* params = p_.params_.empty() ? nullptr : &p_.params_;
  try {
    ParsedLayout parsed =
        parse_layout(part.src, std::nullopt, p_.limits_.layout, Symbols{params, &p_.constants_, &p_.derived_});
    std::string instance;
    if (!p_.constants_.empty() && parsed.param_uses.empty()) instance = print_cute_or_tirx(parsed.layout);
    return LayoutExpr{part.src->text, loc(b), part.src, std::move(parsed), std::move(instance)};
  } catch (const DiagnosticError&) {
    throw;
  } catch (const std::exception& ex) {
    // The layout parsers report malformed text as DiagnosticError; anything else (an IR
    // invariant, an overflow) still names the layout it came from.
    fail(loc(b), fmt::format("invalid layout: {}", ex.what()));
  }
}

// A layout in backquotes at the cursor.
LayoutExpr StatementReader::quoted_layout(std::string_view context) {
  size_t open = here();
  const std::string& t = c().source()->text;
  size_t close = t.find('`', open + 1);
  if (close == std::string::npos) fail(loc(open), "unterminated '`' layout: expected a closing '`'");
  LayoutExpr l = layout_at(open + 1, close, context);
  c().set_pos(close + 1);
  return l;
}

// A layout running to the end of the statement, or to a trailing `align N` clause when
// `allow_align` (the last `align` word outside brackets ends the layout). Backquotes delimit
// it explicitly.
// `clause`: a keyword that starts a clause after the layout (`active` after an access's lanes).
LayoutExpr StatementReader::layout_to_end(std::string_view context, bool allow_align, std::string_view clause) {
  size_t at = here();
  if (c().peek_raw() == '`') return quoted_layout(context);
  const std::string& t = c().source()->text;
  size_t end = t.size();
  if (allow_align) {
    // A trailing `cute "NAME"` clause ends the layout (no notation has a '"'); an `align`
    // before it ends it earlier.
    int depth = 0;
    for (size_t i = at; i < t.size(); ++i) {
      char ch = t[i];
      if (ch == '(' || ch == '[' || ch == '{') ++depth;
      else if (ch == ')' || ch == ']' || ch == '}') --depth;
      else if (depth == 0 && i > at && std::isspace(static_cast<unsigned char>(t[i - 1])) && t.compare(i, 4, "cute") == 0) {
        size_t q = i + 4;
        while (q < t.size() && std::isspace(static_cast<unsigned char>(t[q]))) ++q;
        if (q > i + 4 && q < t.size() && t[q] == '"') {
          end = i;
          break;
        }
      }
    }
    const size_t limit = end;
    depth = 0;
    for (size_t i = at; i < limit; ++i) {
      char ch = t[i];
      if (ch == '(' || ch == '[' || ch == '{') ++depth;
      else if (ch == ')' || ch == ']' || ch == '}') --depth;
      else if (depth == 0 && i > at && std::isspace(static_cast<unsigned char>(t[i - 1])) &&
               t.compare(i, 5, "align") == 0 && (i + 5 == limit || !is_ident_char(t[i + 5])))
        end = i;
    }
  }
  if (!clause.empty()) end = clause_start(at, end, clause);
  LayoutExpr l = layout_at(at, end, context);
  c().set_pos(end);
  return l;
}

// Where a trailing `keyword ...` clause starts in [at, limit): the keyword at bracket depth 0,
// after whitespace and before a non-identifier character; `limit` when there is none.
size_t StatementReader::clause_start(size_t at, size_t limit, std::string_view keyword) {
  const std::string& t = c().source()->text;
  int depth = 0;
  for (size_t i = at; i < limit; ++i) {
    const char ch = t[i];
    if (ch == '(' || ch == '[' || ch == '{') ++depth;
    else if (ch == ')' || ch == ']' || ch == '}') --depth;
    else if (depth == 0 && i > at && std::isspace(static_cast<unsigned char>(t[i - 1])) &&
             t.compare(i, keyword.size(), keyword) == 0 &&
             (i + keyword.size() == limit || !is_ident_char(t[i + keyword.size()])))
      return i;
  }
  return limit;
}

// `active R, R, ...` with R a lane N or a range N..M of the warp's lanes.
ActiveLanes StatementReader::active_lanes() {
  ActiveLanes a;
  a.loc = loc(here());
  c().expect("active", "");
  a.mask = 0;
  do {
    const Number lo = integer(fmt::format("a lane (0..{}) or a range of lanes (LO..HI)", hw::kWarpLanes - 1));
    Number hi = lo;
    if (c().consume("..")) hi = integer("the range's last lane");
    for (const Number& n : {lo, hi})
      if (n.value < 0 || n.value >= hw::kWarpLanes)
        fail(n.loc, fmt::format("lane {} is not a lane of the warp: lanes are 0..{}", n.value, hw::kWarpLanes - 1));
    if (hi.value < lo.value) fail(hi.loc, fmt::format("empty range: lane {} is below {}", hi.value, lo.value));
    for (int64_t l = lo.value; l <= hi.value; ++l) a.mask |= hw::LaneMask{1} << l;
  } while (c().consume(","));
  return a;
}

// A tiler `[...]` at the cursor, up to its matching ']'.
TilerExpr StatementReader::tiler_at_cursor() {
  const size_t open = here();
  const std::string& t = c().source()->text;
  size_t close = open, depth = 0;
  for (; close < t.size(); ++close) {
    if (t[close] == '[') ++depth;
    else if (t[close] == ']' && --depth == 0) break;
  }
  if (close == t.size()) fail(loc(open), "unterminated tiler: expected a closing ']'");
  const size_t stmt_offset = base_ - raw_.begin + open;
  Part part = cut(stmt_offset, stmt_offset + (close + 1 - open));
  TilerExpr e{part.src->text, loc(open), parse_tiler(part.src, p_.limits_.layout, &p_.constants_)};
  c().set_pos(close + 1);
  return e;
}

// A name or a backquoted layout; with `tiler_allowed`, also a tiler `[...]`.
Operand StatementReader::operand(std::string_view context, bool tiler_allowed) {
  if (c().peek() == '`') return quoted_layout(context);
  if (c().peek() == '[') {
    if (!tiler_allowed)
      c().fail_expected(fmt::format("a declared name or a layout in backquotes {} (a tiler [...] is not one)", context));
    return tiler_at_cursor();
  }
  size_t at = here();
  std::string id = c().parse_identifier();
  if (id.empty())
    c().fail_expected(fmt::format("a declared name{} {}", tiler_allowed ? ", a layout in backquotes or a tiler [...]"
                                                                        : " or a layout in backquotes", context));
  Name n{std::move(id), loc(at)};
  resolve(n, detail::has_layout, "a buffer, composition, divide or product (something with a layout)");
  return n;
}

}  // namespace lp::annotate
