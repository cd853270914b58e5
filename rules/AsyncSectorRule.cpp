// LP009 cp-async-sectors: a cp.async.cg fill moves no more L2-to-SM sectors than its data needs.
// docs/rules/LP009.md; the measurements behind it: docs/hardware.md, "cp.async".
#include "hw/Arch.h"
#include "hw/AsyncCopy.h"
#include "rules/DeclaredAccess.h"
#include "rules/Rule.h"
#include "solver/ParametricConflicts.h"
#include "rules/RuleSupport.h"
#include "hw/HwError.h"
#include "solver/Obligation.h"
#include "solver/SmemAccess.h"

namespace lp::rules {

namespace {

struct Worst {
  int64_t issue = 0, base = 0;
  hw::BypassSectors sectors;
  std::vector<int64_t> addresses;
};

// The worst instruction over every issue and base residue, and the worst base's totals.
struct SectorResult : Outcome {
  std::optional<Worst> worst;
  int64_t total = 0, ideal = 0;
  bool invalid = false;  ///< an address the hardware refuses (LP002's finding)
};

SectorResult enumerate(const SmemAccess& access, const hw::Arch& arch, const hw::SmemInstr& instr, const SolverLimits& limits) {
  SectorResult r;
  r.engine = Engine::Enum;
  if (access.issue_count() > limits.max_enumeration / hw::kWarpLanes / access.base_residue_count()) {
    r.reason = fmt::format("{} issues x {} base residues exceed the enumeration limit", access.issue_count(),
                           access.base_residue_count());
    return r;
  }
  try {
    for (int64_t base = 0; base < access.base_period(); base += access.base_align()) {
      int64_t base_total = 0, base_ideal = 0;
      for (int64_t issue = 0; issue < access.issue_count(); ++issue) {
        checkpoint();
        std::vector<int64_t> addresses = access.addresses(issue, base);
        hw::BypassSectors b = hw::bypass_sectors(arch, instr, addresses);
        base_total += b.sectors;
        base_ideal += b.ideal;
        if (!r.worst || b.sectors - b.ideal > r.worst->sectors.sectors - r.worst->sectors.ideal)
          r.worst = Worst{issue, base, std::move(b), std::move(addresses)};
      }
      if (base_total - base_ideal > r.total - r.ideal) {
        r.total = base_total;
        r.ideal = base_ideal;
      }
    }
  } catch (const AccessError& e) {
    r.invalid = true;
    r.reason = e.what();
    return r;
  } catch (const hw::HwError& e) {
    r.invalid = true;
    r.reason = e.what();
    return r;
  }
  r.verdict = r.worst && r.worst->sectors.sectors > r.worst->sectors.ideal ? Verdict::Refuted : Verdict::Proven;
  return r;
}

class AsyncSectorRule : public Rule {
 public:
  const rules::RuleInfo& info() const override {
    static const rules::RuleInfo kInfo{
        "LP009", "cp-async-sectors", "A cp.async.cg fill moves more L2-to-SM sectors than its data needs",
        "cp.async.cg (LDGSTS.E.BYPASS) brings its data from L2 in 32-byte sectors, one for each (global sector, "
        "shared sector) pair its lanes touch: measured exactly on an H100 by l1tex__m_xbar2l1tex_read_sectors. A "
        "fill that writes a 32-byte global sector across two shared sectors (rows padded by 16 bytes, a 16-byte "
        "offset) moves up to twice the sectors and takes measurably longer where the fill is bandwidth-bound; the "
        "shared-memory wavefront counters do not see it. The global side is taken to be a row-major fill: lanes 2k "
        "and 2k+1 read one 32-byte sector.",
        "docs/rules/LP009.md", Severity::Warning, {"performance"}};
    return kInfo;
  }

  void check(const FileContext& ctx, FindingSink& sink) const override {
    for (const annotate::Statement& s : ctx.file.statements) {
      auto* acc = std::get_if<annotate::AccessDecl>(&s.body);
      if (!acc || !acc->instr || acc->instr->async != hw::AsyncCopy::CacheGlobal) continue;
      const annotate::BufferDecl* buf = ctx.graph.buffer(acc->buffer.text);
      if (!buf || !buf->layout || !buf->dtype) continue;  // the parser reported it
      const std::string what = fmt::format("{} on '{}'", acc->instr->name, acc->buffer.text);
      const std::string claim = what + " moves only the L2-to-SM sectors its data needs";
      if (std::optional<ParametricAccess> pa = parametric_access(ctx.graph, *buf, *acc)) {
        check_every_value(ctx, s, *acc, *buf, *pa, what, claim, sink);
        continue;
      }
      std::optional<SmemAccess> access;
      try {
        access = declared_access(ctx.graph, *acc);
      } catch (const AccessError&) {
        continue;  // an access LP002 reports as unmodellable
      }
      if (!access) continue;
      const SectorResult r = decide_sectors(*access, *acc, ctx);
      if (r.invalid) continue;  // an access LP002 reports as invalid
      report(s, *acc, *buf, *access, r, what, claim, sink);
    }
  }

 private:
  // The text of a value vector and how many there are, when the access uses parameters.
  struct Values {
    std::string label, names;
    int64_t count = 0;
  };

  // Every issue at every base residue, as one obligation of the portfolio (its engine is this
  // enumeration), within the run's time and memory budget.
  static SectorResult decide_sectors(const SmemAccess& access, const annotate::AccessDecl& acc, const FileContext& ctx) {
    lp::Obligation<SectorResult> o;
    o.by_enum = [&] { return enumerate(access, access.arch(), *acc.instr, ctx.config.limits); };
    o.small = [] { return true; };
    return decide(o, Engine::Auto, ctx.config.limits);
  }

  // Every admissible parameter value, one instance at a time (values ascending): the claim rests
  // on the first instance that is not proven, else on the last. An instance that cannot be
  // modelled is LP002's to report.
  static void check_every_value(const FileContext& ctx, const annotate::Statement& s, const annotate::AccessDecl& acc,
                                const annotate::BufferDecl& buf, const ParametricAccess& pa, const std::string& what,
                                const std::string& claim, FindingSink& sink) {
    const auto all = all_param_values(Parametric{pa.specs, {}}, kMostConflictInstances);
    if (!all) {
      sink.obligation(s, s.loc, claim, false, 0);
      sink.report(s, unknown_finding(s.loc, claim,
                                     fmt::format("there are more than {} values of {}; sectors over parameters are decided "
                                                 "one instance at a time (narrow the ranges or add a multiple)",
                                                 kMostConflictInstances, pa.names)));
      return;
    }
    std::optional<SmemAccess> decisive_access;
    SectorResult decisive;
    std::vector<int64_t> decisive_values;
    for (const std::vector<int64_t>& values : *all) {
      std::optional<SmemAccess> access;
      try {
        access = pa.make(values);
      } catch (const AccessError&) {
        return;  // LP002 reports the instance that cannot be modelled
      }
      SectorResult r = decide_sectors(*access, acc, ctx);
      if (r.invalid) return;
      const bool stop = r.verdict != Verdict::Proven;
      decisive_access = std::move(access);
      decisive = std::move(r);
      decisive_values = values;
      if (stop) break;
    }
    if (!decisive_access) return;  // no admissible value
    const Values v{pa.label(decisive_values), pa.names, pa.value_count()};
    report(s, acc, buf, *decisive_access, decisive, what,
           fmt::format("{} for every value of {} ({} instance{})", claim, v.names, v.count, v.count == 1 ? "" : "s"), sink, &v);
  }

  // The obligation of one decided access and, when it fails, its finding.
  static void report(const annotate::Statement& s, const annotate::AccessDecl& acc, const annotate::BufferDecl& buf,
                     const SmemAccess& access, const SectorResult& r, const std::string& what, const std::string& claim,
                     FindingSink& sink, const Values* values = nullptr) {
    const hw::Arch& arch = access.arch();
    auto emit = [&](rules::Finding f) {
      if (values)
        add_note(f, fmt::format("with {}: the first of the {} parameter values, in ascending order, where it fails",
                                values->label, values->count));
      sink.report(s, std::move(f));
    };
    if (r.verdict == Verdict::Unknown) {
      sink.obligation(s, s.loc, claim, false, r.time_ms);
      emit(unknown_finding(s.loc, claim, r));
      return;
    }
    std::optional<rules::ProofSummary> proof = proof_of(r);
    proof->issues = access.issue_count();
    proof->base_residues = access.base_residue_count();
    proof->base_alignment = access.base_align();
    const bool passed = r.verdict == Verdict::Proven;
    sink.obligation(s, s.loc, claim, passed, r.time_ms, proof);
    const std::optional<Worst>& worst = r.worst;
    const int64_t total = r.total, ideal = r.ideal, issues = access.issue_count();
    if (!worst || passed) return;
    const hw::BypassSectors& w = worst->sectors;
    rules::Finding f = finding(s.loc, fmt::format("{} moves {} L2-to-SM sectors per instruction where its data needs {}",
                                                   what, w.sectors, w.ideal));
    const int lane = *w.split_lane;
    add_note(f,
             fmt::format("issued instruction {} (buffer at base offset {}): lanes {} read one 32-byte global sector and write "
                         "it to shared sectors {} (bytes {}..{})",
                         worst->issue, worst->base, join_lanes(w.split_lanes), join(w.split_shared_sectors, " and "),
                         worst->addresses[static_cast<size_t>(lane)],
                         worst->addresses[static_cast<size_t>(w.split_lanes.back())] + acc.instr->bytes - 1),
             acc.lanes.loc);
    if (issues > 1 && ideal > 0)
      add_note(f, fmt::format("over all {} issued instructions: {} sectors where {} carry the data ({:.2f}x)", issues, total,
                              ideal, static_cast<double>(total) / static_cast<double>(ideal)));
    if (!buf.align && worst->base % hw::kSectorBytes != 0)
      add_note(f, fmt::format("'{}' states no alignment, so every base a {}-byte alignment allows is checked "
                              "(the default of a buffer without `align`); if its allocation is aligned to {} bytes or more, say so "
                              "with `align N`",
                              buf.name.text, hw::kDefaultBaseAlignment, hw::kSectorBytes),
               buf.layout->loc);
    add_note(f, std::string(hw::kBypassSplitMeasured));
    add_note(f, "fix: keep each 32-byte global sector in one 32-byte shared sector: pad rows by a multiple of 32 bytes, or "
                "swizzle 16-byte chunks within 128-byte rows instead of padding");
    f.counterexample = AsyncSectorCex{std::string(acc.instr->name),
                                      std::string(arch.name),
                                      worst->issue,
                                      worst->base,
                                      worst->addresses,
                                      w.sectors,
                                      w.ideal,
                                      {w.split_lanes.begin(), w.split_lanes.end()},
                                      w.split_shared_sectors,
                                      values ? print_cute_or_tirx(access.smem()) : buf.layout->instance_text(),
                                      values ? print_cute_or_tirx(access.lanes()) : acc.lanes.instance_text(),
                                      buf.dtype->name};
    f.trace = {{buf.layout->loc, fmt::format("'{}' places its elements like this", buf.name.text)},
               {acc.lanes.loc, fmt::format("lanes {} write one global sector across shared sectors {}", join_lanes(w.split_lanes),
                                            join(w.split_shared_sectors, " and "))}};
    emit(std::move(f));
  }

  static std::string join_lanes(const std::vector<int>& lanes) {
    std::string out;
    for (size_t k = 0; k < lanes.size(); ++k) out += fmt::format("{}{}", k ? (k + 1 == lanes.size() ? " and " : ", ") : "", lanes[k]);
    return out;
  }
};

}  // namespace

LP_REGISTER_RULE(AsyncSectorRule);

}  // namespace lp::rules
