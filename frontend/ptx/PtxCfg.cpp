#include "frontend/ptx/PtxCfg.h"
#include "analyzer/support/Governor.h"

#include <algorithm>
#include <functional>
#include <set>

namespace lp::ptx {

namespace {

const std::set<std::string>& no_destination() {
  static const std::set<std::string> kOps = {
      "st", "red", "bra", "brx", "ret", "exit", "bar", "barrier", "call", "cp", "stmatrix", "membar", "fence",
      "prefetch", "prefetchu", "trap", "nanosleep", "pmevent", "setmaxnreg", "griddepcontrol", "applypriority",
      "discard", "sust", "sured", "multimem", "brkpt", "tensormap", "wmma", "stackrestore"};
  return kOps;
}

void collect_registers(const Operand& o, std::vector<std::string>& out) {
  if (o.kind == Operand::Kind::Register) out.push_back(o.name);
  if (o.pair) out.push_back(*o.pair);
  for (const Operand& e : o.elems) collect_registers(e, out);
}

}  // namespace

bool is_terminator(const Instruction& ins) {
  const std::string& op = ins.parts[0];
  return op == "bra" || op == "brx" || op == "ret" || op == "exit" || op == "trap";
}

bool writes_first_operand(const Instruction& ins) {
  if (ins.operands.empty()) return false;
  const std::string& op = ins.parts[0];
  if (no_destination().count(op))  // wmma.load and wmma.mma write registers; wmma.store does not
    return op == "wmma" && ins.parts.size() > 1 && (ins.parts[1] == "load" || ins.parts[1] == "mma");
  if (op == "tcgen05" && ins.parts.size() > 1 && ins.parts[1] != "ld") return false;
  if (op == "mbarrier" && ins.operands[0].kind == Operand::Kind::Address) return false;
  const Operand& d = ins.operands[0];
  return d.kind == Operand::Kind::Register || d.kind == Operand::Kind::Vector || d.kind == Operand::Kind::Sink;
}

namespace {

// ---- registers: every declared register gets an index ----
void index_registers(const Function& f, Cfg& g) {
  auto add_reg = [&](const std::string& name) {
    if (g.reg_index.count(name)) return;
    auto t = f.reg_type(name);
    if (!t) return;  // special registers
    g.reg_index.emplace(name, static_cast<int>(g.reg_bits.size()));
    g.reg_bits.push_back(std::clamp(t->bits, 1, 64));
  };
  for (const Instruction& ins : f.body) {
    std::vector<std::string> regs;
    if (ins.guard) regs.push_back(ins.guard->name);
    for (const Operand& o : ins.operands) collect_registers(o, regs);
    for (const std::string& r : regs) add_reg(r);
  }
}

// ---- blocks: a leader (the entry, a label, the instruction after a terminator) starts one ----
void split_blocks(const Function& f, Cfg& g) {
  const size_t n = f.body.size();
  std::vector<char> leader(n + 1, 0);
  leader[0] = 1;
  for (const auto& [label, index] : f.labels) leader[std::min(index, n)] = 1;
  for (size_t i = 0; i < n; ++i)
    if (is_terminator(f.body[i])) leader[i + 1] = 1;
  g.block_of.assign(n, -1);
  for (size_t i = 0; i < n;) {
    Block b;
    b.begin = i;
    do {
      g.block_of[i] = static_cast<int>(g.blocks.size());
      ++i;
    } while (i < n && !leader[i]);
    b.end = i;
    g.blocks.push_back(b);
  }
}

// ---- edges: each block's successors; a branch the CFG cannot follow sets g.problem ----
void link_blocks(const Function& f, Cfg& g) {
  const size_t n = f.body.size();
  const int nb = static_cast<int>(g.blocks.size());
  for (int b = 0; b < nb; ++b) {
    Block& blk = g.blocks[static_cast<size_t>(b)];
    const Instruction& last = f.body[blk.end - 1];
    const std::string& op = last.parts[0];
    bool falls = true;
    if (op == "bra") {
      const Operand* target = nullptr;
      for (const Operand& o : last.operands)
        if (o.kind == Operand::Kind::Symbol) target = &o;
      auto it = target ? f.labels.find(target->name) : f.labels.end();
      if (it == f.labels.end()) {
        g.problem = {last.pos, "a branch whose target is not a label of the function"};
        return;
      }
      if (it->second < n) blk.succ.push_back(g.block_of[it->second]);
      falls = last.guard.has_value();
    } else if (op == "brx") {
      g.problem = {last.pos, "an indirect branch (brx.idx), whose targets are not modelled"};
      return;
    } else if (op == "ret" || op == "exit" || op == "trap") {
      falls = last.guard.has_value();
    }
    if (falls && b + 1 < nb) blk.succ.push_back(b + 1);
  }
}

// ---- reverse post-order (iterative DFS): sets g.rpo, returns each block's place in it ----
std::vector<int> order_blocks(Cfg& g) {
  const int nb = static_cast<int>(g.blocks.size());
  std::vector<int> post;
  std::vector<char> seen(static_cast<size_t>(nb), 0);
  std::vector<std::pair<int, size_t>> stack{{0, 0}};
  seen[0] = 1;
  while (!stack.empty()) {
    auto& [b, k] = stack.back();
    const auto& succ = g.blocks[static_cast<size_t>(b)].succ;
    if (k < succ.size()) {
      const int s = succ[k++];
      if (!seen[static_cast<size_t>(s)]) {
        seen[static_cast<size_t>(s)] = 1;
        stack.emplace_back(s, 0);
      }
    } else {
      post.push_back(b);
      stack.pop_back();
    }
  }
  g.rpo.assign(post.rbegin(), post.rend());
  std::vector<int> order(static_cast<size_t>(nb), -1);
  for (size_t i = 0; i < g.rpo.size(); ++i) order[static_cast<size_t>(g.rpo[i])] = static_cast<int>(i);
  return order;
}

// ---- dominators (Cooper, Harvey, Kennedy): each block's immediate dominator, -1 if unreachable ----
std::vector<int> immediate_dominators(const Cfg& g, const std::vector<std::vector<int>>& preds,
                                      const std::vector<int>& order) {
  std::vector<int> idom(g.blocks.size(), -1);
  idom[0] = 0;
  auto intersect = [&](int a, int b) {
    while (a != b) {
      while (order[static_cast<size_t>(a)] > order[static_cast<size_t>(b)]) a = idom[static_cast<size_t>(a)];
      while (order[static_cast<size_t>(b)] > order[static_cast<size_t>(a)]) b = idom[static_cast<size_t>(b)];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    checkpoint();
    changed = false;
    for (size_t i = 1; i < g.rpo.size(); ++i) {
      const int b = g.rpo[i];
      int d = -1;
      for (int p : preds[static_cast<size_t>(b)])
        if (idom[static_cast<size_t>(p)] != -1) d = d == -1 ? p : intersect(p, d);
      if (d != idom[static_cast<size_t>(b)]) {
        idom[static_cast<size_t>(b)] = d;
        changed = true;
      }
    }
  }
  return idom;
}

// ---- natural loops: one per header, its body from the back edges; irreducible flow sets g.problem ----
void find_loops(const Function& f, Cfg& g, const std::vector<std::vector<int>>& preds, const std::vector<int>& order,
                const std::vector<int>& idom) {
  auto dominates = [&](int a, int b) {
    for (;;) {
      if (a == b) return true;
      if (b == 0 || idom[static_cast<size_t>(b)] == -1) return false;
      b = idom[static_cast<size_t>(b)];
    }
  };
  const size_t nb = g.blocks.size();
  std::vector<int> loop_of_header(nb, -1);
  for (int u : g.rpo)
    for (int v : g.blocks[static_cast<size_t>(u)].succ) {
      if (order[static_cast<size_t>(v)] > order[static_cast<size_t>(u)]) continue;  // forward edge
      if (!dominates(v, u)) {
        g.problem = {f.body[g.blocks[static_cast<size_t>(u)].end - 1].pos,
                     "irreducible control flow (a loop entered other than through its header)"};
        return;
      }
      int& id = loop_of_header[static_cast<size_t>(v)];
      if (id == -1) {
        id = static_cast<int>(g.loops.size());
        Loop l;
        l.header = v;
        l.contains.assign(nb, 0);
        l.contains[static_cast<size_t>(v)] = 1;
        g.loops.push_back(std::move(l));
      }
      Loop& l = g.loops[static_cast<size_t>(id)];
      std::vector<int> work{u};
      while (!work.empty()) {
        const int x = work.back();
        work.pop_back();
        if (l.contains[static_cast<size_t>(x)]) continue;
        l.contains[static_cast<size_t>(x)] = 1;
        for (int p : preds[static_cast<size_t>(x)]) work.push_back(p);
      }
    }
}

// ---- each loop's blocks, nesting (innermost loop per block, parent per loop) and carried registers ----
void nest_loops(const Function& f, Cfg& g) {
  auto body_size = [&](const Loop& l) { return std::count(l.contains.begin(), l.contains.end(), 1); };
  g.innermost.assign(g.blocks.size(), std::nullopt);
  for (size_t id = 0; id < g.loops.size(); ++id) {
    Loop& l = g.loops[id];
    for (int b : g.rpo)
      if (l.contains[static_cast<size_t>(b)]) l.blocks_rpo.push_back(b);
    for (int b : l.blocks_rpo) {
      std::optional<int>& in = g.innermost[static_cast<size_t>(b)];
      if (!in || body_size(g.loops[static_cast<size_t>(*in)]) > body_size(l)) in = static_cast<int>(id);
    }
  }
  for (size_t id = 0; id < g.loops.size(); ++id) {
    Loop& l = g.loops[id];
    for (size_t other = 0; other < g.loops.size(); ++other) {
      if (other == id || !g.loops[other].contains[static_cast<size_t>(l.header)]) continue;
      if (body_size(g.loops[other]) <= body_size(l)) continue;
      if (!l.parent || body_size(g.loops[static_cast<size_t>(*l.parent)]) > body_size(g.loops[other]))
        l.parent = static_cast<int>(other);
    }
    std::set<int> written;
    for (int b : l.blocks_rpo)
      for (size_t i = g.blocks[static_cast<size_t>(b)].begin; i < g.blocks[static_cast<size_t>(b)].end; ++i) {
        const Instruction& ins = f.body[i];
        if (!writes_first_operand(ins)) continue;
        std::vector<std::string> regs;
        collect_registers(ins.operands[0], regs);
        for (const Operand& o : ins.operands)
          if (o.pair) regs.push_back(*o.pair);
        if (ins.parts[0] == "setp" && ins.operands[0].pair) regs.push_back(*ins.operands[0].pair);
        for (const std::string& r : regs) {
          auto it = g.reg_index.find(r);
          if (it != g.reg_index.end()) written.insert(it->second);
        }
      }
    l.carried.assign(written.begin(), written.end());
  }
}

}  // namespace

Cfg build_cfg(const Function& f) {
  Cfg g;
  index_registers(f, g);
  split_blocks(f, g);
  link_blocks(f, g);
  if (g.problem || g.blocks.empty()) return g;
  const std::vector<int> order = order_blocks(g);
  std::vector<std::vector<int>> preds(g.blocks.size());
  for (int b : g.rpo)
    for (int s : g.blocks[static_cast<size_t>(b)].succ) preds[static_cast<size_t>(s)].push_back(b);
  const std::vector<int> idom = immediate_dominators(g, preds, order);
  find_loops(f, g, preds, order, idom);
  if (g.problem) return g;
  nest_loops(f, g);
  return g;
}

}  // namespace lp::ptx
