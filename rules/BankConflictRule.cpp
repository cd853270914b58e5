// LP002 bank-conflict: every shared-memory access runs in the ideal number of wavefronts (or
// within the bound an `expect ... wavefronts <= N` allows), with aligned, in-bounds addresses and
// vectors that cover the consecutive elements they claim. docs/rules/LP002.md
#include "hw/Arch.h"
#include "rules/Rule.h"
#include "rules/RuleSupport.h"
#include "solver/BankConflicts.h"

namespace lp::rules {

namespace {

// Without a declared alignment the proof must hold for any base a vector access allows.
constexpr int64_t kAssumedAlignment = 16;

class BankConflictRule : public Rule {
 public:
  const report::RuleInfo& info() const override {
    static const report::RuleInfo kInfo{
        "LP002", "bank-conflict", "A shared-memory access needs more wavefronts than ideal",
        "Each annotated access (instruction, buffer layout, lane map) is checked against the measured sm_90 "
        "bank model: no phase of any issued instruction may need more wavefronts than the hardware's ideal, "
        "every address must be aligned and inside the buffer, and each vector must cover consecutive logical "
        "elements. `expect ACCESS wavefronts <= N` accepts a known cost.",
        "docs/rules/LP002.md", Severity::Error, {"performance", "correctness"}};
    return kInfo;
  }

  void check(const FileContext& ctx, FindingSink& sink) const override {
    for (const annotate::Statement& s : ctx.file.statements) {
      auto* acc = std::get_if<annotate::AccessDecl>(&s.body);
      if (!acc) continue;
      const annotate::BufferDecl* buf = ctx.graph.buffer(acc->buffer.text);
      if (!buf || !buf->layout || !buf->dtype) continue;  // the parser reported it
      std::string what = fmt::format("{} on '{}'", acc->instr->name, acc->buffer.text);
      const annotate::Statement* expect = expectation(ctx, *acc);
      std::optional<int64_t> bound;
      if (expect) {
        const auto& e = std::get<annotate::ExpectStmt>(expect->body);
        if (e.kind == annotate::ExpectKind::Wavefronts) bound = e.max_wavefronts->value;
      }
      if (!buf->layout->parsed.param_uses.empty() || !acc->lanes.parsed.param_uses.empty()) {
        sink.obligation(s, s.loc, what + " is conflict-free", false, 0);
        sink.report(s,
                    unknown_finding(s.loc, what + " is conflict-free",
                                    "bank-conflict proofs over symbolic parameters are not supported; instantiate the parameters"),
                    {expect});
        continue;
      }
      const hw::Arch& arch = acc->arch ? *acc->arch : hw::arch_by_name("sm_90");
      int64_t align = buf->align ? buf->align->value : kAssumedAlignment;
      ConflictResult r;
      try {
        SmemAccess access(buf->layout->parsed.layout, buf->dtype->bits, acc->lanes.parsed.layout, *acc->instr, arch, align);
        r = prove_conflict_free(access, ctx.config.engine, ctx.config.limits);
        report_result(s, expect, *acc, *buf, access, r, bound, what, sink);
      } catch (const AccessError& e) {
        report::Finding f = finding(acc->lanes.loc, fmt::format("{} cannot be modelled: {}", what, e.what()));
        f.kind = report::FindingKind::Invalid;
        sink.report(s, std::move(f), {expect});
      }
    }
  }

 private:
  // The `expect ACCESS ...` statement about this access, if one names it.
  static const annotate::Statement* expectation(const FileContext& ctx, const annotate::AccessDecl& acc) {
    if (!acc.name) return nullptr;
    for (const annotate::Statement& s : ctx.file.statements)
      if (auto* e = std::get_if<annotate::ExpectStmt>(&s.body))
        if (e->subject.text == acc.name->text &&
            (e->kind == annotate::ExpectKind::Wavefronts || e->kind == annotate::ExpectKind::ConflictFree))
          return &s;
    return nullptr;
  }

  static void report_result(const annotate::Statement& s, const annotate::Statement* expect,
                            const annotate::AccessDecl& acc, const annotate::BufferDecl& buf,
                            const SmemAccess& access, const ConflictResult& r, std::optional<int64_t> bound,
                            const std::string& what, FindingSink& sink) {
    const bool within_bound = bound && !r.access && r.verdict != Verdict::Unknown && r.wavefronts <= *bound;
    const bool passed = r.verdict == Verdict::Proven || within_bound;
    sink.obligation(s, s.loc,
                    bound ? fmt::format("{} needs at most {} wavefronts", what, *bound) : what + " is conflict-free", passed,
                    r.time_ms);
    if (passed) return;
    if (r.verdict == Verdict::Unknown) {
      sink.report(s, unknown_finding(s.loc, what + " is conflict-free", r), {expect});
      return;
    }
    if (r.access) {
      const auto& w = *r.access;
      report::Finding f = finding(acc.lanes.loc, fmt::format("{}: {}", what, w.what));
      if (w.lane >= 0) add_note(f, fmt::format("lane {} of issued instruction {} (coordinate ({}))", w.lane, w.issue, join(w.coord)));
      else add_note(f, fmt::format("issued instruction {} with the buffer at base offset {}", w.issue, w.base));
      f.counterexample = {{"lane", w.lane}, {"issue", w.issue}, {"base", w.base}, {"reason", w.what}};
      f.trace = {{buf.layout->loc, fmt::format("'{}' is laid out like this", buf.name.text)},
                 {acc.lanes.loc, "the lanes address it like this"}};
      sink.report(s, std::move(f), {expect});
      return;
    }
    const ConflictWitness& w = *r.conflict;
    report::Finding f = finding(
        s.loc, bound ? fmt::format("{} needs {} wavefronts, more than the {} expected", what, r.wavefronts, *bound)
                     : fmt::format("{} has bank conflicts: {} wavefronts where {} {} ideal", what, r.wavefronts, r.ideal, r.ideal == 1 ? "is" : "are"));
    add_note(f, fmt::format("issued instruction {}: lanes {} and {} access bank {} at byte addresses {} and {} "
                            "(coordinates ({}) and ({}))",
                            w.issue, w.lane_a, w.lane_b, w.bank, w.address_a, w.address_b, join(w.coord_a), join(w.coord_b)),
             acc.lanes.loc);
    add_note(f, fmt::format("bank {} must deliver {} distinct words in that phase: {}", w.bank, w.words.size(),
                            join(w.words, ", ")));
    if (access.base_period() > access.base_align())
      add_note(f, fmt::format("with the buffer's base at offset {} (alignment {} bytes)", w.base, access.base_align()));
    // Everything a report or a GPU replay needs to redo the access: all 32 lane addresses of the
    // worst instruction, the instruction, the architecture, and the layouts as written.
    f.counterexample = {{"lanes", {w.lane_a, w.lane_b}}, {"issue", w.issue},      {"coordinates", {w.coord_a, w.coord_b}},
                        {"addresses", {w.address_a, w.address_b}},                 {"bank", w.bank},
                        {"words", w.words}, {"wavefronts", w.wavefronts},        {"ideal", w.ideal},
                        {"base", w.base},   {"instruction", std::string(acc.instr->name)},
                        {"arch", std::string(access.arch().name)},
                        {"lane_addresses", access.addresses(w.issue, w.base)},
                        {"smem_layout", buf.layout->text},                        {"lanes_layout", acc.lanes.text},
                        {"dtype", buf.dtype->name}};
    f.trace = {{buf.layout->loc, fmt::format("'{}' places its elements like this", buf.name.text)},
               {acc.lanes.loc, fmt::format("lanes {} and {} address coordinates ({}) and ({})", w.lane_a, w.lane_b,
                                           join(w.coord_a), join(w.coord_b))},
               {s.loc, fmt::format("{} serves them from bank {} in {} wavefronts", acc.instr->name, w.bank, w.wavefronts)}};
    sink.report(s, std::move(f), {expect});
  }
};

}  // namespace

LP_REGISTER_RULE(BankConflictRule);

}  // namespace lp::rules
