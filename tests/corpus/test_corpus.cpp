// The corpus's contract: every entry under corpus/ has a well-formed header, `check` reports on
// it exactly the findings its verdict lists, every finding is confirmed, the corpus baseline
// accepts exactly those findings, and docs/corpus.md lists every entry as it is.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "corpus/CorpusEntry.h"
#include "report/Baseline.h"
#include "rules/Checker.h"
#include "support/Files.h"

namespace fs = std::filesystem;
using namespace lp;
using lp::test::CorpusEntry;
using lp::test::ExpectedFinding;

namespace {

/// Paths are relative to the repository root, as the README's main command names them.
void enter_repository() { fs::current_path(LP_SOURCE_DIR); }

std::vector<std::string> entry_files() {
  enter_repository();
  std::vector<std::string> errors;
  std::vector<std::string> files = rules::collect_files({"corpus"}, errors);
  REQUIRE(errors.empty());
  for (std::string& f : files) f = report::baseline_path(f);
  return files;
}

std::vector<CorpusEntry> entries() {
  std::vector<CorpusEntry> out;
  for (const std::string& f : entry_files()) out.push_back(test::parse_corpus_entry(f, lp::test::read_file(f)));
  return out;
}

rules::CheckRun check_corpus() {
  enter_repository();
  rules::CheckOptions options;  // the default configuration, no cache: what a fresh clone runs
  return rules::check_paths({"corpus"}, options);
}

ExpectedFinding as_expected(const rules::Finding& f) {
  auto [line, col] = f.loc.source ? line_col_of(*f.loc.source, f.loc.offset) : std::pair<size_t, size_t>{0, 0};
  return {f.rule_id, line, f.kind == rules::FindingKind::Unknown};
}

std::string cell(std::string s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string source_link(const std::string& source) {
  // "owner/repo path:line[-line] @ commit ..." links to the line at that commit; "owner/repo#N" to the thread.
  const size_t space = source.find(' ');
  const size_t at = source.find(" @ ");
  if (space != std::string::npos && at != std::string::npos && at > space) {
    const std::string repo = source.substr(0, space);
    const std::string place = source.substr(space + 1, at - space - 1);
    const std::string commit = source.substr(at + 3, 40);
    const size_t colon = place.rfind(':');
    std::string line = place.substr(colon + 1);
    line = line.substr(0, line.find('-'));
    return fmt::format("[{}]({})", cell(repo + " " + place),
                       fmt::format("https://github.com/{}/blob/{}/{}#L{}", repo, commit, place.substr(0, colon), line));
  }
  const size_t hash = source.find('#');
  const std::string thread = source.substr(0, source.find_first_of(" ", hash));
  return fmt::format("[{}](https://github.com/{}/issues/{})", cell(thread), thread.substr(0, hash),
                     thread.substr(hash + 1));
}

std::string corpus_table(const std::vector<CorpusEntry>& all) {
  std::map<std::string, size_t> per_project, per_rule;
  size_t clean = 0;
  for (const CorpusEntry& e : all) {
    ++per_project[e.project];
    if (e.expected.empty()) ++clean;
    for (const ExpectedFinding& f : e.expected) ++per_rule[f.unknown ? f.rule_id + " (unknown)" : f.rule_id];
  }
  std::string out = fmt::format("{} entries from {} projects (", all.size(), per_project.size());
  bool first = true;
  for (const auto& [p, n] : per_project) out += fmt::format("{}{} {}", std::exchange(first, false) ? "" : ", ", p, n);
  out += fmt::format("); {} clean, {} with findings (", clean, all.size() - clean);
  first = true;
  for (const auto& [r, n] : per_rule) out += fmt::format("{}{} {}", std::exchange(first, false) ? "" : ", ", r, n);
  out += ").\n\n| entry | project | source | claim | verdict | confirmed |\n|---|---|---|---|---|---|\n";
  for (const CorpusEntry& e : all) {
    std::string verdict = e.expected.empty() ? "clean" : cell(e.verdict);
    if (!e.bug.empty()) verdict += "<br>bug: " + cell(e.bug);
    out += fmt::format("| [{}](../{})<br>{} | {} | {} | {} | {} | {} |\n", e.path.substr(e.path.find('/') + 1), e.path,
                       cell(e.title), e.project, source_link(e.source), cell(e.claim), verdict,
                       e.confirmed.empty() ? "—" : cell(e.confirmed));
  }
  return out;
}

}  // namespace

TEST_CASE("every corpus entry has a well-formed header", "[corpus]") {
  for (const std::string& f : entry_files()) {
    INFO(f);
    CHECK_NOTHROW(test::parse_corpus_entry(f, lp::test::read_file(f)));
  }
}

TEST_CASE("the corpus has at least 150 entries from at least 8 projects", "[corpus]") {
  auto all = entries();
  std::set<std::string> projects;
  for (const CorpusEntry& e : all) projects.insert(e.project);
  CHECK(all.size() >= 150);
  CHECK(projects.size() >= 8);
}

TEST_CASE("check reports on every corpus entry exactly the findings of its verdict", "[corpus]") {
  auto all = entries();
  rules::CheckRun run = check_corpus();
  std::map<std::string, std::vector<ExpectedFinding>> found;
  std::map<std::string, size_t> proven;
  for (const rules::Finding& f : run.findings) found[report::baseline_path(rules::file_of(f.loc))].push_back(as_expected(f));
  for (const rules::Obligation& o : run.obligations)
    if (o.passed) ++proven[report::baseline_path(rules::file_of(o.loc))];
  for (const CorpusEntry& e : all) {
    auto actual = found[e.path];
    std::sort(actual.begin(), actual.end());
    INFO(e.path << ": the header says '" << e.verdict << "', check reports '" << test::verdict_text(actual) << "'");
    CHECK(actual == e.expected);
    if (e.expected.empty()) CHECK(proven[e.path] >= 1);  // a clean entry proves something
  }
  // Findings at no location (unreadable paths) belong to no entry and must not occur.
  CHECK(found[""].empty());
}

TEST_CASE("every corpus finding is confirmed or says why not", "[corpus]") {
  for (const CorpusEntry& e : entries()) {
    if (e.expected.empty()) continue;
    INFO(e.path << ": confirmed: " << e.confirmed);
    CHECK((e.confirmed.starts_with("gpu ") || e.confirmed.starts_with("no: ")));
  }
}

TEST_CASE("the corpus baseline accepts exactly the corpus's findings", "[corpus]") {
  size_t expected = 0;
  for (const CorpusEntry& e : entries()) expected += e.expected.size();
  rules::CheckRun run = check_corpus();
  const size_t accepted = report::apply_baseline(run, report::Baseline::read("corpus/known-findings.baseline.json"));
  INFO("regenerate with scripts/update-corpus-docs.sh");
  CHECK(run.findings.empty());
  CHECK(accepted == expected);
  CHECK(report::Baseline::read("corpus/known-findings.baseline.json").entries.size() == expected);
}

TEST_CASE("docs/corpus.md lists every corpus entry", "[corpus]") {
  const std::string begin = "<!-- corpus-table:begin -->\n", end = "<!-- corpus-table:end -->";
  const std::string table = corpus_table(entries());
  const std::string doc = lp::test::read_file("docs/corpus.md");
  const size_t b = doc.find(begin), e = doc.find(end);
  REQUIRE(b != std::string::npos);
  REQUIRE(e != std::string::npos);
  const std::string written = doc.substr(b + begin.size(), e - b - begin.size());
  if (std::getenv("LP_UPDATE_CORPUS_DOC")) {
    std::ofstream(std::string(LP_SOURCE_DIR) + "/docs/corpus.md", std::ios::binary)
        << doc.substr(0, b + begin.size()) << table << doc.substr(e);
    SUCCEED("docs/corpus.md rewritten");
    return;
  }
  INFO("regenerate with scripts/update-corpus-docs.sh");
  CHECK(written == table);
}
