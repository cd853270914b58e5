#include "frontend/annotate/AnnotationParser.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "frontend/annotate/StatementReader.h"

namespace lp::annotate {

// ---- a statement: its body, its clauses, a `for` loop's header ----------------------------------

std::optional<Statement> StatementReader::read() {
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

AnnotationParser::LoopRecording StatementReader::read_loop() {
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

SourceLoc StatementReader::to_file(const SourceLoc& l) const {
  for (const auto& [src, base] : cuts_)
    if (l.source.get() == src) return SourceLoc{file_, base + l.offset};
  return l;
}

// The statement splits at each top-level ';' (outside "..." and `...`): a body, then clauses.
std::vector<std::pair<size_t, size_t>> StatementReader::split_parts() const {
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
StatementReader::Part StatementReader::cut(size_t b, size_t e) {
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

// ---- clauses ------------------------------------------------------------------------------------

// `allow RULE-ID "reason"` with the cursor after `allow`.
Suppression StatementReader::suppression(size_t allow_at) {
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
void StatementReader::read_clause(size_t b, size_t e, std::vector<Suppression>& allows,
                                  std::optional<Origin>& origin) {
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

// ---- the parser: statements in file order, `for` loops' instances, diagnostics ------------------

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
  } catch (const detail::DroppedStatement&) {
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
