#include "rules/Origins.h"

#include <map>
#include <memory>

namespace lp::rules {

namespace {

// Byte offset of the first non-blank character of line `line` (1-based), or of the end.
size_t line_offset(const std::string& text, int64_t line) {
  size_t off = 0;
  for (int64_t l = 1; l < line && off < text.size(); ++l) {
    const size_t nl = text.find('\n', off);
    off = nl == std::string::npos ? text.size() : nl + 1;
  }
  while (off < text.size() && (text[off] == ' ' || text[off] == '\t')) ++off;
  return off;
}

}  // namespace

void move_to_origins(const annotate::ParseResult& file, std::vector<rules::Finding>& findings, const OriginText& text_of) {
  std::vector<const annotate::Origin*> origins;
  for (const annotate::Statement& s : file.statements)
    if (s.origin) origins.push_back(&*s.origin);
  if (origins.empty()) return;
  // One SourceText per generating file: its text when the run may show it, else its name alone
  // with the line as the text's base line.
  std::map<std::string, std::shared_ptr<const SourceText>> texts;
  auto origin_loc = [&](const annotate::Origin& o) -> SourceLoc {
    std::optional<std::string> text;
    auto it = texts.find(o.file);
    if (it == texts.end()) {
      auto src = std::make_shared<SourceText>();
      src->name = o.file;
      if (text_of) text = text_of(o.file);
      if (text) src->text = std::move(*text);
      it = texts.emplace(o.file, std::move(src)).first;
    }
    const SourceText& src = *it->second;
    if (src.text.empty()) {
      auto only = std::make_shared<SourceText>();
      only->name = o.file;
      only->line_base = static_cast<size_t>(o.line);
      return SourceLoc{only, 0};
    }
    return SourceLoc{it->second, line_offset(src.text, o.line)};
  };
  auto origin_of = [&](const SourceLoc& l) -> const annotate::Origin* {
    if (l.source.get() != file.source.get()) return nullptr;
    for (const annotate::Origin* o : origins)
      if (l.offset >= o->begin && l.offset < o->end) return o;
    return nullptr;
  };
  for (rules::Finding& f : findings)
    if (const annotate::Origin* o = origin_of(f.loc)) {
      f.notes.insert(f.notes.begin(), Note{f.loc, "in the statement generated there"});
      f.loc = origin_loc(*o);
    }
}

}  // namespace lp::rules
