#pragma once
// The decision of a symbolic access's properties (SymbolicAccess.h): the concrete evaluation of a
// warp (SymbolicAccess.cpp) and the Decider, whose passes SymbolicDecider.cpp (sampling and the
// obligations), SymbolicEnumeration.cpp and SymbolicZ3.cpp define.
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "frontend/term/Term.h"
#include "hw/BankModel.h"
#include "solver/BankEncoding.h"
#include "solver/Obligation.h"
#include "solver/Result.h"
#include "solver/SymbolicAccess.h"
#include "solver/SymbolicZ3.h"

namespace lp::symbolic_detail {

using term::TermId;
using term::TermPool;
using term::VarId;
using term::VarKind;

/// A variable's values: lo..hi in steps of 2^align (lo rounded up).
struct Domain {
  uint64_t first = 0, step = 1, count = 0;
};

Domain domain_of(const term::VarDomain& v, int width);

/// The conjuncts of a width-1 term (its top-level ands).
void conjuncts(const TermPool& P, TermId t, std::vector<TermId>& out);

// ---- concrete evaluation of one assignment ----

struct Warp {
  std::vector<int64_t> addresses = std::vector<int64_t>(hw::kWarpLanes, 0);
  std::vector<int64_t> offsets = std::vector<int64_t>(hw::kWarpLanes, 0);
  hw::LaneMask active = 0;
  int64_t extent = 0;
};

/// The warp at `ev`'s values. `per_lane`, when given, sets before each lane what differs between
/// lanes besides the lane (loaded values drawn per lane); with `every_lane`, each lane whose
/// address the instruction reads counts as active, its activity not evaluated.
Warp evaluate_warp(const SymbolicAccess& a, term::Evaluator& ev, const std::function<void(int)>& per_lane = nullptr,
                   bool every_lane = false);

std::vector<std::pair<std::string, int64_t>> uniform_values(const TermPool& P, const std::vector<VarId>& vars,
                                                            term::Evaluator& ev);

std::optional<std::string> approximated_in(const TermPool& P, const std::vector<VarId>& vars, term::Evaluator& ev);

// A misaligned or out-of-bounds active lane of a concrete warp.
std::optional<int> misaligned_lane(const SymbolicAccess& a, const Warp& w);
std::optional<int> outside_lane(const SymbolicAccess& a, const Warp& w);

/// The lanes' addresses moved together so the lowest active one lies in [0, 128) (bank rotation
/// keeps the cost), or nullopt when they span more shared memory than the architecture has.
std::optional<std::vector<int64_t>> normalised(const SymbolicAccess& a, const std::vector<int64_t>& addresses,
                                               hw::LaneMask active);

/// The cost of a concrete warp, as a witness when it conflicts.
std::optional<SymbolicWitness> conflict_of(const SymbolicAccess& a, const std::vector<int64_t>& addresses, hw::LaneMask active);

// ---- the decision ----

enum class Property { Conflicts, Alignment, Bounds };

/// The unknowns an access depends on besides the lane, in VarId order: what a warp of it is
/// evaluated over.
std::vector<VarId> access_vars(const SymbolicAccess& a);

class Decider {
 public:
  Decider(const SymbolicAccess& a, Engine engine, const SolverLimits& limits);

  // Each property is one obligation of the portfolio (solver/Obligation.h): its enumeration is the
  // joint enumeration of every uniform value when there are few (one pass answers all three), else
  // for conflicts and alignment the enumeration of warp-relative configurations (residues), which
  // has limits of its own; its Z3 form covers all 32 lanes; refutations are re-checked on the
  // witness's warp, then moved to the smallest values that still show them.
  bool sampled_violation(Property which, const SymbolicWitness& seed) const;
  SymbolicProperty sampled_refutation(Property which);
  template <class Draw>
  std::optional<SymbolicProperty> violation_with_loaded_values(Property which, Draw& draw);
  SymbolicProperty decide_property(Property which);

 private:
  // ---- domains ----
  Domain domain(VarId v) const { return domain_of(var_domain(a_, v), P_.var(v).width); }
  bool in_domain(VarId v, uint64_t x) const { return in_var_domain(a_, v, x); }

  // ---- outcomes, what the values of `ev` do, and the obligations (SymbolicDecider.cpp) ----
  SymbolicProperty proven(Engine e);
  SymbolicProperty unknown(Engine e, std::string why);
  SymbolicProperty limited_unknown(Engine e, std::string why);
  std::optional<std::pair<SymbolicWitness, std::string>> violation(Property which, term::Evaluator& ev) const;
  SymbolicProperty confirm(Property which, Engine e, term::Evaluator& ev);
  std::string conflict_summary(const SymbolicWitness& w) const;
  std::string bounds_summary(int lane, int64_t offset, int64_t address, int64_t extent) const;
  std::string activity_reason() const;
  Obligation<SymbolicProperty> obligation(Property which);
  static SymbolicProperty pick(const SymbolicResult& r, Property which);
  std::optional<std::string> recheck(const SymbolicProperty& p, Property which) const;
  bool minimise(SymbolicProperty& p, Property which);

  // ---- the enumerations (SymbolicEnumeration.cpp) ----
  struct EveryLanePoints {
    std::vector<VarId> vars;
    std::vector<Domain> doms;
  };
  bool every_lane_holds(Property which);
  std::optional<EveryLanePoints> every_lane_points() const;
  bool base_is_a_summand() const;
  void every_lane_pass(const EveryLanePoints& points);
  bool enumerable() const;
  const SymbolicResult* joint();
  void exhaustive(SymbolicResult& r, bool want_conflicts);
  void classify_lane_conditions(const std::vector<TermId>& lane_conds, bool mergeable, std::set<VarId>& small,
                                uint64_t& points, std::vector<TermId>& evaluated_conds,
                                std::vector<TermId>& deferred_conds) const;
  SymbolicProperty residues();
  std::optional<SymbolicProperty> sample(const std::vector<VarId>& evars, term::Evaluator& fixed,
                                         const std::vector<std::pair<TermId, uint64_t>>& uniform_atoms, uint64_t constant,
                                         const std::vector<TermId>& uniform_conds, const std::vector<TermId>& deferred_conds,
                                         const std::vector<int>& showing, uint64_t residue, int64_t period, Property which);
  std::optional<SymbolicProperty> realise(const std::vector<VarId>& evars, term::Evaluator& fixed,
                                          const std::vector<std::pair<TermId, uint64_t>>& uniform_atoms, uint64_t constant,
                                          const std::vector<TermId>& uniform_conds, const std::vector<TermId>& deferred_conds,
                                          const std::vector<int>& showing, uint64_t residue, int64_t period, Property which);

  // ---- Z3 over all 32 lanes (SymbolicZ3.cpp) ----
  z3::expr lane_may_run(Z3Terms& T, z3::context& ctx, int lane);
  SymbolicProperty z3_alignment();
  SymbolicProperty z3_bounds();
  SymbolicProperty z3_answer(z3::solver& s, Z3Terms& T, Property which);
  bank_encoding::WarpTerms warp_terms(Z3Terms& T, z3::context& ctx);
  z3::expr pair_conflict(Z3Terms& T, z3::context& ctx);
  SymbolicProperty z3_conflicts();
  bool lanes_in_one_run(const std::vector<TermId>& conds);

  const SymbolicAccess& a_;
  const TermPool& P_;
  Engine engine_;
  const SolverLimits& limits_;
  std::vector<VarId> vars_;
  bool opaque_ = false, activity_known_ = true;
  std::optional<SymbolicProperty> residue_alignment_, conflicts_by_residues_;
  struct EveryLane {
    bool aligned, inside;  ///< proven by the every-lane pass
  };
  std::optional<EveryLane> every_lane_;
  std::optional<SymbolicResult> joint_;
};

}  // namespace lp::symbolic_detail
