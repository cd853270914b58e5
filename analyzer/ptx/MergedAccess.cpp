#include "analyzer/ptx/MergedAccess.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <tuple>

namespace lp::ptx {

namespace {

// A PTX shared-memory access the merge may involve: its instruction's place and address operand.
struct Candidate {
  size_t site = 0;
  const Function* function = nullptr;
  size_t index = 0;  ///< into function->body
  bool store = false;
  int line = 0;
  std::string base;  ///< the address register
  int64_t offset = 0;
  int bytes = 0;
};

// Steps of the search for the one assignment of accesses to merged instructions (a kernel has a
// few dozen anchors with at most four windows each; conflicts prune at once).
constexpr size_t kMaxCoverSteps = 100000;

std::string opcode_base(const std::string& op) { return op.substr(0, op.find('.')); }

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

int sass_access_bytes(const std::string& opcode) {
  int bytes = 4;
  size_t at = opcode.find('.');
  while (at != std::string::npos) {
    const size_t next = opcode.find('.', at + 1);
    const std::string mod = opcode.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1);
    if (mod == "U8" || mod == "S8") bytes = 1;
    else if (mod == "U16" || mod == "S16") bytes = 2;
    else if (mod == "64") bytes = 8;
    else if (mod == "128") bytes = 16;
    at = next;
  }
  return bytes;
}

std::vector<MergedAccess> merged_accesses(const Module& m, const KernelResult& r, const sass::Function& code,
                                          const std::function<std::optional<int>(int)>& module_line) {
  // The module's instructions by text position.
  std::map<size_t, std::pair<const Function*, size_t>> at;
  for (const Function& f : m.functions)
    for (size_t i = 0; i < f.body.size(); ++i) at[f.body[i].pos] = {&f, i};
  std::vector<Candidate> candidates;
  for (size_t s = 0; s < r.sites.size(); ++s) {
    const Site& site = r.sites[s];
    if (site.kind != SiteKind::PerLane || site.unknown || !site.origin.call_positions.empty()) continue;
    auto it = at.find(site.origin.pos);
    if (it == at.end()) continue;
    const Instruction& ins = it->second.first->body[it->second.second];
    const bool load = ins.parts.size() > 1 && ins.parts[0] == "ld" && ins.parts[1] == "shared";
    const bool store = ins.parts.size() > 1 && ins.parts[0] == "st" && ins.parts[1] == "shared";
    if ((!load && !store) || ins.operands.size() < 2) continue;
    const Operand& address = ins.operands[store ? 0 : 1];
    if (address.kind != Operand::Kind::Address || address.elems.size() != 1 || address.elems[0].kind != Operand::Kind::Register)
      continue;
    candidates.push_back({s, it->second.first, it->second.second, store,
                          static_cast<int>(line_col_of(*m.source, site.origin.pos).first), address.elems[0].name,
                          address.offset, site.bytes});
  }
  // The SASS loads and stores by the module line they come from.
  std::multimap<std::pair<int, bool>, const sass::Instruction*> sass_at;
  for (const sass::Instruction& ins : code.code) {
    const std::string base = opcode_base(ins.opcode);
    if ((base != "LDS" && base != "STS") || !ins.ptx_line) continue;
    if (const std::optional<int> line = module_line(*ins.ptx_line)) sass_at.emplace(std::make_pair(*line, base == "STS"), &ins);
  }
  // Anchors: the accesses at a SASS load or store wider than themselves. Groups of one function,
  // one base register and one direction are solved together: every access of the group without a
  // SASS instruction of its own must be covered by exactly one anchor's window, each window
  // [start, start + bytes) holding its anchor and tiled by accesses. nvdisasm names one member's
  // line (the first of a load, the last of a store, as ptxas emits them), so a window's start is
  // not known from its anchor alone; the assignment is taken only when it is the one solution.
  struct Anchor {
    const Candidate* access;
    const sass::Instruction* sass;
    int bytes;
  };
  std::map<std::tuple<const Function*, std::string, bool>, std::vector<Anchor>> anchors;
  for (const auto& [where, ins] : sass_at) {
    const auto [line, store] = where;
    if (sass_at.count(where) != 1) continue;  // two instructions from one PTX line: not a merge we can name
    const int bytes = sass_access_bytes(ins->opcode);
    std::vector<const Candidate*> at_line;
    for (const Candidate& c : candidates)
      if (c.line == line && c.store == store) at_line.push_back(&c);
    if (at_line.size() != 1 || at_line[0]->bytes >= bytes) continue;
    anchors[{at_line[0]->function, at_line[0]->base, store}].push_back({at_line[0], ins, bytes});
  }
  std::vector<MergedAccess> out;
  for (auto& entry : anchors) {
    const auto& [function, base, store] = entry.first;
    std::vector<Anchor>& group = entry.second;  // captured below: not a structured binding
    std::sort(group.begin(), group.end(), [](const Anchor& a, const Anchor& b) { return a.access->offset < b.access->offset; });
    std::vector<const Candidate*> pieces;  // the anchors and the accesses without SASS of their own
    for (const Candidate& c : candidates)
      if (c.function == function && c.base == base && c.store == store &&
          (!sass_at.count({c.line, store}) || std::any_of(group.begin(), group.end(), [&](const Anchor& a) { return a.access == &c; })))
        pieces.push_back(&c);
    std::map<int64_t, std::vector<const Candidate*>> by_offset;
    for (const Candidate* c : pieces) by_offset[c->offset].push_back(c);
    if (std::any_of(by_offset.begin(), by_offset.end(), [](const auto& o) { return o.second.size() != 1; })) continue;
    // Each anchor's possible windows: the starts at which accesses tile `bytes` through the anchor.
    std::vector<std::vector<std::vector<const Candidate*>>> options(group.size());
    for (size_t i = 0; i < group.size(); ++i)
      for (const auto& [start, at_start] : by_offset) {
        if (start > group[i].access->offset || start + group[i].bytes <= group[i].access->offset) continue;
        std::vector<const Candidate*> run;
        int64_t next = start;
        while (next < start + group[i].bytes && by_offset.count(next)) {
          run.push_back(by_offset.at(next).front());
          next += run.back()->bytes;
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
        if (covered.size() == pieces.size()) {
          ++solutions;
          found = choice;
        }
        return;
      }
      for (size_t o = 0; o < options[i].size(); ++o) {
        const auto& run = options[i][o];
        if (std::any_of(run.begin(), run.end(), [&](const Candidate* c) { return covered.count(c); })) continue;
        // Another anchor's access may not be inside this window.
        if (std::any_of(run.begin(), run.end(), [&](const Candidate* c) {
              return c != group[i].access && std::any_of(group.begin(), group.end(), [&](const Anchor& a) { return a.access == c; });
            }))
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
                  straight_between(*function, group[i].access->index, c->index, base);
      if (!certain) continue;
      MergedAccess merged{group[i].sass->opcode, group[i].bytes, {}};
      for (const Candidate* c : run) merged.sites.push_back(c->site);
      out.push_back(std::move(merged));
    }
  }
  return out;
}

}  // namespace lp::ptx
