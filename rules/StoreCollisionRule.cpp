// LP016 store-collision: no two lanes of one shared-memory write touch a common byte. Such lanes
// write one place in one instruction and PTX does not say whose value stays, so the result depends
// on the hardware's choice (two threads write one element). One rule for both front ends: the
// issued instructions of annotated writes (st.shared, stmatrix, cp.async into shared memory) and
// the writing instructions of compiled kernels. docs/rules/LP016.md
#include "analyzer/support/Governor.h"
#include "analyzer/support/Parallel.h"
#include "rules/CompiledAccess.h"
#include "rules/DeclaredAccess.h"
#include "rules/Rule.h"
#include "rules/RuleSupport.h"
#include "solver/LaneOverlap.h"

namespace lp::rules {

namespace {

// Instances of a parametric access the rule evaluates, each over every issue and base residue.
constexpr int64_t kMostInstances = 4096;

bool writes_shared(const hw::SmemInstr& instr) {
  return instr.direction == hw::SmemDirection::Store || instr.async != hw::AsyncCopy::None;
}

std::string coordinate_text(const std::vector<int64_t>& c) { return "(" + join(c, ",") + ")"; }

class StoreCollisionRule : public Rule {
 public:
  const rules::RuleInfo& info() const override {
    static const rules::RuleInfo kInfo{
        "LP016", "store-collision", "Two lanes of one shared-memory write touch the same byte",
        "Each write into shared memory (st.shared, stmatrix, cp.async), annotated or compiled, is proven to give "
        "every byte it writes one lane: two lanes that write one place in one instruction leave whichever value "
        "the hardware keeps.",
        "docs/rules/LP016.md", Severity::Warning, {"correctness"}};
    return kInfo;
  }

  void check(const FileContext& ctx, FindingSink& sink) const override {
    if (ctx.compiled) check_compiled(ctx, sink);
    for (const annotate::Statement& s : ctx.file.statements) {
      const auto* acc = std::get_if<annotate::AccessDecl>(&s.body);
      if (!acc || !writes_shared(*acc->instr)) continue;
      const annotate::BufferDecl* buf = ctx.graph.buffer(acc->buffer.text);
      if (!buf || !buf->layout || !buf->dtype) continue;  // the parser reported it
      check_declared(ctx, s, *acc, *buf, sink);
    }
  }

 private:
  // ---- annotated writes: every issue of every instance at every base residue, evaluated ----
  static void check_declared(const FileContext& ctx, const annotate::Statement& s, const annotate::AccessDecl& acc,
                             const annotate::BufferDecl& buf, FindingSink& sink) {
    const std::string what = fmt::format("{} on '{}'", acc.instr->name, acc.buffer.text);
    const std::string holds = what + " writes each byte from one lane";
    const Stopwatch clock;
    try {
      if (const auto pa = parametric_access(ctx.graph, buf, acc)) {
        if (pa->value_count() > kMostInstances) {
          sink.obligation(s, s.loc, holds, false, 0);
          sink.report(s, unknown_finding(acc.lanes.loc, holds,
                                         fmt::format("{} has more than {} admissible values; narrow their ranges", pa->names,
                                                     kMostInstances)));
          return;
        }
        std::vector<int64_t> values;
        for (const ParamSpec& p : pa->specs) values.push_back(p.lo);
        int64_t warps = 0;
        do {
          if (judge_instance(ctx, s, acc, pa->make(values), what, holds, " with " + pa->label(values), clock, warps, sink)) return;
        } while (next_values(pa->specs, values));
        rules::ProofSummary proof{"enum", warps, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt};
        sink.obligation(s, s.loc, holds, true, clock.elapsed_ms(), proof);
        return;
      }
      const SmemAccess access = *declared_access(ctx.graph, acc);
      int64_t warps = 0;
      if (judge_instance(ctx, s, acc, access, what, holds, "", clock, warps, sink)) return;
      rules::ProofSummary proof{"enum", std::nullopt, std::nullopt, std::nullopt, access.issue_count(), warps / access.issue_count(),
                                access.base_align()};
      sink.obligation(s, s.loc, holds, true, clock.elapsed_ms(), proof);
    } catch (const AccessError&) {
      // An access that cannot be modelled is LP002's finding; nothing of it is written here.
    }
  }

  // The next admissible value vector (the last parameter fastest); false after the last.
  static bool next_values(const std::vector<ParamSpec>& specs, std::vector<int64_t>& values) {
    for (size_t k = specs.size(); k-- > 0;) {
      values[k] += specs[k].multiple;
      if (values[k] <= specs[k].hi) return true;
      values[k] = specs[k].lo;
    }
    return false;
  }

  // Reports the first issue of `access` whose lanes collide, and its obligation; true when one does
  // (or when there are too many to evaluate). Adds the warps it evaluated to `warps`.
  static bool judge_instance(const FileContext& ctx, const annotate::Statement& s, const annotate::AccessDecl& acc,
                             const SmemAccess& access, const std::string& what, const std::string& holds,
                             const std::string& instance, const Stopwatch& clock, int64_t& warps, FindingSink& sink) {
    const hw::SmemInstr& instr = access.instr();
    const hw::LaneMask lanes = access.active() & hw::lanes_below(hw::address_lane_count(instr));
    // Only a swizzle of absolute addresses makes the lanes' distances depend on the base.
    const int64_t residues = access.absolute_swizzle() ? access.base_residue_count() : 1;
    if (access.issue_count() > ctx.config.limits.max_enumeration / residues) {
      sink.obligation(s, s.loc, holds, false, clock.elapsed_ms());
      sink.report(s, unknown_finding(acc.lanes.loc, holds,
                                     fmt::format("{} issues x {} base residues are more than {} to evaluate", access.issue_count(),
                                                 residues, ctx.config.limits.max_enumeration)));
      return true;
    }
    for (int64_t issue = 0; issue < access.issue_count(); ++issue)
      for (int64_t r = 0; r < residues; ++r) {
        checkpoint();  // the run's time and memory: past them, the checker reports this rule stopped
        const int64_t base = r * access.base_align();
        const std::vector<int64_t> addresses = access.addresses(issue, base);
        ++warps;
        const auto pair = colliding_lanes(addresses, lanes);
        if (!pair) continue;
        const auto [a, b] = *pair;
        rules::Finding f = finding(
            acc.lanes.loc, fmt::format("{} has lanes {} and {} write the same bytes in one instruction{}; which value stays is "
                                       "not specified",
                                       what, a, b, instance));
        add_note(f, fmt::format("lane {} writes coordinate {} at byte {}, lane {} coordinate {} at byte {}, {} bytes each{}", a,
                                coordinate_text(access.coordinate(a, issue)), addresses[static_cast<size_t>(a)], b,
                                coordinate_text(access.coordinate(b, issue)), addresses[static_cast<size_t>(b)], instr.bytes,
                                access.issue_count() > 1 ? fmt::format(" (issue {})", issue) : ""));
        if (residues > 1) add_note(f, fmt::format("with the buffer's base at {} modulo {}", base, access.base_period()));
        AccessErrorCex cex;
        cex.lane = b;
        cex.issue = issue;
        cex.base = base;
        cex.reason = fmt::format("lanes {} and {} write the same bytes", a, b);
        f.counterexample = std::move(cex);
        sink.obligation(s, s.loc, holds, false, clock.elapsed_ms());
        sink.report(s, std::move(f));
        return true;
      }
    return false;
  }

  // ---- compiled kernels: each writing instruction decided over its uniform unknowns ----
  static void check_compiled(const FileContext& ctx, FindingSink& sink) {
    const ptx::CompiledModule& m = *ctx.compiled;
    std::vector<std::pair<const ptx::KernelFacts*, const ptx::AccessFact*>> writes;
    std::vector<SymbolicAccess> accesses;
    for (const ptx::KernelFacts& k : m.kernels)
      for (const ptx::AccessFact& a : k.accesses) {
        if (a.unknown || !a.instr || !writes_shared(*a.instr)) continue;
        SymbolicAccess access = symbolic_access(m, k, a);
        // Lanes that write one lane-free value write the same bytes wherever they meet (a flag
        // every thread sets, a zero every thread stores): that obligation, when Z3 proves it,
        // replaces the collision question.
        const Outcome one = decide_one_value(access, m.site(k, a).stored, ctx.config.limits);
        if (one.verdict == Verdict::Proven) {
          sink.obligation_at(a.at.loc, a.what + " writes one value from every lane", true, one.time_ms, proof_of(one));
          continue;
        }
        writes.emplace_back(&k, &a);
        accesses.push_back(std::move(access));
      }
    // Writes of one kernel whose addresses differ by a lane-free amount are decided once
    // (lane_overlap_key).
    std::vector<size_t> decided_by(writes.size()), firsts;
    std::map<std::pair<const ptx::KernelFacts*, LaneOverlapKey>, size_t> first_of;
    for (size_t i = 0; i < writes.size(); ++i) {
      const auto [it, fresh] = first_of.emplace(std::pair{writes[i].first, lane_overlap_key(accesses[i])}, i);
      decided_by[i] = it->second;
      if (fresh) firsts.push_back(i);
    }
    std::vector<LaneOverlap> decided(writes.size());
    parallel_for(firsts.size(), ctx.cores, [&](size_t k) {
      decided[firsts[k]] = decide_lane_overlap(accesses[firsts[k]], ctx.config.engine, ctx.config.limits);
    });
    for (size_t i = 0; i < writes.size(); ++i)
      if (decided_by[i] != i) decided[i] = lane_overlap_of_twin(accesses[i], decided[decided_by[i]]);
    for (size_t i = 0; i < writes.size(); ++i) report(m, *writes[i].first, *writes[i].second, decided[i], sink);
  }

  static void report(const ptx::CompiledModule& m, const ptx::KernelFacts& k, const ptx::AccessFact& a, const LaneOverlap& o,
                     FindingSink& sink) {
    const std::string holds = a.what + " writes each byte from one lane";
    sink.obligation_at(a.at.loc, holds, o.verdict == Verdict::Proven, o.time_ms, proof_of(o));
    if (o.verdict == Verdict::Proven) return;
    if (o.verdict == Verdict::Unknown) {
      rules::Finding f = unknown_finding(a.at.loc, holds, o);
      f.notes = a.at.notes;
      const ptx::Site& s = m.site(k, a);
      const term::TermPool& P = m.analysis.pool;
      // As LP002 marks them: addresses or activity that only loaded data leaves open.
      if (!o.limited && s.active_exact && (P.opaque(s.address) || P.opaque(s.active)) &&
          (!P.opaque(s.address) || P.only_loaded_data(s.address)) && (!P.opaque(s.active) || P.only_loaded_data(s.active)))
        mark_data_dependent(f);
      report_compiled(sink, m, k, a, std::move(f));
      return;
    }
    const SymbolicWitness& w = *o.witness;
    const auto [first, second] = o.lanes;
    const std::string collision =
        fmt::format("lanes {} and {} write the same bytes in one instruction; which value stays is not specified", first, second);
    rules::Finding f = finding(a.at.loc, fmt::format("{} has {}", a.what, collision));
    if (o.holds_when) {
      // Only launches outside the condition collide: the verdict depends on how the kernel is launched.
      f = finding(a.at.loc, fmt::format("{} only for some launches: whenever {}", holds, o.holds_when->text));
      f.kind = rules::FindingKind::LaunchDependent;
      add_note(f, "at another launch: " + collision);
    }
    add_note(f, fmt::format("lane {} writes {} bytes at byte address {}, lane {} at {}", first, a.instr->bytes,
                            w.addresses[static_cast<size_t>(first)], second, w.addresses[static_cast<size_t>(second)]));
    witness_notes(m, k, w, f);
    if (o.holds_when) state_the_launch(f);
    for (const Note& n : a.at.notes) f.notes.push_back(n);
    AccessErrorCex cex;
    cex.lane = second;
    cex.reason = o.reason;
    cex.lane_addresses = w.addresses;
    cex.ptx = PtxOrigin{k.name, a.at.ptx_line, w.uniforms};
    f.counterexample = std::move(cex);
    report_compiled(sink, m, k, a, std::move(f));
  }
};

LP_REGISTER_RULE(StoreCollisionRule);

}  // namespace

}  // namespace lp::rules
