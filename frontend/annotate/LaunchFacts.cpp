#include "frontend/annotate/LaunchFacts.h"

#include <fmt/format.h>

#include <cctype>

namespace lp::annotate {

namespace {

class LaunchReader {
 public:
  LaunchReader(Cursor& c, const std::function<SourceLoc(size_t)>& loc_of) : c_(c), loc_(loc_of) {}

  LaunchDecl read() {
    LaunchDecl d;
    const size_t start = here();
    bool any = false;
    while (!c_.at_end()) {
      const size_t at = here();
      const std::string word = c_.parse_identifier();
      if (word == "kernel" && !d.kernel) {
        d.kernel = quoted("the kernel's name in quotes (kernel \"transpose<32>\")");
      } else if (word == "block" && !d.block) {
        d.block_loc = loc_(at);
        d.block = extents("block", 1);
      } else if (word == "grid" && !d.grid) {
        d.grid_loc = loc_(at);
        d.grid = extents("grid", 1);
      } else if (word == "dynamic_smem" && !d.dynamic_smem) {
        c_.expect("(", "after dynamic_smem");
        d.dynamic_smem = number("the bytes of dynamic shared memory", 0);
        c_.expect(")", "after the bytes of dynamic shared memory");
      } else if (word == "param") {
        d.params.push_back(param());
      } else if (word == "kernel" || word == "block" || word == "grid" || word == "dynamic_smem") {
        fail(at, fmt::format("'{}' is given twice in one launch; write one launch statement per launch", word));
      } else {
        c_.set_pos(at);
        c_.fail_expected("a launch clause: kernel \"NAME\", block(X, Y, Z), grid(X, Y, Z), dynamic_smem(BYTES) or "
                         "param P OP VALUE");
      }
      if (word != "kernel") any = true;
    }
    if (!any) fail(start, "a launch states nothing; expected block(...), grid(...), dynamic_smem(...) or param ...");
    return d;
  }

 private:
  size_t here() {
    c_.skip_ws();
    return c_.pos();
  }
  [[noreturn]] void fail(size_t at, std::string msg) const {
    Diagnostic d;
    d.loc = loc_(at);
    d.message = std::move(msg);
    throw DiagnosticError(std::move(d));
  }

  Number number(std::string_view what, int64_t least) {
    const size_t at = here();
    const char ch = c_.peek_raw();
    if (!(std::isdigit(static_cast<unsigned char>(ch)) || ch == '-')) c_.fail_expected(what);
    const int64_t v = c_.parse_int(what);
    if (v < least) fail(at, fmt::format("expected {} of at least {}, found {}", what, least, v));
    return Number{v, loc_(at)};
  }

  std::vector<Number> extents(const char* what, int64_t least) {
    c_.expect("(", fmt::format("after {}", what));
    std::vector<Number> out;
    do {
      if (out.size() == 3) c_.fail_expected(fmt::format("')': a {} has at most three extents (x, y, z)", what));
      out.push_back(number(fmt::format("the {}'s {} extent", what, "xyz"[out.size()]), least));
    } while (c_.consume(","));
    c_.expect(")", fmt::format("after the {}'s extents", what));
    return out;
  }

  CuteName quoted(std::string_view what) {
    const size_t q = here();
    const std::string_view t = c_.text();
    if (c_.peek_raw() != '"') c_.fail_expected(what);
    size_t i = q + 1;
    std::string text;
    for (; i < t.size() && t[i] != '"'; ++i) {
      if (t[i] == '\n') break;
      text += t[i];
    }
    if (i >= t.size() || t[i] != '"') fail(q, "unterminated quoted text: expected a closing '\"' on the same line");
    if (text.empty()) fail(q, "the kernel's name is empty");
    c_.set_pos(i + 1);
    return CuteName{std::move(text), loc_(q)};
  }

  LaunchParamFact param() {
    LaunchParamFact f;
    const size_t at = here();
    if (std::isdigit(static_cast<unsigned char>(c_.peek_raw()))) {
      f.by_position = true;
      const int64_t n = c_.parse_int("the parameter's position");
      f.param = Name{std::to_string(n), loc_(at)};
    } else {
      std::string id = c_.parse_identifier();
      if (id.empty()) c_.fail_expected("a kernel parameter: its name in the source or its position (0, 1, ...)");
      f.param = Name{std::move(id), loc_(at)};
    }
    if (c_.consume("%")) {
      f.relation = LaunchParamFact::Relation::MultipleOf;
      f.value = number("the modulus", 1);
      c_.expect("==", "after the modulus (param P % M == 0)");
      const size_t z = here();
      if (c_.parse_int("0") != 0) fail(z, "only 'param P % M == 0' is a fact about a remainder");
      return f;
    }
    static const std::pair<const char*, LaunchParamFact::Relation> kOps[] = {
        {"==", LaunchParamFact::Relation::Eq}, {"!=", LaunchParamFact::Relation::Ne}, {"<=", LaunchParamFact::Relation::Le},
        {">=", LaunchParamFact::Relation::Ge}, {"<", LaunchParamFact::Relation::Lt},  {">", LaunchParamFact::Relation::Gt}};
    bool found = false;
    for (const auto& [op, rel] : kOps)
      if (c_.consume(op)) {
        f.relation = rel;
        found = true;
        break;
      }
    if (!found) c_.fail_expected("a comparison (==, !=, <, <=, >, >=) or '% M == 0' after the parameter");
    f.value = number("an integer", INT64_MIN);
    return f;
  }

  Cursor& c_;
  const std::function<SourceLoc(size_t)>& loc_;
};

const char* relation_text(LaunchParamFact::Relation r) {
  switch (r) {
    case LaunchParamFact::Relation::Eq: return "==";
    case LaunchParamFact::Relation::Ne: return "!=";
    case LaunchParamFact::Relation::Lt: return "<";
    case LaunchParamFact::Relation::Le: return "<=";
    case LaunchParamFact::Relation::Gt: return ">";
    case LaunchParamFact::Relation::Ge: return ">=";
    case LaunchParamFact::Relation::MultipleOf: return "%";
  }
  return "?";
}

std::string extents_text(const std::vector<Number>& e) {
  std::string s;
  for (const Number& n : e) s += fmt::format("{}{}", s.empty() ? "" : ", ", n.value);
  return s;
}

}  // namespace

LaunchDecl read_launch_clauses(Cursor& c, const std::function<SourceLoc(size_t)>& loc_of) {
  return LaunchReader(c, loc_of).read();
}

LaunchDecl parse_launch_text(std::shared_ptr<const SourceText> source) {
  Cursor c(source);
  return read_launch_clauses(c, [&](size_t off) { return SourceLoc{source, off}; });
}

std::string launch_text(const LaunchDecl& d) {
  std::vector<std::string> parts;
  if (d.kernel) parts.push_back(fmt::format("kernel \"{}\"", d.kernel->text));
  if (d.block) parts.push_back(fmt::format("block({})", extents_text(*d.block)));
  if (d.grid) parts.push_back(fmt::format("grid({})", extents_text(*d.grid)));
  if (d.dynamic_smem) parts.push_back(fmt::format("dynamic_smem({})", d.dynamic_smem->value));
  for (const LaunchParamFact& f : d.params)
    parts.push_back(f.relation == LaunchParamFact::Relation::MultipleOf
                        ? fmt::format("param {} % {} == 0", f.param.text, f.value.value)
                        : fmt::format("param {} {} {}", f.param.text, relation_text(f.relation), f.value.value));
  std::string s;
  for (const std::string& p : parts) s += (s.empty() ? "" : " ") + p;
  return s;
}

}  // namespace lp::annotate
