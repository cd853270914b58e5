// What ties a rule together (rules/Rule.h): every registered rule has its docs page
// (docs/rules/<id>.md, titled with its id and name, its lead sentence the rule's short
// description), a row in docs/rules/README.md, a help URI that points at the page, and golden
// files (tests/rules/golden/<id>/) with at least one case that reports it and one that does
// not; and nothing is left over: every page and every golden folder belongs to a registered rule.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "rules/Rule.h"
#include "support/Files.h"

namespace fs = std::filesystem;

namespace {

const fs::path kDocs = LP_SOURCE_DIR "/docs/rules";
const fs::path kGolden = LP_SOURCE_DIR "/tests/rules/golden";

// The first paragraph after the page's metadata table: the rule in one sentence.
std::string lead_sentence(const std::string& page) {
  std::istringstream in(page);
  bool table = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("|", 0) == 0) table = true;
    else if (table && !line.empty()) return line;
  }
  return "";
}

// What the golden files of one folder check about `id`.
struct GoldenCases {
  std::vector<std::string> reporting;  ///< files with a CHECK (or -NEXT, -SAME) that names [id]
  std::vector<std::string> clean;      ///< files with a CHECK-NOT of [id]
};

GoldenCases golden_cases(const fs::path& dir, const std::string& id) {
  GoldenCases cases;
  const std::string tag = "[" + id + "]";
  // FileCheck's directives as tests/golden/run_golden.py finds them.
  static const std::regex kDirective(R"((^|[^A-Za-z0-9_-])(CHECK(-NEXT|-SAME|-NOT|-EMPTY)?):(.*))");
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().string().find("/Inputs/") != std::string::npos) continue;
    const std::string path = e.path().string();
    std::istringstream in(lp::test::read_file(path));
    bool reports = false, clean = false;
    std::smatch m;
    for (std::string line; std::getline(in, line);) {
      if (!std::regex_search(line, m, kDirective) || m[4].str().find(tag) == std::string::npos) continue;
      (m[2].str() == "CHECK-NOT" ? clean : reports) = true;
    }
    if (reports) cases.reporting.push_back(path);
    if (clean) cases.clean.push_back(path);
  }
  return cases;
}

}  // namespace

TEST_CASE("every registered rule has its docs page, README row, help URI and golden files", "[golden][registry]") {
  const auto& rules = lp::rules::all_rules();
  REQUIRE(rules.size() >= 14);  // LP000-LP013 today
  const std::string readme = lp::test::read_file((kDocs / "README.md").string());
  REQUIRE(!readme.empty());
  std::set<std::string> ids, names;
  for (const lp::rules::Rule* rule : rules) {
    const lp::rules::RuleInfo& info = rule->info();
    INFO(info.id << " " << info.name);
    CHECK(std::regex_match(info.id, std::regex("LP[0-9]{3}")));
    CHECK(std::regex_match(info.name, std::regex("[a-z0-9]+(-[a-z0-9]+)*")));
    CHECK(ids.insert(info.id).second);
    CHECK(names.insert(info.name).second);
    CHECK(info.help_uri == "docs/rules/" + info.id + ".md");
    CHECK_FALSE(info.short_description.empty());
    CHECK_FALSE(info.full_description.empty());
    const std::string severity = lp::severity_name(info.default_severity);

    const std::string page = lp::test::read_file((kDocs / (info.id + ".md")).string());
    REQUIRE_FALSE(page.empty());
    CHECK(page.rfind("# " + info.id + " " + info.name + "\n", 0) == 0);
    CHECK(page.find("| id | `" + info.id + "` |") != std::string::npos);
    CHECK(page.find("| name | `" + info.name + "` |") != std::string::npos);
    CHECK(std::regex_search(page, std::regex("\\| default severity \\| (\\*\\*)?" + severity + "(\\*\\*)?[ |]")));
    CHECK(lead_sentence(page) == info.short_description + ".");
    // README's table: | [LP001](LP001.md) | `layout-injective` | error | ... |
    CHECK(readme.find("| [" + info.id + "](" + info.id + ".md) | `" + info.name + "` | " + severity + " |") != std::string::npos);

    const fs::path dir = kGolden / info.id;
    REQUIRE(fs::is_directory(dir));
    const GoldenCases cases = golden_cases(dir, info.id);
    CHECK_FALSE(cases.reporting.empty());
    CHECK_FALSE(cases.clean.empty());
  }
}

TEST_CASE("every rule page and every golden folder belongs to a registered rule", "[golden][registry]") {
  std::set<std::string> ids;
  for (const lp::rules::Rule* rule : lp::rules::all_rules()) ids.insert(rule->info().id);
  REQUIRE(ids.count("LP000"));  // annotation-syntax is a rule like the others
  size_t pages = 0;
  for (const auto& e : fs::directory_iterator(kDocs)) {
    if (e.path().extension() != ".md" || e.path().filename() == "README.md") continue;
    INFO(e.path().string());
    CHECK(ids.count(e.path().stem().string()));
    ++pages;
  }
  CHECK(pages == ids.size());
  for (const auto& e : fs::directory_iterator(kGolden)) {
    INFO(e.path().string());
    CHECK(e.is_directory());
    CHECK(ids.count(e.path().filename().string()));
  }
}
