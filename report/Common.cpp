#include "report/Common.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace lp::report {

Position position_of(const SourceLoc& loc) {
  if (!loc.source) return {};
  auto [line, col] = line_col_of(*loc.source, loc.offset);
  return {loc.source->name, line, col};
}

std::string location_text(const SourceLoc& loc) {
  if (!loc.source) return {};
  const Position p = position_of(loc);
  return p.file + ":" + std::to_string(p.line) + ":" + std::to_string(p.column);
}

namespace {

template <class T, class Text>
std::vector<const T*> sorted_by_position(const std::vector<T>& items, Text text) {
  struct Keyed {
    Position pos;
    const T* item;
  };
  std::vector<Keyed> keyed;
  keyed.reserve(items.size());
  for (const T& it : items) keyed.push_back({position_of(it.loc), &it});
  std::stable_sort(keyed.begin(), keyed.end(), [&](const Keyed& a, const Keyed& b) {
    return std::tie(a.pos.file, a.pos.line, a.pos.column, a.item->rule_id, text(*a.item)) <
           std::tie(b.pos.file, b.pos.line, b.pos.column, b.item->rule_id, text(*b.item));
  });
  std::vector<const T*> out;
  out.reserve(keyed.size());
  for (const Keyed& k : keyed) out.push_back(k.item);
  return out;
}

}  // namespace

std::vector<const Finding*> sorted_findings(const std::vector<Finding>& findings) {
  return sorted_by_position(findings, [](const Finding& f) -> const std::string& { return f.message; });
}

std::vector<const Obligation*> sorted_obligations(const std::vector<Obligation>& obligations) {
  return sorted_by_position(obligations, [](const Obligation& o) -> const std::string& { return o.description; });
}

void count_finding(Summary& s, const Finding& f) {
  if (f.kind == FindingKind::Unknown) {
    ++s.unknowns;
    return;
  }
  ++s.findings;
  (f.severity == Severity::Error ? s.errors : f.severity == Severity::Warning ? s.warnings : s.notes)++;
}

Summary summarize(const CheckRun& run) {
  Summary s;
  std::set<std::string> files(run.files.begin(), run.files.end());
  // A name in angle brackets is no file ("<PTX of a.cu for sm_90>", clang's "<scratch space>"):
  // the PTX a run compiled and did not keep is its unit's, which run.files counts.
  auto add = [&](const SourceLoc& loc) {
    const std::string& name = loc.source->name;
    if (!(name.size() > 1 && name.front() == '<' && name.back() == '>')) files.insert(name);
  };
  for (const Finding& f : run.findings) {
    if (f.loc.source) add(f.loc);
    count_finding(s, f);
  }
  for (const Obligation& o : run.obligations) {
    if (o.loc.source) add(o.loc);
    ++s.obligations;
    if (o.passed) ++s.proven;
  }
  s.baselined = run.baselined;
  s.files = files.size();
  return s;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::string one_line(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for_each_code_point(s, [&](char32_t cp, bool valid) {
    if (!valid) {
      out += '?';
    } else if (cp == '\n' || cp == '\r' || cp == '\t') {
      out += ' ';
    } else if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0)) {
      out += '?';
    } else {
      append_utf8(out, cp);
    }
  });
  return out;
}

}  // namespace lp::report
