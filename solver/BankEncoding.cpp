#include "solver/BankEncoding.h"

#include <algorithm>
#include <bit>

#include "hw/BankModel.h"

namespace lp::bank_encoding {
namespace {

// Bits of the per-phase and per-instruction counts: at most 32 lanes x 4 words in 8 phases.
constexpr unsigned kCountBits = 16;

z3::expr constant_like(const z3::expr& bv, uint64_t value) { return bv.ctx().bv_val(value, bv.get_sort().bv_size()); }

// The bank words of one access: its first word (address / bank_bytes) and the words after it.
std::vector<z3::expr> words_at(const hw::Arch& arch, const hw::SmemInstr& instr, const z3::expr& address) {
  const auto shift = static_cast<uint64_t>(std::countr_zero(static_cast<unsigned>(arch.bank_bytes)));
  const z3::expr first = z3::lshr(address, constant_like(address, shift));
  std::vector<z3::expr> words;
  for (int j = 0; j < std::max(1, instr.bytes / arch.bank_bytes); ++j)
    words.push_back(j == 0 ? first : first + constant_like(address, static_cast<uint64_t>(j)));
  return words;
}

z3::expr bank_of(const hw::Arch& arch, const z3::expr& word) {
  return word & constant_like(word, static_cast<uint64_t>(arch.banks - 1));
}

z3::expr count(z3::context& ctx, uint64_t v) { return ctx.bv_val(v, kCountBits); }

// Conjunction and disjunction that fold constant operands, so that a warp with concrete activity
// gets the terms it would get with inactive lanes left out.
z3::expr conj(const z3::expr& a, const z3::expr& b) {
  if (a.is_false() || b.is_true()) return a;
  if (b.is_false() || a.is_true()) return b;
  return a && b;
}
z3::expr disj(const z3::expr& a, const z3::expr& b) {
  if (a.is_true() || b.is_false()) return a;
  if (b.is_true() || a.is_false()) return b;
  return a || b;
}

// The cost of one phase: the busiest bank's counted words, at least 1; 0 when no lane is active.
z3::expr phase_cost(const hw::Arch& arch, const hw::SmemInstr& instr, const WarpTerms& warp,
                    const std::vector<int>& lanes, const z3::expr& any_active) {
  z3::context& ctx = any_active.ctx();
  std::vector<z3::expr> words, live, banks;
  for (int lane : lanes) {
    const z3::expr& on = warp.active[static_cast<size_t>(lane)];
    if (on.is_false()) continue;
    for (const z3::expr& w : words_at(arch, instr, warp.address[static_cast<size_t>(lane)])) {
      words.push_back(w);
      live.push_back(on);
      banks.push_back(bank_of(arch, w));
    }
  }
  // A word counts towards its bank where its lane is active and, for instructions that
  // broadcast, where no earlier active access of the phase has the same word.
  std::vector<z3::expr> counted;
  for (size_t c = 0; c < words.size(); ++c) {
    z3::expr first = live[c];
    if (instr.broadcast)
      for (size_t d = 0; d < c; ++d) first = conj(first, live[d].is_true() ? words[d] != words[c] : !(live[d] && words[d] == words[c]));
    counted.push_back(first);
  }
  z3::expr busiest = count(ctx, 1);
  for (int bank = 0; bank < arch.banks; ++bank) {
    z3::expr load = count(ctx, 0);
    for (size_t c = 0; c < words.size(); ++c)
      load = load + z3::ite(conj(counted[c], banks[c] == constant_like(banks[c], static_cast<uint64_t>(bank))),
                            count(ctx, 1), count(ctx, 0));
    busiest = z3::ite(z3::ugt(load, busiest), load, busiest);
  }
  return any_active.is_true() ? busiest : z3::ite(any_active, busiest, count(ctx, 0));
}

z3::expr any_of(z3::context& ctx, const WarpTerms& warp, const std::vector<int>& lanes) {
  z3::expr any = ctx.bool_val(false);
  for (int lane : lanes) any = disj(any, warp.active[static_cast<size_t>(lane)]);
  return any;
}

}  // namespace

z3::expr words_clash(const hw::Arch& arch, const hw::SmemInstr& instr, const z3::expr& ai, const z3::expr& aj) {
  z3::expr clash = ai.ctx().bool_val(false);
  for (const z3::expr& u : words_at(arch, instr, ai))
    for (const z3::expr& v : words_at(arch, instr, aj)) {
      const z3::expr same_bank = ((u ^ v) & constant_like(u, static_cast<uint64_t>(arch.banks - 1))) == constant_like(u, 0);
      clash = disj(clash, instr.broadcast ? (same_bank && u != v) : same_bank);
    }
  return clash;
}

z3::expr loads_merge(const hw::Arch& arch, const hw::SmemInstr& instr, const WarpTerms& warp) {
  z3::context& ctx = warp.address.front().ctx();
  z3::expr merges = ctx.bool_val(false);
  if (!arch.load_merging || !instr.mergeable) return merges;
  for (int x : hw::kMergePartnerXors) {
    z3::expr partners = ctx.bool_val(true);
    for (int l = 0; l < hw::kWarpLanes; ++l) {
      const z3::expr both = conj(warp.active[static_cast<size_t>(l)], warp.active[static_cast<size_t>(l ^ x)]);
      if (both.is_false()) continue;
      const z3::expr same = warp.address[static_cast<size_t>(l)] == warp.address[static_cast<size_t>(l ^ x)];
      partners = conj(partners, both.is_true() ? same : z3::implies(both, same));
    }
    merges = disj(merges, partners);
  }
  return merges;
}

z3::expr some_phase_conflicts(const hw::Arch& arch, const hw::SmemInstr& instr, const WarpTerms& warp, bool merged) {
  z3::expr any = warp.address.front().ctx().bool_val(false);
  for (const std::vector<int>& phase : hw::phase_lanes(instr, merged))
    for (size_t i = 0; i < phase.size(); ++i)
      for (size_t j = i + 1; j < phase.size(); ++j) {
        const size_t li = static_cast<size_t>(phase[i]), lj = static_cast<size_t>(phase[j]);
        const z3::expr both = conj(warp.active[li], warp.active[lj]);
        if (both.is_false()) continue;
        any = disj(any, conj(both, words_clash(arch, instr, warp.address[li], warp.address[lj])));
      }
  return any;
}

Wavefronts wavefronts(const hw::Arch& arch, const hw::SmemInstr& instr, const WarpTerms& warp) {
  z3::context& ctx = warp.address.front().ctx();
  auto split_cost = [&](bool merged) {
    z3::expr total = count(ctx, 0), busy = count(ctx, 0);
    for (const std::vector<int>& lanes : hw::phase_lanes(instr, merged)) {
      const z3::expr any = any_of(ctx, warp, lanes);
      if (any.is_false()) continue;  // a phase without an active lane costs nothing
      total = total + phase_cost(arch, instr, warp, lanes, any);
      busy = busy + (any.is_true() ? count(ctx, 1) : z3::ite(any, count(ctx, 1), count(ctx, 0)));
    }
    return Wavefronts{total, z3::ite(z3::ugt(busy, count(ctx, 1)), busy, count(ctx, 1))};
  };
  Wavefronts unmerged = split_cost(false);
  if (!arch.load_merging || !instr.mergeable) return unmerged;
  const Wavefronts merged = split_cost(true);
  const z3::expr merges = loads_merge(arch, instr, warp);
  return Wavefronts{z3::ite(merges, merged.total, unmerged.total), z3::ite(merges, merged.ideal, unmerged.ideal)};
}

}  // namespace lp::bank_encoding
