#include "analyzer/annotate/AnnotationParser.h"
#include "analyzer/annotate/LaunchFacts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "analyzer/ir/Checked.h"
#include "analyzer/support/KernelName.h"
#include "analyzer/parse/OperandParser.h"
#include "hw/ElementType.h"
#include "hw/HwError.h"

namespace lp::annotate {

namespace {

/// Thrown when a statement refers to a name whose own declaration already failed: that error
/// has been reported, and a second one about the same root cause would only be noise.
struct DroppedStatement {};

bool is_token_char(char c) { return is_ident_char(c) || c == '.'; }

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

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

/// Reads one raw statement with a Cursor over cuts of its text; every cut is registered with the
/// file offset of its first byte, so any diagnostic can be moved back into the file.
class StatementReader {
 public:
  StatementReader(AnnotationParser& p, const RawStatement& raw) : p_(p), raw_(raw), file_(p.file_) {}

  /// The statement (or nullopt for a standalone `allow`, which becomes pending).
  std::optional<Statement> read() {
    std::vector<std::pair<size_t, size_t>> parts = split_parts();
    Part body = cut(parts[0].first, parts[0].second);
    Cursor c(body.src, {}, Symbols{&p_.params_, &p_.constants_, &p_.derived_});
    c_ = &c;
    base_ = body.base;
    std::optional<Statement> st = read_body();
    std::vector<Suppression> clauses;
    std::optional<Origin> origin;
    for (size_t k = 1; k < parts.size(); ++k) read_clause(parts[k].first, parts[k].second, clauses, origin);
    if (!st) {
      if (origin) fail(origin->loc, "an 'at' clause belongs to a statement; a standalone 'allow' has none");
      for (Suppression& s : clauses) p_.pending_allows_.push_back(std::move(s));
      return std::nullopt;
    }
    st->origin = std::move(origin);
    if (!p_.constants_.empty()) st->instance = Instance{p_.instance_label(p_.constants_.size()), p_.loop_locs_.back()};
    st->allows = std::move(p_.pending_allows_);
    p_.pending_allows_.clear();
    for (Suppression& s : clauses) st->allows.push_back(std::move(s));
    return st;
  }

  /// A loop header `for NAME in V1, V2, LO..HI {` (values are integer expressions over the
  /// enclosing loops' variables).
  AnnotationParser::LoopRecording read_loop() {
    Part whole = cut(0, raw_.text.size());
    Cursor cursor(whole.src, {}, Symbols{nullptr, &p_.constants_});
    c_ = &cursor;
    base_ = whole.base;
    AnnotationParser::LoopRecording loop;
    loop.loc = loc(here());
    c().expect("for", "");
    if (p_.constants_.size() >= p_.limits_.max_loop_depth)
      fail(loop.loc, fmt::format("'for' loops nest deeper than {} levels", p_.limits_.max_loop_depth));
    Name var = name("the loop variable's name (for NAME in V1, V2, ... {)");
    if (c().constant(var.text))
      fail(var.loc, fmt::format("'{}' is already the variable of an enclosing loop", var.text));
    for (const ParamSpec& ps : p_.params_)
      if (ps.name == var.text)
        fail(var.loc, fmt::format("'{}' is a parameter; a loop variable needs a name of its own", var.text));
    for (const std::string& key : p_.visible_keys(var.text))
      if (auto it = p_.names_.find(key); it != p_.names_.end())
        fail(var.loc, fmt::format("'{}' is already declared; a loop variable needs a name of its own", var.text),
             {Note{it->second.loc, fmt::format("'{}' was declared here", var.text)}});
    loop.var = var.text;
    c().expect("in", "after the loop variable (for NAME in V1, V2, ... {)");
    size_t enclosing = 1;
    for (size_t n : p_.loop_sizes_) enclosing *= n;  // each at most max_instances
    const size_t limit = p_.limits_.max_instances / enclosing;
    do {
      const Number lo = integer("a value of the loop variable (an integer or LO..HI)");
      Number hi = lo;
      if (c().consume("..")) hi = integer("the range's last value");
      if (hi.value < lo.value) fail(hi.loc, fmt::format("empty range: {} is below {}", hi.value, lo.value));
      if (static_cast<uint64_t>(hi.value) - static_cast<uint64_t>(lo.value) >= limit - loop.values.size())
        fail(lo.loc, fmt::format("the loop has more than {} values{}; at most {} instances are parsed", limit,
                                 enclosing > 1 ? fmt::format(" for the {} instances of its enclosing loops", enclosing) : "",
                                 p_.limits_.max_instances));
      for (int64_t v = lo.value;; ++v) {
        if (std::find(loop.values.begin(), loop.values.end(), v) != loop.values.end())
          fail(lo.loc, fmt::format("the value {} is listed twice", v));
        loop.values.push_back(v);
        if (v == hi.value) break;
      }
    } while (c().consume(","));
    c().expect("{", "after the loop's values, opening its body (for NAME in V1, V2, ... {)");
    end_of_statement();
    return loop;
  }

  /// Moves locations inside this statement's cuts to the file.
  SourceLoc to_file(const SourceLoc& l) const {
    for (const auto& [src, base] : cuts_)
      if (l.source.get() == src) return SourceLoc{file_, base + l.offset};
    return l;
  }

  const std::optional<Name>& declared() const { return declared_; }

 private:
  struct Part {
    std::shared_ptr<SourceText> src;
    size_t base;  ///< file offset of src->text[0]
  };

  // The statement splits at each top-level ';' (outside "..." and `...`): a body, then clauses.
  std::vector<std::pair<size_t, size_t>> split_parts() const {
    std::vector<std::pair<size_t, size_t>> parts;
    const std::string& t = raw_.text;
    size_t start = 0;
    char quote = 0;
    for (size_t i = 0; i < t.size(); ++i) {
      char ch = t[i];
      if (quote) {
        if (ch == '\\' && quote == '"') ++i;
        else if (ch == quote) quote = 0;
      } else if (ch == '"' || ch == '`') {
        quote = ch;
      } else if (ch == ';') {
        parts.emplace_back(start, i);
        start = i + 1;
      }
    }
    parts.emplace_back(start, t.size());
    return parts;
  }

  // A SourceText holding statement bytes [b, e), placed at its file line and column.
  Part cut(size_t b, size_t e) {
    auto src = std::make_shared<SourceText>();
    src->name = file_->name;
    src->text = raw_.text.substr(b, e - b);
    auto [line, col] = line_col_of(*file_, raw_.begin + b);
    src->line_base = line;
    src->col_base = col;
    cuts_.emplace_back(src.get(), raw_.begin + b);
    keep_.push_back(src);
    return Part{src, raw_.begin + b};
  }

  Cursor& c() { return *c_; }
  SourceLoc loc(size_t off) const { return SourceLoc{file_, base_ + off}; }
  size_t here() {
    c().skip_ws();
    return c().pos();
  }
  [[noreturn]] void fail(const SourceLoc& at, std::string msg, std::vector<Note> notes = {}) const {
    Diagnostic d;
    d.loc = at;
    d.message = std::move(msg);
    d.notes = std::move(notes);
    throw DiagnosticError(std::move(d));
  }

  // ---- tokens -------------------------------------------------------------------------------

  Name name(std::string_view what) {
    size_t at = here();
    std::string id = c().parse_identifier();
    if (id.empty()) c().fail_expected(what);
    return Name{std::move(id), loc(at)};
  }

  // A dotted name (instruction or fragment), or a swizzle mode: [A-Za-z0-9_.]+.
  Name token(std::string_view what, bool dots) {
    size_t at = here();
    size_t e = at;
    const std::string& t = c().source()->text;
    while (e < t.size() && (dots ? is_token_char(t[e]) : is_ident_char(t[e]))) ++e;
    if (e == at) c().fail_expected(what);
    c().set_pos(e);
    return Name{t.substr(at, e - at), loc(at)};
  }

  Number integer(std::string_view what) {
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

  Number positive(std::string_view what) {
    Number n = integer(what);
    if (n.value < 1) fail(n.loc, fmt::format("expected {} of at least 1, found {}", what, n.value));
    return n;
  }

  void end_of_statement() {
    if (!c().at_end()) c().fail_expected("the end of the statement");
  }

  // `NAME:` right after a statement's keywords names the operation; otherwise nothing is read.
  std::optional<Name> optional_label() {
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

  // ---- names --------------------------------------------------------------------------------

  // Inside a `for` loop the name is stored with the instance's label (`tile_K[D=64]`): each
  // instance declares its own, and may not shadow a name declared outside it.
  void declare(Name& n) {
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

  // Finds the innermost visible declaration and renames `n` to the key it is stored under.
  template <class Accept>
  const AnnotationParser::Entity& resolve(Name& n, Accept accept, std::string_view expected) {
    auto it = p_.names_.end();
    for (const std::string& key : p_.visible_keys(n.text))
      if ((it = p_.names_.find(key)) != p_.names_.end()) break;
    if (it == p_.names_.end())
      fail(n.loc, fmt::format("'{}' is not declared; expected {} declared earlier in this file", n.text, expected));
    n.text = it->first;
    if (it->second.poisoned) throw DroppedStatement{};
    if (!accept(it->second))
      fail(n.loc, fmt::format("'{}' is {}; expected {}", n.text, kind_phrase(it->second), expected),
           {Note{it->second.loc, fmt::format("'{}' is declared here", n.text)}});
    return it->second;
  }

  Name smem_buffer(std::string_view role) {
    Name n = name(fmt::format("the name of the smem buffer {}", role));
    resolve(
        n, [](const AnnotationParser::Entity& e) { return e.kind == AnnotationParser::Kind::Buffer && e.space == Space::Smem; },
        "an smem buffer");
    return n;
  }

  void commit(AnnotationParser::Kind kind, Space space = Space::Smem) {
    if (declared_) p_.names_[declared_->text] = AnnotationParser::Entity{kind, space, declared_->loc, false};
  }

  // ---- layouts ------------------------------------------------------------------------------

  // Parses statement-part bytes [b, e) of the current cut as one layout.
  LayoutExpr layout_at(size_t b, size_t e, std::string_view context) {
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
  LayoutExpr quoted_layout(std::string_view context) {
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
  LayoutExpr layout_to_end(std::string_view context, bool allow_align, std::string_view clause = {}) {
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
  size_t clause_start(size_t at, size_t limit, std::string_view keyword) {
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
  ActiveLanes active_lanes() {
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
  TilerExpr tiler_at_cursor() {
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
  Operand operand(std::string_view context, bool tiler_allowed = false) {
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
    resolve(n, has_layout, "a buffer, composition, divide or product (something with a layout)");
    return n;
  }

  // ---- statements ---------------------------------------------------------------------------

  std::optional<Statement> read_body() {
    size_t at = here();
    std::string kw = c().parse_identifier();
    if (kw.empty())
      c().fail_expected("a statement keyword (smem, tmem, regs, global, param, arch, access, tma, wgmma, tcgen05, "
                        "compose, divide, product, covers, expect, cute, launch or allow)");
    Statement st;
    st.loc = loc(at);
    if (kw == "smem") st.body = buffer(Space::Smem);
    else if (kw == "tmem") st.body = buffer(Space::Tmem);
    else if (kw == "regs") st.body = buffer(Space::Regs);
    else if (kw == "global") st.body = buffer(Space::Global);
    else if (kw == "param") param(st);
    else if (kw == "arch") st.body = arch();
    else if (kw == "access") st.body = access();
    else if (kw == "tma") st.body = tma();
    else if (kw == "wgmma") st.body = desc(DescKind::Wgmma);
    else if (kw == "tcgen05") st.body = desc(DescKind::Tcgen05);
    else if (kw == "compose") st.body = compose();
    else if (kw == "divide") st.body = divide();
    else if (kw == "product") st.body = product();
    else if (kw == "covers") st.body = expect(true);
    else if (kw == "expect") st.body = expect(false);
    else if (kw == "cute") st.body = cute_def();
    else if (kw == "launch") st.body = read_launch_clauses(c(), [this](size_t off) { return loc(off); });
    else if (kw == "allow") {
      p_.pending_allows_.push_back(suppression(at));
      end_of_statement();
      return std::nullopt;
    } else {
      fail(loc(at), fmt::format("unknown statement '{}'; expected smem, tmem, regs, global, param, arch, access, tma, "
                                "wgmma, tcgen05, compose, divide, product, covers, expect, cute, launch or allow",
                                kw));
    }
    return st;
  }

  Dtype dtype() {
    Name n = name("an element type (f16, bf16, f32, ...)");
    std::optional<int> bits = hw::element_bits(n.text);
    if (!bits)
      fail(n.loc, fmt::format("unknown element type '{}'; expected one of {}", n.text, joined(hw::element_type_names())));
    return Dtype{n.text, *bits, n.loc};
  }

  BufferDecl buffer(Space space) {
    BufferDecl d;
    d.space = space;
    const std::string sp = space_name(space);
    d.name = name(fmt::format("the {} buffer's name", sp));
    declare(d.name);
    const bool dtype_required = space == Space::Smem || space == Space::Global;
    if (dtype_required) {
      c().expect(":", fmt::format("and the element type after the buffer's name ({} NAME : DTYPE = LAYOUT)", sp));
      d.dtype = dtype();
    } else if (c().consume(":")) {
      d.dtype = dtype();
    }
    c().expect("=", fmt::format("before the layout ({} NAME{} = LAYOUT)", sp, dtype_required ? " : DTYPE" : ""));
    if (space == Space::Regs && c().consume("fragment")) {
      Name f = token("a fragment name from the catalog (e.g. wgmma.m64n64k16.f32.C)", true);
      const hw::Fragment* frag = hw::find_fragment(f.text);
      if (!frag)
        fail(f.loc, fmt::format("unknown fragment '{}'; similar catalog names: {}", f.text,
                                joined(hw::similar_fragment_names(f.text))));
      d.fragment = FragmentRef{f, frag};
      end_of_statement();
    } else {
      const bool align_ok = space == Space::Smem || space == Space::Global;
      d.layout = layout_to_end(fmt::format("after '=' in the {} declaration", sp), align_ok);
      if (align_ok && c().looking_at("align")) {
        c().expect("align", "");
        Number a = positive("a base alignment in bytes");
        if (a.value & (a.value - 1)) fail(a.loc, fmt::format("alignment {} is not a power of two", a.value));
        d.align = a;
      }
      if (align_ok && !c().at_end()) {
        c().expect("cute", "(the CuTe expression the layout stands for: cute \"NAME\"), 'align N' or the end of the statement");
        d.cute = cute_name("the name of the CuTe expression in quotes (cute \"SmemLayoutQ\")");
      }
      end_of_statement();
    }
    commit(AnnotationParser::Kind::Buffer, space);
    return d;
  }

  // A quoted name: `"..."` on one line, escapes \" and \\, not empty.
  CuteName cute_name(std::string_view what) {
    size_t q = here();
    const std::string& t = c().source()->text;
    if (c().peek_raw() != '"') c().fail_expected(what);
    std::string text;
    size_t i = q + 1;
    for (;; ++i) {
      if (i >= t.size() || t[i] == '\n') fail(loc(q), "unterminated quoted text: expected a closing '\"' on the same line");
      if (t[i] == '"') break;
      if (t[i] == '\\') {
        if (i + 1 < t.size() && (t[i + 1] == '"' || t[i + 1] == '\\')) {
          text += t[++i];
          continue;
        }
        fail(loc(i), "unknown escape in the name; expected \\\" or \\\\");
      }
      text += t[i];
    }
    if (text.empty()) fail(loc(q), "the name is empty");
    c().set_pos(i + 1);
    return CuteName{std::move(text), loc(q)};
  }

  // `cute "EXPR" = LAYOUT`: a CuTe expression's value, as a probe wrote it.
  CuteDef cute_def() {
    CuteName n = cute_name("the CuTe expression's name in quotes (cute \"SmemLayoutQ\" = LAYOUT)");
    if (!p_.constants_.empty())
      fail(n.loc, "a cute definition names one CuTe expression for the whole run; it cannot be in a 'for' loop");
    c().expect("=", "and the layout the CuTe expression evaluates to (cute \"NAME\" = LAYOUT)");
    LayoutExpr l = layout_to_end("after '=' in the cute definition", false);
    end_of_statement();
    return CuteDef{std::move(n), std::move(l)};
  }

  // `param NAME = LO..HI [% MULTIPLE]`, or a derived parameter `param NAME = EXPR`.
  void param(Statement& st) {
    ParamDecl d;
    d.name = name("the parameter's name");
    if (!p_.constants_.empty())
      fail(d.name.loc, "a parameter is declared once per file, outside 'for' loops (it stands for every value itself)");
    declare(d.name);
    c().expect("=", "and the parameter's range (param NAME = LO..HI [% MULTIPLE]) or a term of a parameter (2*D)");
    const size_t at = here();
    if (std::optional<IntExpr> e = c().parse_int_expr(); e && e->param) {
      end_of_statement();
      p_.derived_.push_back(DerivedParam{d.name.text, *e->param});
      commit(AnnotationParser::Kind::Param);
      st.body = DerivedParamDecl{d.name, loc(at), *e->param};
      return;
    }
    c().set_pos(at);
    d.lo = integer("the parameter's lowest value");
    c().expect("..", "between the lowest and the highest value (LO..HI)");
    d.hi = integer("the parameter's highest value");
    if (c().consume("%")) d.multiple = positive("the multiple every value is");
    end_of_statement();
    if (d.lo.value < 1)
      fail(d.lo.loc, fmt::format("a parameter stands for an extent or a stride: its lowest value must be at least 1, "
                                 "found {}", d.lo.value));
    if (d.hi.value < d.lo.value)
      fail(d.hi.loc, fmt::format("empty range: the highest value {} is below the lowest {}", d.hi.value, d.lo.value));
    int64_t m = d.multiple ? d.multiple->value : 1;
    // The smallest multiple of m not below lo must not pass hi: the range has a value.
    int64_t first = d.lo.value;
    if (int64_t r = d.lo.value % m; r != 0) {
      try {
        first = checked_add(d.lo.value, m - r, "the first multiple in the range");
      } catch (const OverflowError&) {
        fail(d.multiple->loc, fmt::format("no multiple of {} lies in {}..{}", m, d.lo.value, d.hi.value));
      }
    }
    if (first > d.hi.value)
      fail(d.multiple->loc, fmt::format("no multiple of {} lies in {}..{}", m, d.lo.value, d.hi.value));
    d.index = p_.params_.size();
    p_.params_.push_back(ParamSpec{d.name.text, d.lo.value, d.hi.value, m});
    commit(AnnotationParser::Kind::Param);
    st.body = std::move(d);
  }

  ArchDecl arch() {
    Name n = token("an architecture such as sm_90", false);
    try {
      const hw::Arch& a = hw::arch_by_name(n.text);
      end_of_statement();
      p_.arch_ = &a;
      return ArchDecl{n, &a};
    } catch (const hw::HwError& e) {
      fail(n.loc, e.what());
    }
  }

  AccessDecl access() {
    std::optional<Name> label = optional_label();
    Name buf = smem_buffer("the access reads or writes");
    Name instr_name = token("a shared-memory instruction (e.g. ldmatrix.x4, cp.async.cg.16, ld.shared.v4.b32)", true);
    const hw::SmemInstr* instr = nullptr;
    try {
      instr = &hw::smem_instr(instr_name.text);
    } catch (const hw::HwError& e) {
      fail(instr_name.loc, e.what());
    }
    const bool offsets = c().consume("offsets");
    if (!offsets)
      c().expect("lanes", "or 'offsets' before the lane layout (access BUFFER INSTR lanes|offsets LAYOUT [active LANES])");
    LayoutExpr lanes = layout_to_end(offsets ? "after 'offsets'" : "after 'lanes'", false, "active");
    if (offsets)
      for (const Axis& a : lanes.parsed.layout.axes())
        if (!a.is_memory())
          fail(lanes.loc, "with 'offsets' the lane map gives element offsets, so its strides are integers, not scaled "
                          "bases (_1@d); 'lanes' addresses the buffer's coordinates with _1@d");
    std::optional<ActiveLanes> active;
    if (c().looking_at("active")) {
      active = active_lanes();
      // PTX ISA, ldmatrix/stmatrix: the mandatory .aligned qualifier requires every thread of the
      // warp to execute the same instruction; a partial warp is undefined behaviour.
      if (instr->kind == hw::AccessKind::MatrixRows && active->mask != hw::kAllLanes)
        fail(active->loc, fmt::format("{} is .sync.aligned: every lane of the warp executes it, so it cannot have a "
                                      "partial set of active lanes", instr->name));
    }
    end_of_statement();
    if (label) commit(AnnotationParser::Kind::Access);
    return AccessDecl{std::move(label), std::move(buf), std::move(instr_name), instr, std::move(lanes), p_.arch_,
                      std::move(active), offsets};
  }

  SwizzleRef swizzle(bool tcgen05) {
    c().expect("swizzle", "and the swizzle mode (none, 32B, 64B or 128B)");
    Name m = token("a swizzle mode: none, 32B, 64B or 128B", false);
    if (m.text == "128B_base32B") {
      if (!tcgen05)
        fail(m.loc, "swizzle mode '128B_base32B' exists only in tcgen05 descriptors; expected none, 32B, 64B or 128B");
      return SwizzleRef{hw::SmemSwizzle::B128, true, m.loc};
    }
    try {
      return SwizzleRef{hw::swizzle_from_name(m.text), false, m.loc};
    } catch (const hw::HwError& e) {
      fail(m.loc, e.what());
    }
  }

  TmaDecl tma() {
    TmaDecl d;
    size_t at = here();
    d.direction_loc = loc(at);
    if (c().consume("load")) d.direction = TmaDirection::Load;
    else if (c().consume("store")) d.direction = TmaDirection::Store;
    else c().fail_expected("'load' or 'store' after 'tma'");
    d.name = optional_label();
    d.buffer = smem_buffer("the copy fills or drains");
    c().expect("box", "and the box extents (tma load BUFFER box (D0, D1, ...) swizzle MODE)");
    d.box_loc = loc(here());
    c().expect("(", "opening the box extents");
    constexpr size_t kMaxTmaDims = 5;  // cp.async.bulk.tensor has .1d to .5d
    do {
      if (d.box.size() == kMaxTmaDims)
        fail(loc(here()), fmt::format("a TMA box has at most {} dimensions", kMaxTmaDims));
      d.box.push_back(positive("a box extent"));
    } while (c().consume(","));
    c().expect(")", "or ',' in the box extents");
    d.swizzle = swizzle(false);
    end_of_statement();
    if (d.name) commit(AnnotationParser::Kind::Tma);
    return d;
  }

  DescDecl desc(DescKind kind) {
    DescDecl d;
    d.kind = kind;
    c().expect("desc", fmt::format("after '{}' (an operand descriptor: {} desc BUFFER swizzle MODE)",
                                   kind == DescKind::Wgmma ? "wgmma" : "tcgen05",
                                   kind == DescKind::Wgmma ? "wgmma" : "tcgen05"));
    d.name = optional_label();
    d.buffer = smem_buffer("the descriptor points at");
    d.swizzle = swizzle(kind == DescKind::Tcgen05);
    if (c().consume("major")) {
      size_t at = here();
      if (c().consume("K")) d.major = MajorRef{Major::K, loc(at)};
      else if (c().consume("MN")) d.major = MajorRef{Major::MN, loc(at)};
      else c().fail_expected("'K' or 'MN' after 'major'");
    }
    end_of_statement();
    if (d.name) commit(AnnotationParser::Kind::Desc);
    return d;
  }

  ComposeDecl compose() {
    Name n = name("the composition's name");
    declare(n);
    c().expect("=", "and the composition (compose NAME = A o B)");
    Operand a = operand("as the outer layout A of 'A o B'");
    c().expect("o", "between the two layouts (A o B; write a layout operand in backquotes)");
    Operand b = operand("as the inner layout B of 'A o B'", true);
    end_of_statement();
    commit(AnnotationParser::Kind::Compose);
    return ComposeDecl{n, std::move(a), std::move(b)};
  }

  // The operation word of a divide or product, one of `table`; else a located error that lists them.
  template <class Kind>
  std::pair<Kind, SourceLoc> operation(std::string_view what, std::initializer_list<std::pair<std::string_view, Kind>> table) {
    std::string names;
    size_t k = 0;
    for (const auto& entry : table) names += (k++ == 0 ? "" : k == table.size() ? " or " : ", ") + std::string(entry.first);
    Name op = name(names);
    for (const auto& [word, kind] : table)
      if (op.text == word) {
        c().expect("(", fmt::format("after '{}'", op.text));
        return {kind, op.loc};
      }
    fail(op.loc, fmt::format("unknown {} '{}'; expected {}", what, op.text, names));
  }

  DivideDecl divide() {
    Name n = name("the divide's name");
    declare(n);
    c().expect("=", "and the divide (divide NAME = logical_divide(A, TILER))");
    const auto [kind, kind_loc] = operation<DivideKind>("divide", {{"logical_divide", DivideKind::Logical},
                                                                   {"zipped_divide", DivideKind::Zipped},
                                                                   {"tiled_divide", DivideKind::Tiled},
                                                                   {"flat_divide", DivideKind::Flat}});
    Operand a = operand("as the layout to divide");
    c().expect(",", "between the layout and the tiler");
    Operand tiler = operand("as the tiler", true);
    c().expect(")", "closing the divide");
    end_of_statement();
    commit(AnnotationParser::Kind::Divide);
    return DivideDecl{n, kind, kind_loc, std::move(a), std::move(tiler)};
  }

  ProductDecl product() {
    Name n = name("the product's name");
    declare(n);
    c().expect("=", "and the product (product NAME = logical_product(A, B))");
    const auto [kind, kind_loc] = operation<ProductKind>("product", {{"logical_product", ProductKind::Logical},
                                                                     {"blocked_product", ProductKind::Blocked},
                                                                     {"raked_product", ProductKind::Raked},
                                                                     {"tile_to_shape", ProductKind::TileToShape}});
    ProductDecl d{n, kind, kind_loc, operand("as the block A"), std::nullopt, std::nullopt};
    if (kind == ProductKind::TileToShape) {
      c().expect(",", "between the block and the target shape");
      c().skip_ws();
      d.target = parse_flat_shape_at(c());
    } else {
      c().expect(",", "between the two layouts");
      // CuTe's logical_product takes a tiler as B; blocked and raked products take layouts.
      d.b = operand("as the layout B", kind == ProductKind::Logical);
    }
    c().expect(")", "closing the product");
    end_of_statement();
    commit(AnnotationParser::Kind::Product);
    return d;
  }

  std::vector<AxisRangeExpr> ranges() {
    std::vector<AxisRangeExpr> out;
    do {
      AxisRangeExpr r;
      size_t at = here();
      if (std::isdigit(static_cast<unsigned char>(c().peek_raw()))) {
        Number idx = integer("a basis axis index");
        r.axis = Name{std::to_string(idx.value), idx.loc};
        r.basis = true;
      } else {
        std::string id = c().parse_identifier();
        if (id.empty()) c().fail_expected("an axis name (TLane, TCol, laneid, ...) or a basis index");
        r.axis = Name{std::move(id), loc(at)};
      }
      c().expect("=", "and the axis range (AXIS=LO..HI)");
      r.lo = integer("the lowest covered value");
      c().expect("..", "between the lowest and the highest value (LO..HI)");
      r.hi = integer("the highest covered value");
      if (r.hi.value < r.lo.value)
        fail(r.hi.loc, fmt::format("empty range: the highest value {} is below the lowest {}", r.hi.value, r.lo.value));
      for (const AxisRangeExpr& prev : out)
        if (prev.axis.text == r.axis.text && prev.basis == r.basis)
          fail(r.axis.loc, fmt::format("axis '{}' appears twice in the coverage target", r.axis.text),
               {Note{prev.axis.loc, "first given here"}});
      out.push_back(std::move(r));
    } while (c().consume(","));
    return out;
  }

  ExpectStmt expect(bool covers_keyword) {
    ExpectStmt e;
    e.subject = name(covers_keyword ? "the name whose coverage is declared" : "the name the expectation is about");
    using K = AnnotationParser::Kind;
    auto layout_subject = [&] { resolve(e.subject, has_layout, "a buffer, composition, divide or product (something with a layout)"); };
    if (covers_keyword) {
      layout_subject();
      e.kind = ExpectKind::Covers;
      e.kind_loc = loc(here());
      e.ranges = ranges();
      end_of_statement();
      return e;
    }
    size_t at = here();
    e.kind_loc = loc(at);
    const std::string& t = c().source()->text;
    size_t w = at;
    while (w < t.size() && (is_ident_char(t[w]) || t[w] == '-')) ++w;
    std::string prop = t.substr(at, w - at);
    c().set_pos(w);
    auto is_access = [](const AnnotationParser::Entity& x) { return x.kind == K::Access; };
    if (prop == "injective") {
      e.kind = ExpectKind::Injective;
      layout_subject();
    } else if (prop == "conflict-free") {
      e.kind = ExpectKind::ConflictFree;
      resolve(e.subject, is_access, "a named access (access NAME: BUFFER INSTR lanes LAYOUT)");
    } else if (prop == "wavefronts") {
      e.kind = ExpectKind::Wavefronts;
      resolve(e.subject, is_access, "a named access (access NAME: BUFFER INSTR lanes LAYOUT)");
      c().expect("<=", "after 'wavefronts' (expect NAME wavefronts <= N)");
      e.max_wavefronts = positive("a wavefront count");
    } else if (prop == "covers") {
      e.kind = ExpectKind::Covers;
      layout_subject();
      e.ranges = ranges();
    } else if (prop == "compiled") {
      e.kind = ExpectKind::Compiled;
      resolve(e.subject, is_access, "a named access (access NAME: BUFFER INSTR lanes LAYOUT)");
      e.compiled = compiled_ref();
    } else if (prop == "illegal") {
      e.kind = ExpectKind::Illegal;
      resolve(e.subject, [](const AnnotationParser::Entity& x) { return x.kind != K::Param; },
              "a declaration, access, copy, descriptor, composition, divide or product");
    } else {
      c().set_pos(at);
      c().fail_expected("a property: injective, conflict-free, wavefronts <= N, covers AXIS=LO..HI, compiled \"KERNEL\" "
                        "at LINE or illegal");
    }
    end_of_statement();
    return e;
  }

  // After `expect ACCESS compiled`: `"KERNEL" at ["FILE":]LINE [where NAME = VALUE, ...]`.
  CompiledRef compiled_ref() {
    CompiledRef r;
    r.kernel = cute_name("the kernel in quotes: a regular expression its demangled name matches (compiled \"gemm_device\" at LINE)");
    try {
      kernel_pattern(r.kernel.text);
    } catch (const std::regex_error& e) {
      fail(r.kernel.loc, fmt::format("not a kernel-name pattern (an ECMAScript regular expression without "
                                     "back-references, at most {} characters): {}",
                                     kMaxKernelPatternChars, e.what()));
    }
    c().expect("at", "and the source line of the compiled instructions (compiled \"KERNEL\" at [\"FILE\":]LINE)");
    if (c().peek() == '"') {
      r.file = cute_name("the source file in quotes");
      c().expect(":", "and the line after the file (\"FILE\":LINE)");
    }
    r.line = positive("a source line");
    if (c().consume("where")) {
      do {
        CuteName n = c().peek() == '"' ? cute_name("an unknown's name") : [&] {
          Name t = token("an unknown of the compiled address (warp, ntid.x, a parameter's name), or a quoted name", true);
          return CuteName{t.text, t.loc};
        }();
        for (const auto& [seen, value] : r.values)
          if (seen.text == n.text) fail(n.loc, fmt::format("'{}' is given twice", n.text));
        c().expect("=", "and its value (NAME = VALUE)");
        r.values.emplace_back(std::move(n), integer("the unknown's value"));
      } while (c().consume(","));
    }
    return r;
  }

  // `allow RULE-ID "reason"` with the cursor after `allow`.
  Suppression suppression(size_t allow_at) {
    Suppression s;
    s.loc = loc(allow_at);
    size_t at = here();
    const std::string& t = c().source()->text;
    size_t e = at;
    while (e < t.size() && (is_ident_char(t[e]) || t[e] == '-')) ++e;
    std::string rule = t.substr(at, e - at);
    if (rule.empty()) c().fail_expected("a rule id (e.g. bank-conflict) after 'allow'");
    bool ok = std::islower(static_cast<unsigned char>(rule.front())) && rule.back() != '-' &&
              rule.find("--") == std::string::npos;
    for (char ch : rule) ok = ok && (std::islower(static_cast<unsigned char>(ch)) || std::isdigit(static_cast<unsigned char>(ch)) || ch == '-');
    if (!ok)
      fail(loc(at), fmt::format("rule id '{}' is not valid; expected lowercase letters, digits and single hyphens, "
                                "starting with a letter (e.g. bank-conflict)",
                                rule));
    c().set_pos(e);
    s.rule = Name{rule, loc(at)};
    size_t q = here();
    if (c().peek_raw() != '"') c().fail_expected("a quoted reason after the rule id: every suppression says why");
    s.reason_loc = loc(q);
    std::string reason;
    size_t i = q + 1;
    for (;; ++i) {
      if (i >= t.size()) fail(loc(q), "unterminated reason: expected a closing '\"'");
      char ch = t[i];
      if (ch == '"') break;
      if (ch == '\\') {
        if (i + 1 < t.size() && (t[i + 1] == '"' || t[i + 1] == '\\')) {
          reason += t[++i];
          continue;
        }
        fail(loc(i), "unknown escape in the reason; expected \\\" or \\\\");
      }
      // Whitespace runs (including continuation-line breaks) become one space.
      if (std::isspace(static_cast<unsigned char>(ch))) {
        if (!reason.empty() && reason.back() != ' ') reason += ' ';
      } else {
        reason += ch;
      }
    }
    if (!reason.empty() && reason.back() == ' ') reason.pop_back();
    if (reason.empty()) fail(loc(q), "the reason is empty; say why the finding is accepted");
    c().set_pos(i + 1);
    s.reason = std::move(reason);
    return s;
  }

  // A `; allow ...` or `; at "FILE":LINE` clause over statement bytes [b, e).
  void read_clause(size_t b, size_t e, std::vector<Suppression>& allows, std::optional<Origin>& origin) {
    Part part = cut(b, e);
    Cursor cc(part.src, {});
    c_ = &cc;
    base_ = part.base;
    size_t at = here();
    if (c().consume("at")) {
      if (origin) fail(loc(at), "a statement has one 'at' clause", {Note{origin->loc, "the first is here"}});
      Origin o;
      o.loc = loc(at);
      o.file = cute_name("the generating file in quotes (at \"probe.cpp\":LINE)").text;
      c().expect(":", "and the line after the file (at \"FILE\":LINE)");
      o.line = positive("a line number").value;
      o.begin = raw_.begin;
      o.end = raw_.end;
      end_of_statement();
      origin = std::move(o);
      return;
    }
    if (!c().consume("allow")) c().fail_expected("'allow RULE-ID \"reason\"' after ';'");
    Suppression s = suppression(at);
    end_of_statement();
    allows.push_back(std::move(s));
  }

  AnnotationParser& p_;
  const RawStatement& raw_;
  std::shared_ptr<const SourceText> file_;
  Cursor* c_ = nullptr;
  size_t base_ = 0;  ///< file offset of the current cut's first byte
  std::vector<std::pair<const SourceText*, size_t>> cuts_;
  std::vector<std::shared_ptr<SourceText>> keep_;
  std::optional<Name> declared_;
};

AnnotationParser::AnnotationParser(std::shared_ptr<const SourceText> file, const AnnotateLimits& limits)
    : file_(std::move(file)), limits_(limits) {}

void AnnotationParser::report(Diagnostic d) {
  if (capped_) return;
  if (!constants_.empty()) {
    // Every instance of a loop parses the same text: an error it shares is reported once, with
    // the first instance that showed it.
    for (const Diagnostic& prev : diags_)
      if (prev.loc.offset == d.loc.offset && prev.message == d.message) return;
    d.notes.push_back(
        Note{loop_locs_.back(), fmt::format("found in the instance {} of this loop", instance_label(constants_.size()))});
  }
  if (diags_.size() >= limits_.max_diagnostics) {
    Diagnostic cap;
    cap.loc = d.loc;
    cap.message = fmt::format("more than {} diagnostics in this file; the rest are not reported", limits_.max_diagnostics);
    diags_.push_back(std::move(cap));
    capped_ = true;
    return;
  }
  diags_.push_back(std::move(d));
}

namespace {

enum class LoopLine { Open, Close, Other };

// A loop header starts with the word `for`; a loop's end is a line holding only `}`.
LoopLine loop_line(const std::string& text) {
  const size_t b = text.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return LoopLine::Other;
  const size_t e = text.find_last_not_of(" \t\r\n");
  if (b == e && text[b] == '}') return LoopLine::Close;
  if (text.compare(b, 3, "for") == 0 && b + 3 < text.size() && std::isspace(static_cast<unsigned char>(text[b + 3])))
    return LoopLine::Open;
  return LoopLine::Other;
}

}  // namespace

std::string AnnotationParser::instance_label(size_t levels) const {
  std::string label;
  for (size_t k = 0; k < levels; ++k)
    label += fmt::format("{}{}={}", k ? "," : "", constants_[k].name, constants_[k].value);
  return label;
}

std::vector<std::string> AnnotationParser::visible_keys(const std::string& name) const {
  std::vector<std::string> keys;
  for (size_t levels = constants_.size(); levels > 0; --levels)
    keys.push_back(fmt::format("{}[{}]", name, instance_label(levels)));
  keys.push_back(name);
  return keys;
}

void AnnotationParser::instantiate(const LoopRecording& loop) {
  instantiated_ += loop.body.size() * loop.values.size();
  if (instantiated_ > limits_.scan.max_statements) {
    Diagnostic d;
    d.loc = loop.loc;
    d.message = fmt::format("the 'for' loops of this file instantiate more than {} statements; this loop and the "
                            "rest are not parsed",
                            limits_.scan.max_statements);
    report(std::move(d));
    capped_ = true;
    return;
  }
  loop_sizes_.push_back(loop.values.size());
  loop_locs_.push_back(loop.loc);
  for (int64_t value : loop.values) {
    constants_.push_back(BoundConstant{loop.var, value});
    for (const RawStatement& raw : loop.body)
      if (!add(raw)) break;
    for (const Suppression& a : pending_allows_) {
      Diagnostic d;
      d.loc = a.loc;
      d.message = fmt::format("'allow {}' applies to the next statement, but the loop's body ends", a.rule.text);
      report(std::move(d));
    }
    pending_allows_.clear();
    constants_.pop_back();
    if (capped_) break;
  }
  loop_locs_.pop_back();
  loop_sizes_.pop_back();
}

bool AnnotationParser::add(const RawStatement& raw) {
  if (capped_) return false;
  const LoopLine line = loop_line(raw.text);
  if (recording_) {
    if (line == LoopLine::Open) {
      ++recording_->depth;
    } else if (line == LoopLine::Close) {
      if (recording_->depth == 0) {
        const LoopRecording loop = std::move(*recording_);
        recording_.reset();
        if (!loop.broken) instantiate(loop);
        return !capped_;
      }
      --recording_->depth;
    }
    recording_->body.push_back(raw);
    return true;
  }
  if (line == LoopLine::Close) {
    Diagnostic d;
    d.loc = SourceLoc{file_, raw.begin + raw.text.find('}')};
    d.message = "'}' closes no 'for' loop";
    report(std::move(d));
    return !capped_;
  }
  StatementReader reader(*this, raw);
  if (line == LoopLine::Open) {
    try {
      recording_ = reader.read_loop();
      if (!pending_allows_.empty()) {
        Diagnostic d;
        d.loc = pending_allows_.front().loc;
        d.message = "'allow' applies to the next statement, and a 'for' loop is not one; put it inside the loop";
        pending_allows_.clear();
        report(std::move(d));
      }
    } catch (const DiagnosticError& e) {
      Diagnostic d = e.diagnostic();
      d.loc = reader.to_file(d.loc);
      for (Note& n : d.notes) n.loc = reader.to_file(n.loc);
      report(std::move(d));
      recording_ = LoopRecording{};
      recording_->loc = SourceLoc{file_, raw.begin};
      recording_->broken = true;
    }
    return !capped_;
  }
  try {
    if (std::optional<Statement> st = reader.read()) statements_.push_back(std::move(*st));
  } catch (const DiagnosticError& e) {
    Diagnostic d = e.diagnostic();
    d.loc = reader.to_file(d.loc);
    for (Note& n : d.notes) n.loc = reader.to_file(n.loc);
    report(std::move(d));
    failed(reader);
  } catch (const DroppedStatement&) {
    failed(reader);
  }
  return !capped_;
}

void AnnotationParser::failed(const StatementReader& reader) {
  // A failed statement's name stays reserved, so later references do not cascade into errors.
  if (const std::optional<Name>& n = reader.declared(); n && !names_.count(n->text))
    names_[n->text] = Entity{Kind::Buffer, Space::Smem, n->loc, true};
  // Suppressions meant for the failed statement must not move on to the next one.
  pending_allows_.clear();
}

ParseResult AnnotationParser::finish(std::optional<Language> language, std::vector<Diagnostic> scan_diagnostics,
                                     bool skipped) {
  for (const Suppression& s : pending_allows_) {
    Diagnostic d;
    d.loc = s.loc;
    d.message = fmt::format("'allow {}' applies to the next statement, but none follows", s.rule.text);
    report(std::move(d));
  }
  pending_allows_.clear();
  if (recording_) {
    Diagnostic d;
    d.loc = recording_->loc;
    d.message = "this 'for' loop is not closed: expected '}' on a line of its own; its body is not parsed";
    report(std::move(d));
    recording_.reset();
  }
  ParseResult r;
  r.source = file_;
  r.language = language;
  r.statements = std::move(statements_);
  r.params = std::move(params_);
  r.diagnostics = std::move(scan_diagnostics);
  for (Diagnostic& d : diags_) r.diagnostics.push_back(std::move(d));
  std::stable_sort(r.diagnostics.begin(), r.diagnostics.end(),
                   [](const Diagnostic& a, const Diagnostic& b) { return a.loc.offset < b.loc.offset; });
  r.skipped = skipped;
  return r;
}

bool ParseResult::has_errors() const {
  return std::any_of(diagnostics.begin(), diagnostics.end(),
                     [](const Diagnostic& d) { return d.severity == Severity::Error; });
}

ParseResult parse_annotations(const std::string& path, std::string text, const AnnotateLimits& limits) {
  std::optional<Language> lang = language_for_path(path);
  if (!lang) {
    ParseResult r;
    auto src = std::make_shared<SourceText>();
    src->name = path;
    r.source = src;
    Diagnostic d;
    d.message = fmt::format("cannot tell the annotation language of '{}' from its extension; expected .c .cc .cpp "
                            ".cxx .h .hpp .cu .cuh (C-like), .py (Python) or .lp (standalone)",
                            path);
    r.diagnostics.push_back(std::move(d));
    r.skipped = true;
    return r;
  }
  return parse_annotations(path, std::move(text), *lang, limits);
}

ParseResult parse_annotations(const std::string& path, std::string text, Language language,
                              const AnnotateLimits& limits) {
  auto src = std::make_shared<SourceText>();
  src->name = path;
  src->text = std::move(text);
  ScanResult scanned = scan(src, language, limits.scan);
  AnnotationParser parser(src, limits);
  for (const RawStatement& raw : scanned.statements)
    if (!parser.add(raw)) break;
  return parser.finish(language, std::move(scanned.diagnostics), scanned.skipped);
}

}  // namespace lp::annotate
