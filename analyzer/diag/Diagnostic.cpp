#include "analyzer/diag/Diagnostic.h"

#include <fmt/format.h>

namespace lp {

std::string source_line(const SourceLoc& loc) {
  if (!loc.source) return {};
  const std::string& t = loc.source->text;
  size_t off = std::min(loc.offset, t.size());
  size_t begin = off == 0 ? 0 : t.rfind('\n', off - 1);
  begin = begin == std::string::npos || off == 0 ? 0 : begin + 1;
  size_t end = t.find('\n', off);
  if (end == std::string::npos) end = t.size();
  if (end > begin && t[end - 1] == '\r') --end;
  return t.substr(begin, end - begin);
}

std::pair<size_t, size_t> line_col_of(const SourceText& src, size_t offset) {
  offset = std::min(offset, src.text.size());
  size_t line = src.line_base, col = src.col_base;
  for (size_t i = 0; i < offset; ++i) {
    if (src.text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

std::pair<size_t, size_t> Diagnostic::line_col() const {
  if (!loc.source) return {0, 0};
  return line_col_of(*loc.source, loc.offset);
}

const char* severity_name(Severity s) { return vocabulary_name(kSeverityNames, s, "error"); }

std::optional<Severity> severity_from_name(std::string_view name) { return vocabulary_value(kSeverityNames, name); }

std::vector<std::string> severity_names() { return vocabulary_names(kSeverityNames); }

std::string severity_choices() { return vocabulary_choices(kSeverityNames); }

namespace {

// Printable form of one source line: control bytes and non-ASCII become '?', so binary input
// cannot corrupt a terminal, and the caret column stays aligned byte for byte.
std::string printable(std::string_view line) {
  std::string out(line);
  for (char& c : out) {
    auto u = static_cast<unsigned char>(c);
    if (c == '\t') continue;
    if (u < 0x20 || u >= 0x7f) c = '?';
  }
  return out;
}

void render_location(std::string& out, const SourceLoc& loc, Severity sev, const std::string& msg,
                     const std::string& rule) {
  if (loc.source) {
    auto [line, col] = line_col_of(*loc.source, loc.offset);
    out += fmt::format("{}:{}:{}: {}: {}", loc.source->name, line, col, severity_name(sev), msg);
  } else {
    out += fmt::format("{}: {}", severity_name(sev), msg);
  }
  if (!rule.empty()) out += fmt::format(" [{}]", rule);
  out += '\n';
  if (!loc.source) return;
  const std::string& t = loc.source->text;
  size_t off = std::min(loc.offset, t.size());
  size_t begin = t.rfind('\n', off == 0 ? std::string::npos : off - 1);
  begin = (begin == std::string::npos || off == 0) ? 0 : begin + 1;
  if (off > 0 && t[off - 1] == '\n') begin = off;
  size_t end = t.find('\n', off);
  if (end == std::string::npos) end = t.size();
  constexpr size_t kMaxShown = 240;  // a caret into a megabyte-long line is no help to anyone
  size_t shown_begin = begin, caret_col = off - begin;
  if (caret_col > kMaxShown / 2) {
    shown_begin = off - kMaxShown / 2;
    caret_col = kMaxShown / 2;
  }
  size_t shown_end = std::min(end, shown_begin + kMaxShown);
  std::string_view line(t.data() + shown_begin, shown_end - shown_begin);
  out += printable(line);
  out += '\n';
  for (size_t i = 0; i < caret_col; ++i) out += (line[i] == '\t') ? '\t' : ' ';
  out += "^\n";
}

}  // namespace

std::string Diagnostic::render() const {
  std::string out;
  render_location(out, loc, severity, message, rule_id);
  for (const Note& n : notes) render_location(out, n.loc, Severity::Note, n.message, "");
  return out;
}

}  // namespace lp
