// LP009 cp-async-sectors: a cp.async.cg fill moves no more L2-to-SM sectors than its data needs.
// docs/rules/LP009.md; the measurements behind it: docs/hardware.md, "cp.async".
#include "hw/Arch.h"
#include "hw/AsyncCopy.h"
#include "rules/DeclaredAccess.h"
#include "rules/Rule.h"
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
      if (!buf->layout->parsed.param_uses.empty() || !acc->lanes.parsed.param_uses.empty()) continue;  // LP002 says unknown
      const std::string what = fmt::format("{} on '{}'", acc->instr->name, acc->buffer.text);
      std::optional<SmemAccess> access;
      try {
        access = declared_access(ctx.graph, *acc);
      } catch (const AccessError&) {
        continue;  // an access LP002 reports as unmodellable
      }
      if (!access) continue;
      const hw::Arch& arch = access->arch();
      // Every issue at every base residue, as one obligation of the portfolio (its engine is this
      // enumeration), within the run's time and memory budget.
      const std::string claim = what + " moves only the L2-to-SM sectors its data needs";
      lp::Obligation<SectorResult> o;
      o.by_enum = [&] { return enumerate(*access, arch, *acc->instr, ctx.config.limits); };
      o.small = [] { return true; };
      const SectorResult r = decide(o, Engine::Auto, ctx.config.limits);
      if (r.invalid) continue;  // an access LP002 reports as invalid
      if (r.verdict == Verdict::Unknown) {
        sink.obligation(s, s.loc, claim, false, r.time_ms);
        sink.report(s, unknown_finding(s.loc, claim, r));
        continue;
      }
      std::optional<rules::ProofSummary> proof = proof_of(r);
      proof->issues = access->issue_count();
      proof->base_residues = access->base_residue_count();
      proof->base_alignment = access->base_align();
      const bool passed = r.verdict == Verdict::Proven;
      sink.obligation(s, s.loc, claim, passed, r.time_ms, proof);
      const std::optional<Worst>& worst = r.worst;
      const int64_t total = r.total, ideal = r.ideal, issues = access->issue_count();
      if (!worst || passed) continue;
      const hw::BypassSectors& w = worst->sectors;
      rules::Finding f = finding(s.loc, fmt::format("{} moves {} L2-to-SM sectors per instruction where its data needs {}",
                                                     what, w.sectors, w.ideal));
      const int lane = *w.split_lane;
      add_note(f,
               fmt::format("issued instruction {} (buffer at base offset {}): lanes {} read one 32-byte global sector and write "
                           "it to shared sectors {} (bytes {}..{})",
                           worst->issue, worst->base, join_lanes(w.split_lanes), join(w.split_shared_sectors, " and "),
                           worst->addresses[static_cast<size_t>(lane)],
                           worst->addresses[static_cast<size_t>(w.split_lanes.back())] + acc->instr->bytes - 1),
               acc->lanes.loc);
      if (issues > 1 && ideal > 0)
        add_note(f, fmt::format("over all {} issued instructions: {} sectors where {} carry the data ({:.2f}x)", issues, total,
                                ideal, static_cast<double>(total) / static_cast<double>(ideal)));
      if (!buf->align && worst->base % hw::kSectorBytes != 0)
        add_note(f, fmt::format("'{}' states no alignment, so every base a {}-byte alignment allows is checked "
                                "(hw::kDefaultBaseAlignment); if its allocation is aligned to {} bytes or more, say so "
                                "with `align N`",
                                buf->name.text, hw::kDefaultBaseAlignment, hw::kSectorBytes),
                 buf->layout->loc);
      add_note(f, std::string(hw::kBypassSplitMeasured));
      add_note(f, "fix: keep each 32-byte global sector in one 32-byte shared sector: pad rows by a multiple of 32 bytes, or "
                  "swizzle 16-byte chunks within 128-byte rows instead of padding");
      f.counterexample = AsyncSectorCex{std::string(acc->instr->name),
                                        std::string(arch.name),
                                        worst->issue,
                                        worst->base,
                                        worst->addresses,
                                        w.sectors,
                                        w.ideal,
                                        {w.split_lanes.begin(), w.split_lanes.end()},
                                        w.split_shared_sectors,
                                        buf->layout->text,
                                        acc->lanes.text,
                                        buf->dtype->name};
      f.trace = {{buf->layout->loc, fmt::format("'{}' places its elements like this", buf->name.text)},
                 {acc->lanes.loc, fmt::format("lanes {} write one global sector across shared sectors {}", join_lanes(w.split_lanes),
                                              join(w.split_shared_sectors, " and "))}};
      sink.report(s, std::move(f));
    }
  }

 private:
  static std::string join_lanes(const std::vector<int>& lanes) {
    std::string out;
    for (size_t k = 0; k < lanes.size(); ++k) out += fmt::format("{}{}", k ? (k + 1 == lanes.size() ? " and " : ", ") : "", lanes[k]);
    return out;
  }
};

}  // namespace

LP_REGISTER_RULE(AsyncSectorRule);

}  // namespace lp::rules
