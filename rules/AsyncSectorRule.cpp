// LP009 cp-async-sectors: a cp.async.cg fill moves no more L2-to-SM sectors than its data needs.
// docs/rules/LP009.md; the measurements behind it: docs/hardware.md, "cp.async".
#include "hw/Arch.h"
#include "hw/AsyncCopy.h"
#include "rules/Rule.h"
#include "rules/RuleSupport.h"
#include "solver/SmemAccess.h"

namespace lp::rules {

namespace {

// Without a declared alignment the buffer is taken to start on a sector: what this rule reports
// then comes from the layout, not from an allocation nobody stated (`align 16` checks those too).
constexpr int64_t kAssumedAlignment = hw::kSectorBytes;

struct Worst {
  int64_t issue = 0, base = 0;
  hw::BypassSectors sectors;
  std::vector<int64_t> addresses;
};

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
      const hw::Arch& arch = acc->arch ? *acc->arch : hw::default_arch();
      std::optional<Worst> worst;
      int64_t total = 0, ideal = 0, issues = 0;
      try {
        const SmemAccess access(buf->layout->parsed.layout, buf->dtype->bits, acc->lanes.parsed.layout, *acc->instr, arch,
                                buf->align ? buf->align->value : kAssumedAlignment);
        issues = access.issue_count();
        for (int64_t base = 0; base < access.base_period(); base += access.base_align()) {
          int64_t base_total = 0, base_ideal = 0;
          for (int64_t issue = 0; issue < access.issue_count(); ++issue) {
            std::vector<int64_t> addresses = access.addresses(issue, base);
            hw::BypassSectors b = hw::bypass_sectors(arch, *acc->instr, addresses);
            base_total += b.sectors;
            base_ideal += b.ideal;
            if (!worst || b.sectors - b.ideal > worst->sectors.sectors - worst->sectors.ideal)
              worst = Worst{issue, base, std::move(b), std::move(addresses)};
          }
          if (base_total - base_ideal > total - ideal) {
            total = base_total;
            ideal = base_ideal;
          }
        }
      } catch (const std::exception&) {
        continue;  // an access LP002 reports as invalid or unmodellable
      }
      const bool passed = worst && worst->sectors.sectors == worst->sectors.ideal;
      sink.obligation(s, s.loc, what + " moves only the L2-to-SM sectors its data needs", passed, 0);
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
