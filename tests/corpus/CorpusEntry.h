#pragma once
// A corpus entry's header (docs/corpus.md, "How an entry is written"): the leading comment lines
// `key: value` of a file under corpus/, which say where the layout comes from and which findings
// `check` must report on it.
#include <stdexcept>
#include <string>
#include <vector>

namespace lp::test {

/// One finding an entry expects: `LP002@14`, or `LP002?@14` for an undecided proof.
struct ExpectedFinding {
  std::string rule_id;
  size_t line = 0;
  bool unknown = false;
  auto operator<=>(const ExpectedFinding&) const = default;
};

struct CorpusEntry {
  std::string path;  ///< relative to the repository root, '/' separators
  std::string title, project, source, claim, bug, verdict, confirmed;
  std::vector<ExpectedFinding> expected;  ///< sorted; empty for a clean entry
};

/// A header that is missing a key, repeats one, or has a malformed value.
class CorpusEntryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The public projects the corpus draws from, as the `project` key spells them.
const std::vector<std::string>& corpus_projects();

/// Parses the header of `text`, the contents of the entry at `path`.
CorpusEntry parse_corpus_entry(const std::string& path, const std::string& text);

/// `ExpectedFinding`s written the way a verdict writes them, joined with ", " ("clean" if none).
std::string verdict_text(const std::vector<ExpectedFinding>& findings);

}  // namespace lp::test
