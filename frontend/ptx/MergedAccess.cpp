#include "frontend/ptx/MergedAccess.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <tuple>

namespace lp::ptx {

namespace {

// A PTX shared-memory access of the kernel's own body the merge may involve: its instruction's
// place and address operand.
struct Candidate {
  size_t site = 0;
  size_t index = 0;  ///< into the kernel's body
  bool store = false;
  int line = 0;
  std::string base;  ///< the address register
  int64_t offset = 0;
  int bytes = 0;
};

// Steps of the search for the one assignment of accesses to merged instructions (a kernel has a
// few dozen anchors with at most four windows each; conflicts prune at once).
constexpr size_t kMaxCoverSteps = 100000;

// Whether anything between two instructions of a function may change the base register, the path
// or the activity: a write of `reg`, a branch, a label or a call.
bool straight_between(const Function& f, size_t a, size_t b, const std::string& reg) {
  if (a > b) std::swap(a, b);
  for (const auto& [label, index] : f.labels)
    if (index > a && index <= b) return false;
  for (size_t i = a + 1; i < b; ++i) {
    const Instruction& ins = f.body[i];
    if (ins.parts[0] == "bra" || ins.parts[0] == "call" || ins.parts[0] == "ret" || ins.parts[0] == "exit") return false;
    if (!ins.operands.empty() && ins.operands[0].kind == Operand::Kind::Register && ins.operands[0].name == reg &&
        ins.parts[0] != "st")
      return false;
    for (const Operand& o : ins.operands)  // vector destinations, and `%r|%p` pairs
      for (const Operand& e : o.elems)
        if (o.kind == Operand::Kind::Vector && e.kind == Operand::Kind::Register && e.name == reg && ins.parts[0] != "st")
          return false;
  }
  return true;
}

// A SASS load's or store's address `[REG]` or `[REG+IMM]` (`[R2+0x10]`, `[R0.X4+UR4]` is neither):
// the register and the immediate.
std::optional<std::pair<std::string, int64_t>> sass_address(const sass::Instruction& ins) {
  for (const std::string& o : ins.operands) {
    if (o.size() < 3 || o.front() != '[' || o.back() != ']') continue;
    const std::string inside = o.substr(1, o.size() - 2);
    const size_t plus = inside.find('+');
    const std::string reg = inside.substr(0, plus);
    if (reg.find_first_not_of("URZ0123456789") != std::string::npos) return std::nullopt;
    if (plus == std::string::npos) return std::make_pair(reg, int64_t{0});
    const std::string imm = inside.substr(plus + 1);
    if (imm.rfind("0x", 0) != 0 || imm.size() > 10 || imm.find_first_not_of("0123456789abcdefx", 2) != std::string::npos)
      return std::nullopt;
    return std::make_pair(reg, static_cast<int64_t>(std::stoll(imm.substr(2), nullptr, 16)));
  }
  return std::nullopt;
}

}  // namespace

std::vector<MergedAccess> merged_accesses(const Module& m, const KernelResult& r, const sass::Function& code,
                                          const std::function<std::optional<int>(int)>& module_line) {
  // A site not reached through a PTX call is an instruction of the kernel's own body.
  const Function* kernel = m.function(r.name);
  if (!kernel || kernel->body.empty()) return {};
  // Each instruction's place and line, the lines counted once through the body's text.
  std::map<size_t, size_t> index_at;
  std::vector<int> lines(kernel->body.size());
  size_t counted_to = kernel->body.front().pos;
  int line = static_cast<int>(line_col_of(*m.source, counted_to).first);
  for (size_t i = 0; i < kernel->body.size(); ++i) {
    const size_t pos = kernel->body[i].pos;
    line += static_cast<int>(std::count(m.source->text.begin() + static_cast<std::ptrdiff_t>(counted_to),
                                        m.source->text.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
    counted_to = pos;
    lines[i] = line;
    index_at[pos] = i;
  }
  std::vector<Candidate> candidates;
  for (size_t s = 0; s < r.sites.size(); ++s) {
    const Site& site = r.sites[s];
    if (site.kind != SiteKind::PerLane || site.unknown || !site.origin.call_positions.empty()) continue;
    auto it = index_at.find(site.origin.pos);
    if (it == index_at.end()) continue;
    const Instruction& ins = kernel->body[it->second];
    const bool load = ins.parts.size() > 1 && ins.parts[0] == "ld" && ins.parts[1] == "shared";
    const bool store = ins.parts.size() > 1 && ins.parts[0] == "st" && ins.parts[1] == "shared";
    if ((!load && !store) || ins.operands.size() < 2) continue;
    const Operand& address = ins.operands[store ? 0 : 1];
    if (address.kind != Operand::Kind::Address || address.elems.size() != 1 || address.elems[0].kind != Operand::Kind::Register)
      continue;
    candidates.push_back({s, it->second, store, lines[it->second], address.elems[0].name, address.offset, site.bytes});
  }
  // The SASS loads and stores by the module line they come from.
  std::multimap<std::pair<int, bool>, const sass::Instruction*> sass_at;
  for (const sass::Instruction& ins : code.code) {
    const std::string name = ins.name();
    if ((name != "LDS" && name != "STS") || !ins.ptx_line) continue;
    if (const std::optional<int> line = module_line(*ins.ptx_line)) sass_at.emplace(std::make_pair(*line, name == "STS"), &ins);
  }
  // Anchors: the accesses at a SASS load or store wider than themselves. Groups of one base
  // register and one direction are solved together: every access of the group without a SASS
  // instruction of its own must be covered by exactly one anchor's window, each window
  // [start, start + bytes) holding its anchor and tiled by accesses. nvdisasm names one member's
  // line (the first of a load, the last of a store, as ptxas emits them), so a window's start is
  // not known from its anchor alone; the assignment is taken only when it is the one solution.
  struct Anchor {
    const Candidate* access;
    const sass::Instruction* sass;
    int bytes;
  };
  std::map<std::pair<std::string, bool>, std::vector<Anchor>> anchors;
  std::set<const Candidate*> anchored;
  for (const auto& [where, ins] : sass_at) {
    const auto [line, store] = where;
    if (sass_at.count(where) != 1) continue;  // two instructions from one PTX line: not a merge we can name
    const int bytes = sass::access_bytes(ins->opcode);
    std::vector<const Candidate*> at_line;
    for (const Candidate& c : candidates)
      if (c.line == line && c.store == store) at_line.push_back(&c);
    if (at_line.size() != 1 || at_line[0]->bytes >= bytes) continue;
    anchors[{at_line[0]->base, store}].push_back({at_line[0], ins, bytes});
    anchored.insert(at_line[0]);
  }
  std::vector<MergedAccess> out;
  for (auto& entry : anchors) {
    const auto& [base, store] = entry.first;
    std::vector<Anchor>& group = entry.second;  // captured below: not a structured binding
    std::sort(group.begin(), group.end(), [](const Anchor& a, const Anchor& b) { return a.access->offset < b.access->offset; });
    // The pieces, by offset: the group's anchors and the accesses without SASS of their own.
    std::map<int64_t, const Candidate*> by_offset;
    bool one_per_offset = true;
    for (const Candidate& c : candidates)
      if (c.base == base && c.store == store && (!sass_at.count({c.line, store}) || anchored.count(&c)))
        one_per_offset = by_offset.emplace(c.offset, &c).second && one_per_offset;
    if (!one_per_offset) continue;
    // Each anchor's possible windows: the starts at which accesses tile `bytes` through the anchor.
    std::vector<std::vector<std::vector<const Candidate*>>> options(group.size());
    for (size_t i = 0; i < group.size(); ++i)
      for (const auto& piece_at_start : by_offset) {
        const int64_t start = piece_at_start.first;
        if (start > group[i].access->offset || start + group[i].bytes <= group[i].access->offset) continue;
        std::vector<const Candidate*> run;
        int64_t next = start;
        while (next < start + group[i].bytes) {
          const auto piece = by_offset.find(next);
          if (piece == by_offset.end()) break;
          run.push_back(piece->second);
          next += piece->second->bytes;
        }
        if (next == start + group[i].bytes) options[i].push_back(run);
      }
    // Exact covers of the pieces, counted up to two, in a bounded search (past it: no merge).
    std::vector<size_t> choice(group.size()), found;
    size_t solutions = 0, steps = 0;
    std::set<const Candidate*> covered;
    std::function<void(size_t)> search = [&](size_t i) {
      if (solutions > 1 || ++steps > kMaxCoverSteps) return;
      if (i == group.size()) {
        if (covered.size() == by_offset.size()) {
          ++solutions;
          found = choice;
        }
        return;
      }
      for (size_t o = 0; o < options[i].size(); ++o) {
        const auto& run = options[i][o];
        if (std::any_of(run.begin(), run.end(), [&](const Candidate* c) { return covered.count(c); })) continue;
        // Another anchor's access may not be inside this window.
        if (std::any_of(run.begin(), run.end(), [&](const Candidate* c) { return c != group[i].access && anchored.count(c); }))
          continue;
        covered.insert(run.begin(), run.end());
        choice[i] = o;
        search(i + 1);
        for (const Candidate* c : run) covered.erase(c);
      }
    };
    search(0);
    if (solutions != 1 || steps > kMaxCoverSteps) continue;
    // The SASS addresses agree: windows whose instructions address one register lie as far apart
    // as their immediates.
    bool agree = true;
    for (size_t i = 0; i < group.size(); ++i)
      for (size_t j = 0; j < i; ++j) {
        const auto a = sass_address(*group[i].sass), b = sass_address(*group[j].sass);
        if (a && b && a->first == b->first)
          agree = agree && options[i][found[i]].front()->offset - options[j][found[j]].front()->offset == a->second - b->second;
      }
    if (!agree) continue;
    for (size_t i = 0; i < group.size(); ++i) {
      const auto& run = options[i][found[i]];
      bool certain = run.size() > 1;
      for (const Candidate* c : run)
        certain = certain && r.sites[c->site].active == r.sites[group[i].access->site].active &&
                  straight_between(*kernel, group[i].access->index, c->index, base);
      if (!certain) continue;
      MergedAccess merged{group[i].sass->opcode, group[i].bytes, store, {}};
      for (const Candidate* c : run) merged.sites.push_back(c->site);
      out.push_back(std::move(merged));
    }
  }
  return out;
}

}  // namespace lp::ptx
