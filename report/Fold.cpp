#include "report/Fold.h"

#include "analyzer/support/KernelName.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>

namespace lp::report {

namespace {

// PTX lines listed per kernel in a fold's note before "and N more".
constexpr size_t kMaxListedLines = 8;

std::string replaced(std::string text, const std::string& what, const std::string& with) {
  if (const size_t at = text.find(what); !what.empty() && at != std::string::npos) text.replace(at, what.size(), with);
  return text;
}

std::string lines_text(const std::vector<int64_t>& lines) {
  std::vector<std::string> shown;
  for (size_t k = 0; k < lines.size() && k < kMaxListedLines; ++k) shown.push_back(std::to_string(lines[k]));
  std::string out = fmt::format("{} {}", lines.size() == 1 ? "PTX line" : "PTX lines", fmt::join(shown, ", "));
  if (lines.size() > kMaxListedLines) out += fmt::format(" and {} more", lines.size() - kMaxListedLines);
  return out;
}

// What the instances are: PTX instructions, or the SASS instructions ptxas merged PTX instructions
// into (an opcode nvdisasm spells, "LDS.128 (ptxas merged ...)"), each named by a member's PTX line.
const char* kind_of(const rules::CompiledInstance& c) {
  return !c.opcode.empty() && std::isupper(static_cast<unsigned char>(c.opcode.front())) ? "SASS instructions" : "PTX instructions";
}

// The headline of a finding on `instances`: the instruction, its kernel, how many.
std::string headline(const std::vector<rules::CompiledInstance>& instances) {
  const rules::CompiledInstance& first = instances.front();
  std::vector<std::string> kernels;
  for (const auto& c : instances)
    if (std::find(kernels.begin(), kernels.end(), c.kernel) == kernels.end()) kernels.push_back(c.kernel);
  if (instances.size() == 1) return fmt::format("{} in {}", first.instruction, short_kernel_name(first.kernel));
  const std::string where =
      kernels.size() == 1 ? short_kernel_name(first.kernel) : fmt::format("{} kernels", kernels.size());
  if (instances.size() == kernels.size()) return fmt::format("{} in {}", first.opcode, where);
  return fmt::format("{} in {} ({} {})", first.opcode, where, instances.size(), kind_of(first));
}

// The first note of a fold: every kernel (and PTX, when there are several) with its lines, and
// which one the notes show.
Note fold_note(const std::vector<rules::CompiledInstance>& instances) {
  const bool one_ptx = std::all_of(instances.begin(), instances.end(), [&](const auto& c) { return c.ptx == instances.front().ptx; });
  std::vector<std::pair<std::string, std::vector<int64_t>>> by_kernel;  // in order of appearance
  for (const auto& c : instances) {
    const std::string name = one_ptx ? short_kernel_name(c.kernel) : fmt::format("{} ({})", short_kernel_name(c.kernel), c.ptx);
    auto it = std::find_if(by_kernel.begin(), by_kernel.end(), [&](const auto& k) { return k.first == name; });
    if (it == by_kernel.end()) by_kernel.push_back({name, {c.ptx_line}});
    else it->second.push_back(c.ptx_line);
  }
  std::vector<std::string> parts;
  for (const auto& [name, lines] : by_kernel) parts.push_back(fmt::format("{}: {}", name, lines_text(lines)));
  return Note{{}, fmt::format("the same finding on {} {}{}: {}; the notes below are those of PTX line {} in {} "
                              "(--no-fold shows each)",
                              instances.size(), kind_of(instances.front()), one_ptx ? " of " + instances.front().ptx : "",
                              fmt::join(parts, "; "),
                              instances.front().ptx_line, short_kernel_name(instances.front().kernel))};
}

}  // namespace

void fold_findings(rules::CheckRun& run, bool fold) {
  using Key = std::tuple<std::string, int, int, bool, bool, const SourceText*, size_t, std::string>;
  std::map<Key, size_t> group_of;
  std::vector<rules::Finding> out;
  for (rules::Finding& f : run.findings) {
    if (f.compiled.empty()) {
      out.push_back(std::move(f));
      continue;
    }
    const std::string general = replaced(f.message, f.compiled.front().instruction, f.compiled.front().opcode);
    const Key key{f.rule_id, static_cast<int>(f.severity), static_cast<int>(f.kind), f.gates, f.data_dependent,
                  f.loc.source.get(), f.loc.offset, general};
    auto [it, fresh] = group_of.emplace(key, out.size());
    if (fresh || !fold) {
      out.push_back(std::move(f));
      continue;
    }
    rules::Finding& into = out[it->second];
    into.compiled.insert(into.compiled.end(), f.compiled.begin(), f.compiled.end());
  }
  for (rules::Finding& f : out) {
    if (f.compiled.empty()) continue;
    f.message = replaced(f.message, f.compiled.front().instruction, headline(f.compiled));
    if (f.compiled.size() > 1) f.notes.insert(f.notes.begin(), fold_note(f.compiled));
  }
  run.findings = std::move(out);
}

}  // namespace lp::report
