#include "solver/BankConflicts.h"

#include <fmt/format.h>

#include <algorithm>

#include "analyzer/ir/Checked.h"
#include "analyzer/support/Governor.h"
#include "hw/BankModel.h"
#include "hw/HwError.h"
#include "solver/BankEncoding.h"
#include "solver/Obligation.h"
#include "solver/F2Conflicts.h"
#include "solver/QueryLog.h"
#include "solver/Z3Layout.h"

namespace lp {

namespace {

std::vector<int64_t> bases(const SmemAccess& a) {
  std::vector<int64_t> out;
  for (int64_t b = 0; b < a.base_period(); b += a.base_align()) out.push_back(b);
  if (out.empty()) out.push_back(0);
  return out;
}

// The two lanes of the worst phase that touch different words of its busiest bank.
ConflictWitness witness_from_cost(const SmemAccess& a, int64_t issue, int64_t base, const std::vector<int64_t>& addr,
                                  const hw::AccessCost& cost) {
  const hw::PhaseCost* worst = &cost.phases.front();
  for (const auto& p : cost.phases)
    if (p.wavefronts > worst->wavefronts) worst = &p;
  ConflictWitness w;
  w.issue = issue;
  w.base = base;
  w.bank = worst->bank;
  w.words = worst->words;
  w.wavefronts = cost.wavefronts;
  w.ideal = cost.ideal;
  const int bank_count = a.arch().banks;
  std::vector<std::pair<int, int64_t>> touching;  // (lane, word) on the bank
  for (int lane : worst->lanes) {
    if (!a.is_active(lane)) continue;
    const int64_t word_bytes = a.arch().bank_bytes;
    int64_t first = addr[static_cast<size_t>(lane)] / word_bytes, last = (addr[static_cast<size_t>(lane)] + a.instr().bytes - 1) / word_bytes;
    for (int64_t word = first; word <= last; ++word)
      if (word % bank_count == w.bank) touching.push_back({lane, word});
  }
  w.lane_a = w.lane_b = touching.front().first;
  for (const auto& [lane, word] : touching)
    if (word != touching.front().second || (!a.instr().broadcast && lane != touching.front().first)) {
      w.lane_b = lane;
      break;
    }
  w.coord_a = a.coordinate(w.lane_a, issue);
  w.coord_b = a.coordinate(w.lane_b, issue);
  w.address_a = addr[static_cast<size_t>(w.lane_a)];
  w.address_b = addr[static_cast<size_t>(w.lane_b)];
  return w;
}

// Each lane's vector must cover the consecutive logical elements along the contiguous mode.
std::optional<AccessWitness> check_vector(const SmemAccess& a, int lane, int64_t issue) {
  const int n = a.elements_per_access();
  if (n == 1) return std::nullopt;
  std::vector<int64_t> c = a.coordinate(lane, issue);
  auto fail = [&](std::string what) { return AccessWitness{lane, issue, 0, c, std::move(what)}; };
  if (!a.vector_mode())
    return fail(fmt::format("a {}-byte access covers {} elements, but no logical mode of the smem layout is contiguous",
                            a.instr().bytes, n));
  size_t d = *a.vector_mode();
  int64_t e0 = a.element_part().offset_at(a.smem_index(c));
  for (int j = 1; j < n; ++j) {
    std::vector<int64_t> cj = c;
    cj[d] += j;
    if (cj[d] >= a.smem_dims()[d])
      return fail(fmt::format("its {}-element vector runs past the end of mode {} (size {})", n, d, a.smem_dims()[d]));
    int64_t ej = a.element_part().offset_at(a.smem_index(cj));
    if (ej != e0 + j)
      return fail(fmt::format("element {} of its vector (coordinate +{} along mode {}) is at offset {}, not {}", j, j, d, ej,
                              e0 + j));
  }
  return std::nullopt;
}

// With an `access_prefix`, only issues below it are visited, and only an invalid access is
// reported (Refuted, exactly what the full enumeration would report, since the full enumeration
// returns at the first invalid access in the same order); otherwise the answer is Unknown.
ConflictResult by_enumeration(const SmemAccess& a, const SolverLimits& limits, std::optional<int64_t> access_prefix = {}) {
  ConflictResult r;
  r.engine = Engine::Enum;
  auto residues = bases(a);
  const int used = hw::address_lane_count(a.instr());
  if (!access_prefix && a.issue_count() > limits.max_enumeration / hw::kWarpLanes / static_cast<int64_t>(residues.size())) {
    r.reason = fmt::format("{} issues x {} base residues exceed the enumeration limit", a.issue_count(), residues.size());
    return r;
  }
  for (int64_t q = 0; q < a.issue_count(); ++q) {
    checkpoint();
    if (access_prefix && q >= *access_prefix) {
      r = ConflictResult{};
      r.engine = Engine::Enum;
      r.reason = "the access prefix found no invalid access";
      return r;
    }
    for (int lane = 0; lane < used; ++lane) {
      if (!a.is_active(lane)) continue;
      try {
        if (auto v = check_vector(a, lane, q)) {
          r.verdict = Verdict::Refuted;
          r.access = v;
          return r;
        }
      } catch (const AccessError& e) {
        r.verdict = Verdict::Refuted;
        r.access = AccessWitness{lane, q, 0, {}, e.what()};
        return r;
      }
    }
    for (int64_t base : residues) {
      std::vector<int64_t> addr;
      try {
        addr = a.addresses(q, base);
        hw::AccessCost cost = a.cost(addr);
        if (cost.wavefronts > r.wavefronts || (cost.wavefronts == r.wavefronts && cost.ideal < r.ideal)) {
          r.wavefronts = cost.wavefronts;
          r.ideal = cost.ideal;
        }
        if (!cost.conflict_free && !r.conflict) r.conflict = witness_from_cost(a, q, base, addr, cost);
      } catch (const AccessError& e) {
        r.verdict = Verdict::Refuted;
        r.access = AccessWitness{std::nullopt, q, base, {}, e.what()};
        return r;
      } catch (const hw::HwError& e) {
        r.verdict = Verdict::Refuted;
        r.access = AccessWitness{std::nullopt, q, base, {}, e.what()};
        return r;
      }
    }
  }
  r.verdict = r.conflict ? Verdict::Refuted : Verdict::Proven;
  return r;
}

// ---- F2 ---------------------------------------------------------------------------------------

// Decides exactly-affine accesses by rank (solver/F2Conflicts.h). Every invalid point, cost and
// conflict it reports is re-evaluated concretely; a disagreement is Unknown, never a verdict.
ConflictResult by_f2(const SmemAccess& a, const SolverLimits& limits) {
  ConflictResult r;
  r.engine = Engine::F2;
  if (a.partial_warp()) {
    r.reason = "F2 does not apply: a partial warp (its rank argument assumes every lane gives an address)";
    return r;
  }
  std::string why;
  auto map = F2AccessMap::build(a, &why);
  if (!map) {
    r.reason = "F2 does not apply: " + why;
    return r;
  }
  auto refute = [&](std::optional<int> lane, int64_t issue, int64_t base, std::string what) {
    r.verdict = Verdict::Refuted;
    r.access = AccessWitness{lane, issue, base, {}, std::move(what)};
    return r;
  };
  if (const auto& p = map->invalid()) {
    try {
      hw::validate_access(a.arch(), a.instr(), a.addresses(p->issue, p->base));
    } catch (const AccessError& e) {
      return refute(std::nullopt, p->issue, p->base, e.what());
    } catch (const hw::HwError& e) {
      return refute(std::nullopt, p->issue, p->base, e.what());
    }
    r.reason = fmt::format("internal error: F2 found an invalid address at issue {} that concrete evaluation does not confirm",
                           p->issue);
    return r;
  }
  // The map against concrete evaluation at its origin and each input bit.
  const int64_t base0 = map->residues().front();
  std::vector<uint64_t> probes = {0};
  probes.insert(probes.end(), map->inputs().begin(), map->inputs().end());
  for (uint64_t in : probes) {
    F2Point p = map->point(in, base0);
    if (a.address(p.lane, p.issue, base0) != map->address(in, base0)) {
      r.reason = fmt::format("internal error: the F2 address of lane {} issue {} disagrees with evaluation", p.lane, p.issue);
      return r;
    }
  }
  if (!map->vectors_shown()) {
    if (a.issue_count() > limits.max_enumeration / hw::kWarpLanes) {
      r.reason = "the vector-coverage check is not shown over F2 and needs an enumeration of all issues, which exceeds the limit";
      return r;
    }
    for (int64_t q = 0; q < a.issue_count(); ++q) {
      checkpoint();
      for (int lane = 0; lane < hw::address_lane_count(a.instr()); ++lane) {
        try {
          if (auto v = check_vector(a, lane, q)) {
            r.verdict = Verdict::Refuted;
            r.access = v;
            return r;
          }
        } catch (const AccessError& e) {
          return refute(lane, q, 0, e.what());
        }
      }
    }
  }
  auto cost = map->cost(&why);
  if (!cost) {
    r.reason = "F2 does not apply: " + why;
    return r;
  }
  // Every instruction costs the same; issue 0 at each residue must agree (this also applies the
  // architecture's rules on the instruction).
  for (int64_t base : map->residues()) {
    std::vector<int64_t> addr;
    hw::AccessCost concrete;
    try {
      addr = a.addresses(0, base);
      concrete = a.cost(addr);
    } catch (const hw::HwError& e) {
      return refute(std::nullopt, 0, base, e.what());
    } catch (const AccessError& e) {
      return refute(std::nullopt, 0, base, e.what());
    }
    if (concrete.wavefronts != cost->wavefronts || concrete.ideal != cost->ideal) {
      r.reason = fmt::format("internal error: F2 predicts {} wavefronts (ideal {}) but issue 0 at base {} costs {} (ideal {})",
                             cost->wavefronts, cost->ideal, base, concrete.wavefronts, concrete.ideal);
      return r;
    }
    if (base == base0 && !concrete.conflict_free) r.conflict = witness_from_cost(a, 0, base, addr, concrete);
  }
  r.wavefronts = cost->wavefronts;
  r.ideal = cost->ideal;
  r.verdict = cost->wavefronts > cost->ideal ? Verdict::Refuted : Verdict::Proven;
  return r;
}

// ---- Z3 ---------------------------------------------------------------------------------------

struct Encoded {
  z3::expr total, ideal;
  z3::expr domain;  ///< issue variables and base residue in range
  z3::expr valid;   ///< every used lane's address inside the buffer and aligned
  std::vector<z3::expr> issue_vars;
  z3::expr base_var;
  std::vector<z3::expr> address;  ///< per lane
};

uint64_t lanes_bound(const Layout& lanes) {
  uint64_t b = 0;
  for (int64_t c : lanes.cosize()) b = std::max<uint64_t>(b, static_cast<uint64_t>(c));
  return b;
}

// The exact cost of the hardware model (hw/BankModel.cpp) as bit-vector terms.
Encoded encode(z3::context& ctx, const SmemAccess& a, const Z3Layout& enc) {
  const Layout& lanes = a.lanes();
  const unsigned w = enc.width();
  auto k = [&](int64_t v) { return ctx.bv_val(v, w); };
  std::vector<z3::expr> issue_vars;
  z3::expr domain = ctx.bool_val(true), valid = ctx.bool_val(true);
  for (size_t m = a.lane_modes(); m < lanes.modes().size(); ++m) {
    issue_vars.push_back(ctx.bv_const(fmt::format("q{}", m).c_str(), w));
    domain = domain && z3::ult(issue_vars.back(), k(lanes.modes()[m].extent));
  }
  z3::expr base_var = ctx.bv_const("base_step", w);
  domain = domain && z3::ult(base_var, k(std::max<int64_t>(1, a.base_period() / a.base_align())));
  z3::expr base = base_var * k(a.base_align());
  const int used = hw::address_lane_count(a.instr());
  const auto& dims = a.smem_dims();
  std::vector<z3::expr> address;
  for (int lane = 0; lane < hw::kWarpLanes; ++lane) {
    if (lane >= used || !a.is_active(lane)) {  // gives no address; left out of every phase below
      address.push_back(k(0));
      continue;
    }
    // Lanes-layout image: the lane's leaves are concrete, the issue's symbolic.
    std::vector<int64_t> lane_coord = lanes.split(lane);
    std::vector<z3::expr> v;
    for (size_t ax = 0; ax < lanes.axes().size(); ++ax) {
      int64_t fixed = lanes.offset()[ax];
      for (size_t m = 0; m < a.lane_modes(); ++m) fixed += lane_coord[m] * lanes.modes()[m].stride[ax];
      z3::expr e = k(fixed);
      for (size_t m = a.lane_modes(); m < lanes.modes().size(); ++m)
        if (int64_t s = lanes.modes()[m].stride[ax]; s != 0) e = e + issue_vars[m - a.lane_modes()] * k(s);
      v.push_back(e);
    }
    // Smem coordinate -> 1-D index, inside the buffer.
    z3::expr index = k(0);
    if (lanes.axes().size() == 1 && lanes.axes()[0].is_memory()) {
      index = v[0];
      valid = valid && z3::sge(index, k(0)) && z3::slt(index, k(a.smem().size()));
    } else {
      std::vector<z3::expr> x(dims.size(), k(0));
      for (size_t ax = 0; ax < lanes.axes().size(); ++ax) x[lanes.axes()[ax].path()[0]] = x[lanes.axes()[ax].path()[0]] + v[ax];
      for (size_t d = 0; d < dims.size(); ++d) valid = valid && z3::sge(x[d], k(0)) && z3::slt(x[d], k(dims[d]));
      if (a.smem().order() == IndexOrder::Colex)
        for (size_t d = dims.size(); d-- > 0;) index = index * k(dims[d]) + x[d];
      else
        for (size_t d = 0; d < dims.size(); ++d) index = index * k(dims[d]) + x[d];
    }
    z3::expr e = enc.image_at_index(index)[0];
    z3::expr addr = base + e * k(a.element_bytes());
    if (const auto& sw = a.absolute_swizzle()) {
      z3::expr y = addr & k(sw->swizzle.source_mask());
      z3::expr moved = sw->swizzle.shift() >= 0 ? z3::lshr(y, k(sw->swizzle.shift())) : z3::shl(y, k(-sw->swizzle.shift()));
      addr = addr ^ moved;
    }
    valid = valid && z3::urem(addr, k(a.instr().bytes)) == k(0) && z3::sge(addr, k(0)) &&
            z3::sle(addr + k(a.instr().bytes), k(a.arch().max_smem_bytes_per_block));
    address.push_back(addr);
  }
  bank_encoding::WarpTerms warp{address, {}};
  for (int lane = 0; lane < hw::kWarpLanes; ++lane) warp.active.push_back(ctx.bool_val(lane < used && a.is_active(lane)));
  const auto [total, ideal] = bank_encoding::wavefronts(a.arch(), a.instr(), warp);
  return Encoded{total, ideal, domain, valid, issue_vars, base_var, address};
}

ConflictResult by_z3(const SmemAccess& a, const SolverLimits& limits) {
  ConflictResult r;
  r.engine = Engine::Z3;
  Z3Context z3_context(limits);
  z3::context& ctx = z3_context();
  try {
    uint64_t extra = std::max<uint64_t>({static_cast<uint64_t>(a.base_period()), lanes_bound(a.lanes()),
                                         static_cast<uint64_t>(a.arch().max_smem_bytes_per_block),
                                         static_cast<uint64_t>(a.smem().size())});
    // Addresses are base + bytes * offset: 5 more bits hold them (bytes <= 16) with room to add.
    Z3Layout enc(ctx, a.element_part(), extra, 6);
    Encoded e = encode(ctx, a, enc);
    // Invalid accesses (outside the buffer, misaligned) are found by enumeration-style checks
    // of the concrete witness; here the first question is whether any valid choice conflicts.
    z3::solver s = make_solver(ctx, limits);
    s.add(e.domain && !e.valid);
    std::string why;
    auto invalid = checked_check(s, &why);
    if (invalid == z3::unknown) {
      r.reason = why;
      return r;
    }
    if (invalid == z3::sat) {
      z3::model m = s.get_model();
      int64_t q = 0, mul = 1;
      for (size_t i = 0; i < e.issue_vars.size(); ++i) {
        q += enc.value(m, e.issue_vars[i]) * mul;
        mul *= a.lanes().modes()[a.lane_modes() + i].extent;
      }
      int64_t base = enc.value(m, e.base_var) * a.base_align();
      r.verdict = Verdict::Refuted;
      r.access = AccessWitness{std::nullopt, q, base, {}, ""};
      // The concrete evaluation names the lane and the rule; if it does not fail, the
      // encoding and the evaluator disagree, which is reported rather than trusted.
      try {
        hw::validate_access(a.arch(), a.instr(), a.addresses(q, base));
        r.verdict = Verdict::Unknown;
        r.reason = fmt::format("internal error: Z3 found an invalid address at issue {} that concrete evaluation does not confirm", q);
        r.access.reset();
      } catch (const AccessError& err) {
        r.access->what = err.what();
      } catch (const hw::HwError& err) {
        r.access->what = err.what();
      }
      return r;
    }
    // A fresh solver per question: Z3's incremental mode skips the bit-vector preprocessing
    // these counting terms need, and is many times slower here.
    auto model_issue = [&](const z3::model& m) {
      int64_t issue = 0, mul = 1;
      for (size_t i = 0; i < e.issue_vars.size(); ++i) {
        issue += enc.value(m, e.issue_vars[i]) * mul;
        mul *= a.lanes().modes()[a.lane_modes() + i].extent;
      }
      return std::pair<int64_t, int64_t>{issue, enc.value(m, e.base_var) * a.base_align()};
    };
    auto ask = [&](const z3::expr& extra, std::optional<z3::model>& model) {
      z3::solver q = make_solver(ctx, limits);
      q.add(e.domain && e.valid && extra);
      auto res = checked_check(q, &why);
      if (res == z3::sat) model = q.get_model();
      return res;
    };
    // The decision: does any valid choice exceed its own ideal?
    std::optional<std::pair<int64_t, int64_t>> conflict_at;  // (issue, base)
    std::optional<z3::model> m;
    auto res = ask(z3::ugt(e.total, e.ideal), m);
    if (res == z3::unknown) {
      r.reason = why;
      return r;
    }
    if (res == z3::sat) conflict_at = model_issue(*m);
    // Worst case: raise the bar until no choice reaches it.
    int64_t best = 0, best_ideal = 0;
    while (true) {
      m.reset();
      res = ask(best > 0 ? z3::ugt(e.total, ctx.bv_val(best, 16)) : ctx.bool_val(true), m);
      if (res == z3::unknown) {
        r.reason = why;
        return r;
      }
      if (res == z3::unsat) break;
      best = static_cast<int64_t>(m->eval(e.total, true).get_numeral_uint64());
      best_ideal = static_cast<int64_t>(m->eval(e.ideal, true).get_numeral_uint64());
    }
    // Among the worst instructions, report the smallest ideal (as the enumeration does).
    while (best > 0) {
      m.reset();
      if (ask(e.total == ctx.bv_val(best, 16) && z3::ult(e.ideal, ctx.bv_val(best_ideal, 16)), m) != z3::sat) break;
      best_ideal = static_cast<int64_t>(m->eval(e.ideal, true).get_numeral_uint64());
    }
    r.wavefronts = best;
    r.ideal = best_ideal;
    if (conflict_at) {
      auto addr = a.addresses(conflict_at->first, conflict_at->second);
      hw::AccessCost cost = a.cost(addr);
      r.conflict = witness_from_cost(a, conflict_at->first, conflict_at->second, addr, cost);
      r.verdict = Verdict::Refuted;
    } else {
      r.verdict = Verdict::Proven;
    }
    // The vector claim is a separate, per-lane question; it is answered by enumerating the
    // lanes and issues when that is small, else left to the enumeration engine.
    if (a.elements_per_access() > 1) {
      if (a.issue_count() > limits.max_enumeration / hw::kWarpLanes) {
        if (r.verdict == Verdict::Proven) {
          r.verdict = Verdict::Unknown;
          r.reason = "the vector-coverage check needs an enumeration of all issues, which exceeds the limit";
        }
      } else {
        for (int64_t q = 0; q < a.issue_count() && !r.access; ++q) {
          checkpoint();
          for (int lane = 0; lane < hw::address_lane_count(a.instr()) && !r.access; ++lane)
            if (a.is_active(lane))
              if (auto v = check_vector(a, lane, q)) r.access = v;
        }
        if (r.access) {
          r.verdict = Verdict::Refuted;
          r.conflict.reset();
        }
      }
    }
  } catch (const EncodingError& e) {
    r.reason = std::string("cannot encode for Z3: ") + e.what();
  } catch (const z3::exception& e) {
    r.reason = std::string("Z3 gave up: ") + e.msg();
  }
  return r;
}

// Re-checks a refutation on the concrete addresses with the hardware model: a conflict costs the
// reported wavefronts; an invalid access fails to evaluate (or its lane's vector is broken).
std::optional<std::string> confirm_refutation(const SmemAccess& a, ConflictResult& r) {
  if (r.conflict) {
    const ConflictWitness& w = *r.conflict;
    hw::AccessCost cost = a.cost(a.addresses(w.issue, w.base));
    if (cost.conflict_free || cost.wavefronts != w.wavefronts)
      return fmt::format("issue {} at base {} costs {} wavefronts, not the {} reported", w.issue, w.base, cost.wavefronts,
                         w.wavefronts);
    return std::nullopt;
  }
  if (!r.access) return std::string("the refutation names neither a conflict nor an invalid access");
  const AccessWitness& w = *r.access;
  try {
    if (w.lane) {
      if (check_vector(a, *w.lane, w.issue)) return std::nullopt;
      a.address(*w.lane, w.issue, w.base);
    } else {
      a.cost(a.addresses(w.issue, w.base));  // validates the active lanes' addresses
    }
  } catch (const AccessError&) {
    return std::nullopt;
  } catch (const hw::HwError&) {
    return std::nullopt;
  }
  return fmt::format("issue {} evaluates without error", w.issue);
}

// An invalid access found for a whole instruction, narrowed to the lane at fault: the first
// active lane whose address the instruction cannot use or whose coordinate leaves the buffer,
// with the coordinate it reached where it has one.
void locate_lane(const SmemAccess& a, AccessWitness& w) {
  auto coordinate_of = [&](int lane) {
    try {
      w.coord = a.coordinate(lane, w.issue);
    } catch (const AccessError&) {  // the lane map leaves the buffer's index range: no coordinate
    }
  };
  try {
    if (auto bad = hw::invalid_lane(a.arch(), a.instr(), a.addresses(w.issue, w.base), a.active())) {
      w.lane = bad->lane;
      coordinate_of(bad->lane);
    }
  } catch (const AccessError&) {
    for (int lane = 0; lane < hw::address_lane_count(a.instr()); ++lane) {
      if (!a.is_active(lane)) continue;
      try {
        a.address(lane, w.issue, w.base);
      } catch (const AccessError&) {
        w.lane = lane;
        coordinate_of(lane);
        return;
      }
    }
  }
}

}  // namespace

ConflictResult prove_conflict_free(const SmemAccess& access, Engine engine, const SolverLimits& limits) {
  if (QueryRecorder* rec = query_recorder())
    rec->add({Property::BankConflicts,
              fmt::format("{} {} lanes {}", access.instr().name, layout_label(access.smem()), layout_label(access.lanes())),
              [access](Engine e, const SolverLimits& l) { return rerun_conflict_free(access, e, l); }});
  // Enumeration costs ~50 us an issue and base; Z3 takes seconds on any access of the hardware
  // model, so the auto engine enumerates up to kAutoConflictEnumerationLimit lane addresses.
  const int64_t residues = access.base_period() / access.base_align() + 1;
  Obligation<ConflictResult> o;
  o.by_f2 = [&] { return by_f2(access, limits); };
  o.by_enum = [&] { return by_enumeration(access, limits); };
  o.by_z3 = [&] { return by_z3(access, limits); };
  o.small = [&] { return access.issue_count() * residues <= kAutoConflictEnumerationLimit / hw::kWarpLanes; };
  // Larger: as many issues are enumerated anyway, for an invalid access (a tile larger than
  // shared memory leaves it after a few rows); one found there is what the full enumeration reports.
  o.search = [&] { return by_enumeration(access, limits, kAutoConflictEnumerationLimit / hw::kWarpLanes / residues); };
  o.confirm = [&](ConflictResult& r) { return confirm_refutation(access, r); };
  o.describe = [&](ConflictResult& r) {
    if (r.access && !r.access->lane) locate_lane(access, *r.access);
    if (r.access && r.access->lane && r.access->coord.empty()) {
      try {
        r.access->coord = access.coordinate(*r.access->lane, r.access->issue);
      } catch (const AccessError&) {  // an index outside the buffer: no coordinate to name
      }
    }
    if (const auto& w = r.conflict)
      r.reason = fmt::format("issue {}: lanes {} and {} hit bank {} with different words: {} wavefronts, ideal {}", w->issue,
                             w->lane_a, w->lane_b, w->bank, w->wavefronts, w->ideal);
    else if (const auto& x = r.access; x && r.reason.empty())
      r.reason = x->lane ? fmt::format("lane {} of issue {}: {}", *x->lane, x->issue, x->what)
                         : fmt::format("issue {}: {}", x->issue, x->what);
  };
  return decide(o, engine, limits);
}

Rerun rerun_conflict_free(const SmemAccess& access, Engine engine, const SolverLimits& limits) {
  ConflictResult r = prove_conflict_free(access, engine, limits);
  if (r.verdict == Verdict::Unknown) return Rerun{r, ""};
  return Rerun{r, fmt::format("wavefronts={} ideal={}{}", r.wavefronts, r.ideal, r.access ? " access-error" : "")};
}

}  // namespace lp
