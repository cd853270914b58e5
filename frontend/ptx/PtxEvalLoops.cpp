// The evaluator's loop summaries: a probe pass classifies each carried register (invariant,
// induction variable, finite cycle, shifted or settling sequence, entry + V*2^k), and lanes that
// leave a loop at different iterations reconverge at its exit.
#include <fmt/format.h>

#include <algorithm>

#include "frontend/ptx/PtxKernelEval.h"

namespace lp::ptx::detail {

// A loop: a probe pass over the body with every carried register a fresh symbol gives each
// register's update; the update is classified (invariant, induction variable entry + n*step,
// a finite cycle of values, entry + V*2^k, or unknown); the body is then evaluated once with
// those models at the header, for the loop's iteration count n, under the assumption that the
// back edge was taken at iteration n-1.
void KernelEval::process_loop(int id, std::vector<State>& entries, std::vector<std::pair<int, State>>& exits) {
  const Frame& fr = stack_.back();
  const Cfg& cfg = *fr.cfg;
  const Loop& loop = cfg.loops[static_cast<size_t>(id)];
  const Function& f = *fr.fn;
  const std::string where = fmt::format("line {}", line_of(m_, f.body[cfg.blocks[static_cast<size_t>(loop.header)].begin].pos));
  State E = merge(entries);
  const VarId first_var = static_cast<VarId>(P_.var_count());
  const TermId n = P_.var_term(uniform("n@" + where, 32, 0, 0xffffffffu));
  const VarId nv = static_cast<VarId>(P_.node(n).value);
  std::map<int, TermId> model;
  TermId assumption = P_.boolean(true);
  bool monotone = false;  // the assumption is exactly "iteration n is reached", lane by lane
  if (probe_depth_ < opt_.max_probe_depth) {
    State probe = E;
    probe.reach = P_.boolean(true);  // the back edge's condition relative to the loop's entry
    std::map<int, TermId> probes;
    std::unordered_map<VarId, int> probe_reg;
    for (int r : loop.carried) {
      VarInfo v;
      v.name = fmt::format("x{}", r);
      v.kind = VarKind::Probe;
      v.width = cfg.reg_bits[static_cast<size_t>(r)];
      const VarId pv = P_.new_var(v);
      probes[r] = P_.var_term(pv);
      probe_reg[pv] = r;
      probe.regs[static_cast<size_t>(r)] = probes[r];
    }
    ++probing_;
    ++probe_depth_;
    RegionOut o;
    run_region(id, probe, o);
    --probing_;
    --probe_depth_;
    if (o.latches.empty()) {
      for (int r : loop.carried) model[r] = E.regs[static_cast<size_t>(r)];
    } else {
      State back = merge(o.latches);
      std::vector<TermId> no_wrap;
      uint64_t window = 0;
      classify(loop, E, back, probes, probe_reg, n, where, model, no_wrap, window);
      // bc: the back edge is taken, in terms of the models; A(n) = n == 0 || bc(n - 1).
      std::unordered_map<VarId, TermId> to_model;
      for (auto& [r, x] : probes)
        if (model[r] != kUnset) to_model[static_cast<VarId>(P_.node(x).value)] = model[r];
      TermId bc = P_.substitute(back.reach, to_model);
      if (P_.has_probe(bc)) bc = opaque("the loop's exit condition at " + where + " is not modelled", 1);
      const TermId prev = P_.substitute(bc, {{nv, P_.sub(n, P_.constant(1, 32))}});
      assumption = P_.bit_or(P_.eq(n, P_.constant(0, 32)), prev);
      monotone = monotone_exit(bc, n, no_wrap);
      for (TermId c : no_wrap) assumption = P_.bit_and(assumption, c);
      // Iteration n is reached only when the back edge was taken at every earlier iteration, not
      // only at n-1. A sequence that settles (a counter shifted to 0) makes bc(n-1) true again
      // past the loop's end, so the earlier iterations while its values change are required too.
      for (uint64_t k = 0; k < window; ++k)
        assumption = P_.bit_and(assumption,
                                P_.bit_or(P_.ule(n, P_.constant(k, 32)), P_.substitute(bc, {{nv, P_.constant(k, 32)}})));
    }
  } else {
    for (int r : loop.carried)
      model[r] = opaque(fmt::format("loop-carried register at {} (loops nested too deeply to summarise)", where),
                        cfg.reg_bits[static_cast<size_t>(r)]);
  }
  State H = E;
  for (int r : loop.carried) H.regs[static_cast<size_t>(r)] = model[r];
  H.reach = P_.bit_and(E.reach, assumption);
  H.exact = E.exact && (monotone || !P_.lane_dependent(assumption));
  RegionOut o;
  run_region(id, H, o);
  exits = std::move(o.exits);
  reconverge(loop, E, first_var, where, exits);
}

// Whether the back edge's condition bc(n-1) implies it at every earlier iteration, so that
// n == 0 || bc(n-1) is exactly "iteration n is reached" even when it differs between lanes: bc
// compares a counter that grows by a positive lane-uniform step each iteration with a bound the
// loop does not change (`for (i = threadIdx.x; i < n; i += blockDim.x)`: counter < bound or
// counter <= bound), and the counter does not wrap up to iteration n-1 (added to `no_wrap`: the
// assumption every 32-bit counter has, docs/ptx.md). Its values then increase, and a bound it has
// not reached at n-1 it had not reached before.
bool KernelEval::monotone_exit(TermId bc, TermId n, std::vector<TermId>& no_wrap) {
  const VarId nv = static_cast<VarId>(P_.node(n).value);
  auto depends_on_n = [&](TermId t) {
    const std::vector<VarId> vs = P_.vars_of(t);
    return std::find(vs.begin(), vs.end(), nv) != vs.end();
  };
  const term::Node& top = P_.node(bc);
  const bool at_most = top.op == term::Op::Not;  // !(bound < counter): counter <= bound
  const term::Node& cmp = P_.node(at_most ? top.a : bc);
  if (cmp.op != term::Op::Slt && cmp.op != term::Op::Ult) return false;
  const bool is_signed = cmp.op == term::Op::Slt;
  const TermId counter = at_most ? cmp.b : cmp.a, bound = at_most ? cmp.a : cmp.b;
  const int w = P_.width(counter);
  if (w > 32 || depends_on_n(bound) || !depends_on_n(counter) || P_.opaque(counter) || P_.opaque(bound)) return false;
  // counter = first + n * step: one term of its sum holds n, as n or as n times an n-free factor.
  const TermId nw = P_.resize(n, w);
  std::optional<TermId> step;
  for (const auto& [atom, coef] : P_.sum_of(counter).atoms) {
    if (!depends_on_n(atom)) continue;
    const term::Node& m = P_.node(atom);
    std::optional<TermId> factor;
    if (atom == nw) factor = P_.constant(1, w);
    else if (m.op == term::Op::Mul && m.a == nw && !depends_on_n(m.b)) factor = m.b;
    else if (m.op == term::Op::Mul && m.b == nw && !depends_on_n(m.a)) factor = m.a;
    if (!factor || step) return false;
    step = P_.mul(*factor, P_.constant(coef, w));
  }
  if (!step || P_.lane_dependent(*step) || P_.opaque(*step) || P_.node(*step).umin == 0 ||
      P_.max_value(*step) >= (uint64_t{1} << (w - 1)))
    return false;
  const TermId first = P_.substitute(counter, {{nv, P_.constant(0, 32)}});
  const TermId last = P_.sub(n, P_.constant(1, 32));
  auto widen = [&](TermId t) { return is_signed ? P_.sext(t, 64) : P_.zext(t, 64); };
  const TermId exact = P_.add(widen(first), P_.mul(P_.zext(last, 64), P_.zext(*step, 64)));
  no_wrap.push_back(P_.bit_or(P_.eq(n, P_.constant(0, 32)), P_.eq(exact, widen(P_.substitute(counter, {{nv, last}})))));
  return true;
}

// Lanes that leave a loop at different iterations (a block-stride loop over a tile, a per-lane
// break) all arrive at its one exit, the loop assumed to terminate: there every lane that entered
// is active, exactly so when nothing in the loop ends a lane (ret, exit, trap, a call). A value
// the loop wrote is then the same for every lane only when it does not depend on the iteration;
// otherwise it is opaque. Without this, the code after the loop would see, for each iteration,
// only the lanes that leave at it.
void KernelEval::reconverge(const Loop& loop, const State& E, VarId first_var, const std::string& where,
                            std::vector<std::pair<int, State>>& exits) {
  if (exits.empty()) return;
  const int target = exits[0].first;
  for (const auto& [t, st] : exits)
    if (t != target) return;
  auto iteration_dependent = [&](TermId t) {
    for (VarId v : P_.vars_of(t))
      if (v >= first_var && unkeyed_uniforms_.count(v)) return true;
    return false;
  };
  // Divergent when what decides a lane's exit, beyond the lanes that entered, depends on the
  // lane and on the iteration.
  std::set<TermId> entered;
  conjuncts(E.reach, entered);
  bool diverges = false;
  for (const auto& [t, st] : exits) {
    std::set<TermId> parts;
    conjuncts(st.reach, parts);
    for (TermId c : parts)
      diverges = diverges || (!entered.count(c) && P_.lane_dependent(c) && iteration_dependent(c));
  }
  if (!diverges) return;
  std::vector<State> states;
  for (auto& [t, st] : exits) states.push_back(std::move(st));
  State out = E;
  out.params = merge(states).params;
  out.exact = E.exact && !ends_lanes(loop);
  const Cfg& cfg = *stack_.back().cfg;
  for (int r : loop.carried) {
    const TermId v = states[0].regs[static_cast<size_t>(r)];
    bool same = true;
    for (const State& st : states) same = same && st.regs[static_cast<size_t>(r)] == v;
    if (same && (v == kUnset || !iteration_dependent(v))) out.regs[static_cast<size_t>(r)] = v;
    else
      out.regs[static_cast<size_t>(r)] =
          opaque(fmt::format("a value of the loop at {}, which lanes leave at different iterations", where),
                 cfg.reg_bits[static_cast<size_t>(r)]);
  }
  exits.clear();
  exits.emplace_back(target, std::move(out));
}

void KernelEval::conjuncts(TermId t, std::set<TermId>& out) const {
  const term::Node& n = P_.node(t);
  if (n.op == term::Op::And && n.width == 1) {
    conjuncts(n.a, out);
    conjuncts(n.b, out);
  } else {
    out.insert(t);
  }
}

bool KernelEval::ends_lane(const std::string& op) { return op == "ret" || op == "exit" || op == "trap"; }

// Whether an instruction of the loop may end a lane or leave it elsewhere than at the loop's exit.
bool KernelEval::ends_lanes(const Loop& loop) const {
  const Frame& fr = stack_.back();
  for (int b : loop.blocks_rpo) {
    const Block& blk = fr.cfg->blocks[static_cast<size_t>(b)];
    for (size_t i = blk.begin; i < blk.end; ++i) {
      const std::string& op = fr.fn->body[i].parts[0];
      if (ends_lane(op) || op == "call") return true;
    }
  }
  return false;
}

void KernelEval::classify(const Loop& loop, const State& E, const State& back, const std::map<int, TermId>& probes,
                          const std::unordered_map<VarId, int>& probe_reg, TermId n, const std::string& where,
                          std::map<int, TermId>& model, std::vector<TermId>& no_wrap, uint64_t& window) {
  const Frame& fr = stack_.back();
  std::vector<int> pending;
  for (int r : loop.carried) {
    const TermId x = probes.at(r);
    const TermId e = E.regs[static_cast<size_t>(r)];
    const TermId u = back.regs[static_cast<size_t>(r)];
    const int w = fr.cfg->reg_bits[static_cast<size_t>(r)];
    if (u == kUnset || u == x) {
      model[r] = e;
      continue;
    }
    if (!P_.has_probe(u)) {  // recomputed every iteration from loop-invariant values
      model[r] = e == kUnset ? u : P_.ite(P_.eq(n, P_.constant(0, 32)), e, u);
      continue;
    }
    if (e == kUnset) {
      model[r] = kUnset;
      pending.push_back(r);
      continue;
    }
    const TermId step = P_.sub(u, x);
    if (!P_.has_probe(step)) {
      model[r] = P_.add(e, P_.mul(P_.resize(n, w), step));
      // A 32-bit counter of the loop does not overflow (C++'s signed loop counters cannot;
      // docs/ptx.md): its value is the exact sum e + n*step.
      if (w == 32 && !P_.lane_dependent(e) && !P_.lane_dependent(step)) {
        const TermId exact = P_.add(P_.sext(e, 64), P_.mul(P_.sext(step, 64), P_.zext(n, 64)));
        no_wrap.push_back(P_.eq(exact, P_.sext(model[r], 64)));
      }
      continue;
    }
    if (const auto g = geometric(x, e, u, n)) {
      model[r] = g->first;
      window = std::max(window, g->second);
      continue;
    }
    if (const auto seq = settling_sequence(x, e, u, n, probe_reg)) {
      model[r] = seq->first;
      window = std::max(window, seq->second);
      continue;
    }
    model[r] = kUnset;
    pending.push_back(r);
  }
  // A finite cycle: registers whose updates depend only on each other (stage counters, the
  // buffer offsets computed from them) are iterated together from their entry values; when the
  // tuple of values repeats, every iteration holds one of the tuples seen, chosen by one selector.
  std::set<int> group;
  for (int r : pending)
    if (E.regs[static_cast<size_t>(r)] != kUnset) group.insert(r);
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = group.begin(); it != group.end();) {
      bool closed = true;
      for (VarId v : P_.vars_of(back.regs[static_cast<size_t>(*it)])) {
        auto pr = probe_reg.find(v);
        if (pr != probe_reg.end() && !group.count(pr->second)) closed = false;
      }
      if (closed) {
        ++it;
      } else {
        it = group.erase(it);
        changed = true;
      }
    }
  }
  if (!group.empty()) {
    const std::vector<int> regs(group.begin(), group.end());
    std::vector<std::vector<TermId>> states{{}};
    for (int r : regs) states[0].push_back(E.regs[static_cast<size_t>(r)]);
    bool cycled = false;
    for (int k = 0; k < 16 && !cycled; ++k) {
      std::unordered_map<VarId, TermId> at;
      for (size_t i = 0; i < regs.size(); ++i)
        at[static_cast<VarId>(P_.node(probes.at(regs[i])).value)] = states.back()[i];
      std::vector<TermId> next;
      for (int r : regs) next.push_back(P_.substitute(back.regs[static_cast<size_t>(r)], at));
      if (std::find(states.begin(), states.end(), next) != states.end()) cycled = true;
      else states.push_back(std::move(next));
    }
    if (cycled) {
      const TermId sel = P_.var_term(uniform(fmt::format("stage@{}", where), 32, 0, states.size() - 1));
      for (size_t i = 0; i < regs.size(); ++i) {
        TermId v = states.back()[i];
        for (size_t k = states.size() - 1; k-- > 0;) v = P_.ite(P_.eq(sel, P_.constant(k, 32)), states[k][i], v);
        model[regs[i]] = v;
      }
      pending.erase(std::remove_if(pending.begin(), pending.end(), [&](int r) { return group.count(r) != 0; }),
                    pending.end());
    }
  }
  // entry + V*2^k: the step, with the other registers' models in place, is lane-uniform and a
  // multiple of 2^k at every iteration.
  for (bool progress = true; progress && !pending.empty();) {
    progress = false;
    for (auto it = pending.begin(); it != pending.end();) {
      const int r = *it;
      const TermId x = probes.at(r);
      const TermId e = E.regs[static_cast<size_t>(r)];
      const int w = fr.cfg->reg_bits[static_cast<size_t>(r)];
      std::unordered_map<VarId, TermId> others;
      for (auto& [q, xq] : probes)
        if (q != r && model[q] != kUnset) others[static_cast<VarId>(P_.node(xq).value)] = model[q];
      const TermId u = back.regs[static_cast<size_t>(r)];
      // Recomputed every iteration from other registers the model knows (a byte offset the
      // compiler derives from a halving counter): iteration n's value is the update applied to
      // their values at iteration n-1. Exact.
      if (derived_from(u, x, others, probe_reg)) {
        const TermId prev = P_.sub(n, P_.constant(1, 32));
        std::unordered_map<VarId, TermId> at_prev;
        for (auto& [v, m] : others) at_prev[v] = P_.substitute(m, {{static_cast<VarId>(P_.node(n).value), prev}});
        const TermId next = P_.substitute(u, at_prev);
        model[r] = e == kUnset ? next : P_.ite(P_.eq(n, P_.constant(0, 32)), e, next);
        it = pending.erase(it);
        progress = true;
        continue;
      }
      const TermId step = P_.substitute(P_.sub(u, x), others);
      if (e != kUnset && !P_.has_probe(step) && !P_.lane_dependent(step)) {
        const int k = P_.trailing_zeros(step);
        if (k >= w) {
          model[r] = e;
        } else {
          const TermId V = P_.var_term(uniform(fmt::format("v{}@{}", r, where), w, 0, term::mask_of(w) >> k, 0,
                                              "a loop value the model over-approximates (the loop may never produce it)"));
          model[r] = P_.add(e, P_.mul(V, P_.constant(uint64_t{1} << k, w)));
        }
        it = pending.erase(it);
        progress = true;
      } else {
        ++it;
      }
    }
  }
  for (int r : pending)
    model[r] = opaque(fmt::format("a register carried around the loop at {} is not an induction variable the model knows", where),
                      fr.cfg->reg_bits[static_cast<size_t>(r)]);
}

// x' = x << c, x * 2^c, x >> c (logical or arithmetic) for a constant c: the register at
// iteration n is its entry shifted by n*c. The amount is clamped at the width, past which every
// shift gives the same value, so n*c cannot wrap. Exact. Also the iterations after which the
// value no longer changes.
std::optional<std::pair<TermId, uint64_t>> KernelEval::geometric(TermId x, TermId e, TermId u, TermId n) {
  const int w = P_.width(x);
  const term::Node& un = P_.node(u);
  auto amount = [&](uint64_t c) {
    const TermId wc = P_.constant(static_cast<uint64_t>(w), 32);
    const TermId clamped = P_.ite(P_.ult(n, wc), n, wc);
    return P_.resize(P_.mul(clamped, P_.constant(c, 32)), w);
  };
  auto settled_after = [&](uint64_t c) { return (static_cast<uint64_t>(w) + c - 1) / c + 1; };
  if ((un.op == term::Op::LShr || un.op == term::Op::AShr) && un.a == x && P_.is_const(un.b)) {
    const uint64_t c = P_.node(un.b).value;
    return std::pair{un.op == term::Op::LShr ? P_.lshr(e, amount(c)) : P_.ashr(e, amount(c)), settled_after(c)};
  }
  const term::TermPool::Sum sum = P_.sum_of(u);
  if (sum.constant == 0 && sum.atoms.size() == 1 && sum.atoms[0].first == x) {
    const uint64_t coef = sum.atoms[0].second & term::mask_of(w);
    if (coef > 1 && (coef & (coef - 1)) == 0) {
      const auto c = static_cast<uint64_t>(__builtin_ctzll(coef));
      return std::pair{P_.shl(e, amount(c)), settled_after(c)};
    }
  }
  return std::nullopt;
}

// Any other update of a register by itself and loop-invariant values whose sequence from the
// entry value settles (v_{k+1} = v_k: a halving counter rounded toward zero, a mask filled
// bit by bit) within kMaxSettle iterations: the value at iteration n is v_min(n, k). Exact.
// Also the iterations after which the value no longer changes.
std::optional<std::pair<TermId, uint64_t>> KernelEval::settling_sequence(TermId x, TermId e, TermId u, TermId n,
                                                                         const std::unordered_map<VarId, int>& probe_reg) {
  for (VarId v : P_.vars_of(u))
    if (probe_reg.count(v) && P_.var_term(v) != x) return std::nullopt;
  const VarId xv = static_cast<VarId>(P_.node(x).value);
  std::vector<TermId> seq{e};
  while (seq.size() <= kMaxSettle) {
    const TermId next = P_.substitute(u, {{xv, seq.back()}});
    if (next == seq.back()) {
      TermId v = seq.back();
      for (size_t k = seq.size() - 1; k-- > 0;) v = P_.ite(P_.eq(n, P_.constant(k, 32)), seq[k], v);
      return std::pair{v, static_cast<uint64_t>(seq.size())};
    }
    seq.push_back(next);
  }
  return std::nullopt;
}

// Whether `u` reads no probe but those of other registers, each with a model in `others`.
bool KernelEval::derived_from(TermId u, TermId x, const std::unordered_map<VarId, TermId>& others,
                              const std::unordered_map<VarId, int>& probe_reg) const {
  bool any = false;
  for (VarId v : P_.vars_of(u)) {
    if (!probe_reg.count(v)) continue;
    if (P_.var_term(v) == x || !others.count(v)) return false;
    any = true;
  }
  return any;
}

}  // namespace lp::ptx::detail
