#include "corpus/CorpusEntry.h"

#include <algorithm>
#include <map>
#include <regex>
#include <sstream>

#include <fmt/format.h>

namespace lp::test {

const std::vector<std::string>& corpus_projects() {
  static const std::vector<std::string> projects = {"CUTLASS", "FlashAttention", "ThunderKittens", "TileLang",
                                                    "Triton",  "DeepGEMM",       "TIRx-kernels",   "TVM",
                                                    "pyptx",   "flashinfer",     "Fuser",          "llama.cpp",
                                                    "Marlin"};
  return projects;
}

namespace {

std::string trim(std::string s) {
  const char* ws = " \t\r";
  s.erase(0, s.find_first_not_of(ws));
  s.erase(s.find_last_not_of(ws) + 1);
  return s;
}

std::vector<ExpectedFinding> parse_verdict(const std::string& where, const std::string& verdict) {
  std::vector<ExpectedFinding> out;
  if (verdict == "clean") return out;
  static const std::regex finding(R"((LP\d{3})(\?)?@(\d+))");
  std::stringstream items(verdict);
  std::string item;
  while (std::getline(items, item, ',')) {
    item = trim(item);
    std::smatch m;
    if (!std::regex_match(item, m, finding))
      throw CorpusEntryError(fmt::format("{}: verdict item '{}' is not RULE@line or RULE?@line", where, item));
    out.push_back({m[1], std::stoul(m[3]), m[2].matched});
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::string verdict_text(const std::vector<ExpectedFinding>& findings) {
  if (findings.empty()) return "clean";
  std::string s;
  for (const ExpectedFinding& f : findings)
    s += fmt::format("{}{}{}@{}", s.empty() ? "" : ", ", f.rule_id, f.unknown ? "?" : "", f.line);
  return s;
}

CorpusEntry parse_corpus_entry(const std::string& path, const std::string& text) {
  const bool cxx = !(path.ends_with(".lp") || path.ends_with(".py"));
  const std::string marker = cxx ? "//" : "#";
  static const std::regex key_value(R"(([a-z]+):\s*(.*))");
  std::map<std::string, std::string> keys;
  std::stringstream lines(text);
  std::string line;
  size_t number = 0;
  while (std::getline(lines, line)) {
    ++number;
    std::string t = trim(line);
    if (!t.starts_with(marker)) break;
    std::smatch m;
    const std::string body = trim(t.substr(marker.size()));
    if (!std::regex_match(body, m, key_value)) break;
    const std::string key = m[1];
    if (keys.contains(key)) throw CorpusEntryError(fmt::format("{}:{}: '{}' is given twice", path, number, key));
    keys[key] = trim(m[2]);
  }
  for (const auto& [key, value] : keys)
    if (key != "entry" && key != "project" && key != "source" && key != "claim" && key != "bug" &&
        key != "verdict" && key != "confirmed" && key != "compiled")
      throw CorpusEntryError(fmt::format("{}: unknown header key '{}'", path, key));
  for (const char* required : {"entry", "project", "source", "claim", "verdict"})
    if (keys[required].empty())
      throw CorpusEntryError(fmt::format("{}: the header has no '{}: ...' line", path, required));

  CorpusEntry e;
  e.path = path;
  e.title = keys["entry"];
  e.project = keys["project"];
  e.source = keys["source"];
  e.claim = keys["claim"];
  e.bug = keys["bug"];
  e.verdict = keys["verdict"];
  e.confirmed = keys["confirmed"];
  e.expected = parse_verdict(path, e.verdict);
  const auto& projects = corpus_projects();
  if (std::find(projects.begin(), projects.end(), e.project) == projects.end())
    throw CorpusEntryError(fmt::format("{}: '{}' is not a corpus project", path, e.project));
  static const std::regex file_source(R"([\w.-]+/[\w.-]+ \S+:\d+(-\d+)? @ [0-9a-f]{40}\b.*)");
  static const std::regex thread_source(R"([\w.-]+/[\w.-]+#\d+\b.*)");
  if (!std::regex_match(e.source, file_source) && !std::regex_match(e.source, thread_source))
    throw CorpusEntryError(fmt::format("{}: source '{}' is neither 'owner/repo path:line @ <40-hex commit>' nor "
                                       "'owner/repo#N'",
                                       path, e.source));
  if (!e.expected.empty() && e.confirmed.empty())
    throw CorpusEntryError(fmt::format("{}: an entry with findings needs a 'confirmed:' line", path));
  return e;
}

}  // namespace lp::test
