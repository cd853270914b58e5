#pragma once
// The Z3 side of deciding symbolic accesses (SymbolicAccess.h): one context per thread, the
// bit-vector solver of the queries, and the encoding of terms, defined in SymbolicZ3.cpp.
#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "frontend/term/Term.h"
#include "hw/BankModel.h"
#include "solver/Engines.h"
#include "solver/Result.h"

namespace lp::symbolic_detail {

using term::TermId;
using term::TermPool;
using term::VarId;

/// This thread's Z3 context, shared by the queries of one access.
z3::context& shared_context(const SolverLimits& limits);
/// Drops this thread's context: the next query starts a new one.
void renew_context();
/// A solver for the quantifier-free bit-vector queries, within `limits`.
z3::solver bit_vector_solver(z3::context& ctx, const SolverLimits& limits);

// ---- the Z3 encoding of terms ----

class Z3Terms {
 public:
  /// Symbolic lanes: at(t, symbolic(k)) evaluates `t` at the k-th lane variable (k < 3).
  static constexpr int symbolic(int k) { return -2 - k; }

  Z3Terms(z3::context& ctx, const TermPool& P, const std::map<VarId, term::VarDomain>& narrowed)
      : ctx_(ctx), P_(P), narrowed_(narrowed), memo_(hw::kWarpLanes + 4) {}

  /// `t` for one lane (0..31), a symbolic lane, or lane-free (-1: the term must not depend on the lane).
  z3::expr at(TermId t, int lane);
  z3::expr holds(TermId t, int lane) { return at(t, lane) == ctx_.bv_val(1, 1); }
  /// Bits that hold every value up to `umax` (at least 1).
  static unsigned bits_of(uint64_t umax) { return umax == 0 ? 1u : 64u - static_cast<unsigned>(__builtin_clzll(umax)); }
  /// The low `k` bits of `e` (its value, when it is below 2^k).
  static z3::expr low(const z3::expr& e, unsigned k) { return e.extract(k - 1, 0); }
  /// The k-th symbolic lane's number.
  z3::expr lane_var(int k);

  /// The domains of every uniform unknown created so far.
  z3::expr domains();
  /// Sets every variable of `ev` to the model's value.
  void read_model(const z3::model& m, term::Evaluator& ev);
  const std::map<VarId, z3::expr>& uniforms() const { return uniforms_; }

 private:
  z3::expr var(VarId v, int lane);

  /// `t >> s` and `t mod 2^s` when `t` is a sum whose terms below bit s add up to less than 2^s
  /// (no carry crosses bit s): the first from the other terms alone, so that 32 * warp + lane
  /// shifted by 5 is the warp at every lane (one expression, which Z3 shares, for all 32).
  std::optional<std::pair<z3::expr, z3::expr>> split(TermId t, int s, int lane);

  /// The power of two every value of `t` is a multiple of, by its domain (every query asserts
  /// domains()): an uniform unknown's alignment, 0 for any other term.
  int alignment_of(TermId t) const;

  z3::context& ctx_;
  const TermPool& P_;
  const std::map<VarId, term::VarDomain>& narrowed_;
  std::vector<std::unordered_map<TermId, z3::expr>> memo_;
  std::map<VarId, z3::expr> uniforms_;
  std::vector<z3::expr> lanes_;
};

}  // namespace lp::symbolic_detail
