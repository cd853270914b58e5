// LP002 bank-conflict: every shared-memory access runs in the ideal number of wavefronts (or
// within the bound an `expect ... wavefronts <= N` allows), with aligned, in-bounds addresses and
// vectors that cover the consecutive elements they claim. One rule for both front ends: annotated
// accesses (a buffer layout and a lane map) and the instructions of compiled kernels (per-lane
// address terms recovered from PTX, docs/ptx.md). docs/rules/LP002.md
#include "hw/Arch.h"
#include "analyzer/support/Parallel.h"
#include "hw/BankModel.h"
#include "hw/HwError.h"
#include "rules/Rule.h"
#include "rules/CompiledAccess.h"
#include "rules/DeclaredAccess.h"
#include "rules/RuleSupport.h"
#include "solver/ParametricConflicts.h"
#include "solver/SymbolicAccess.h"

namespace lp::rules {

namespace {

// Assignments tried for a representative warp of a proven compiled access (conflict_proof): a
// few, since every proven instruction of a kernel pays for them.
constexpr size_t kMaxRepresentativeAssignments = 27;

class BankConflictRule : public Rule {
 public:
  const rules::RuleInfo& info() const override {
    static const rules::RuleInfo kInfo{
        "LP002", "bank-conflict", "A shared-memory access needs more wavefronts than ideal",
        "Each annotated access (instruction, buffer layout, lane map) is checked against the measured sm_90 "
        "bank model: no phase of any issued instruction may need more wavefronts than the hardware's ideal, "
        "every address must be aligned and inside the buffer, and each vector must cover consecutive logical "
        "elements. `expect ACCESS wavefronts <= N` accepts a known cost.",
        "docs/rules/LP002.md", Severity::Error, {"performance", "correctness"}};
    return kInfo;
  }

  void check(const FileContext& ctx, FindingSink& sink) const override {
    if (ctx.compiled) check_compiled(ctx, sink);
    for (const annotate::Statement& s : ctx.file.statements) {
      auto* acc = std::get_if<annotate::AccessDecl>(&s.body);
      if (!acc) continue;
      const annotate::BufferDecl* buf = ctx.graph.buffer(acc->buffer.text);
      if (!buf || !buf->layout || !buf->dtype) continue;  // the parser reported it
      std::string what = fmt::format("{} on '{}'", acc->instr->name, acc->buffer.text);
      // What must hold of this access: every `expect` about it, each an obligation of its own;
      // with none, the access is claimed conflict-free.
      std::vector<Claim> claims;
      for (const annotate::Statement* e : expectations(ctx, *acc)) {
        const auto& body = std::get<annotate::ExpectStmt>(e->body);
        claims.push_back(Claim{e, body.kind == annotate::ExpectKind::Wavefronts
                                      ? std::optional<int64_t>(body.max_wavefronts->value)
                                      : std::nullopt});
      }
      if (claims.empty()) claims.push_back(Claim{nullptr, std::nullopt});
      if (!buf->layout->parsed.param_uses.empty() || !acc->lanes.parsed.param_uses.empty()) {
        check_every_value(ctx, s, *acc, *buf, claims, what, sink);
        continue;
      }
      try {
        const SmemAccess access = *declared_access(ctx.graph, *acc);
        const ConflictResult r = prove_conflict_free(access, ctx.config.engine, ctx.config.limits);
        // An invalid access makes every claim false; it is one finding, with the first claim.
        for (size_t i = 0; i < claims.size(); ++i) report_result(s, claims[i], i == 0, *acc, *buf, access, r, what, sink);
      } catch (const AccessError& e) {
        rules::Finding f = finding(acc->lanes.loc, fmt::format("{} cannot be modelled: {}", what, e.what()));
        f.kind = rules::FindingKind::Invalid;
        sink.report(s, std::move(f), {claims.front().expect});
      }
    }
  }

 private:
  // ---- what every conflict finding says, whichever front end found the access ----
  static std::string conflict_message(const std::string& what, int64_t wavefronts, int64_t ideal) {
    return fmt::format("{} has bank conflicts: {} wavefronts where {} {} ideal", what, wavefronts, ideal,
                       ideal == 1 ? "is" : "are");
  }
  static std::string words_note(int64_t bank, const std::vector<int64_t>& words) {
    return fmt::format("bank {} must deliver {} distinct words in that phase: {}", bank, words.size(), join(words, ", "));
  }
  // The counterexample's hardware part: the warp's addresses, the instruction and its cost.
  static BankConflictCex conflict_cex(const hw::SmemInstr& instr, const hw::Arch& arch, int64_t bank,
                                      std::vector<int64_t> words, int64_t wavefronts, int64_t ideal,
                                      std::vector<int64_t> lane_addresses, hw::LaneMask active) {
    BankConflictCex cex;
    cex.bank = bank;
    cex.words = std::move(words);
    cex.wavefronts = wavefronts;
    cex.ideal = ideal;
    cex.instruction = instr.name;
    cex.arch = arch.name;
    cex.lane_addresses = std::move(lane_addresses);
    if (active != hw::kAllLanes) cex.active_lanes = active;
    return cex;
  }

  // ---- compiled kernels (frontend/ptx/KernelFacts.h) ----
  static void check_compiled(const FileContext& ctx, FindingSink& sink) {
    const ptx::CompiledModule& m = *ctx.compiled;
    for (const ptx::KernelFacts& k : m.kernels) {
      for (const auto& [at, message] : k.issues) {
        rules::Finding f = unknown_finding(at.loc, fmt::format("the shared-memory accesses of {} are checked", k.name), message);
        f.notes = at.notes;
        sink.obligation_at(at.loc, fmt::format("{}: every shared-memory access analysed", k.name), false, 0);
        sink.report_at(at.loc, std::move(f));
      }
    }
    // Every access of every kernel decided in parallel, then reported in program order.
    std::vector<std::pair<const ptx::KernelFacts*, const ptx::AccessFact*>> all;
    for (const ptx::KernelFacts& k : m.kernels)
      for (const ptx::AccessFact& a : k.accesses) all.emplace_back(&k, &a);
    std::vector<Judged> judged(all.size());
    parallel_for(all.size(), ctx.cores, [&](size_t i) { judged[i] = decide_access(ctx, m, *all[i].first, *all[i].second); });
    for (size_t i = 0; i < all.size(); ++i) report_access(m, *all[i].first, *all[i].second, judged[i], sink);
  }

  // An access decided, or why it cannot be; for the member of a merge that carries its verdict,
  // also the merged SASS instruction's conflicts.
  struct Judged {
    std::optional<SymbolicResult> result;
    std::string unknown;
    std::optional<SymbolicProperty> merged_conflicts;
  };

  static Judged decide_access(const FileContext& ctx, const ptx::CompiledModule& m, const ptx::KernelFacts& k,
                              const ptx::AccessFact& a) {
    if (a.unknown) return Judged{std::nullopt, *a.unknown, std::nullopt};
    SymbolicAccess acc = symbolic_access(m, k, a);
    if (a.cost_unknown || (a.merged && !a.merged->judged_here)) acc.instr = nullptr;  // alignment and bounds only
    try {
      Judged j{decide_symbolic_access(acc, ctx.config.engine, ctx.config.limits), "", std::nullopt};
      if (a.merged && a.merged->judged_here && !a.cost_unknown)
        j.merged_conflicts = decide_symbolic_access(merged_access(m, k, a), ctx.config.engine, ctx.config.limits).conflicts;
      return j;
    } catch (const hw::HwError& e) {
      return Judged{std::nullopt, e.what(), std::nullopt};
    }
  }

  // The SASS instruction ptxas merged `a` into, as one access: the lowest member's addresses.
  static SymbolicAccess merged_access(const ptx::CompiledModule& m, const ptx::KernelFacts& k, const ptx::AccessFact& a) {
    SymbolicAccess acc = symbolic_access(m, k, a);
    acc.instr = a.merged->instr;
    acc.bytes = a.merged->instr->bytes;
    acc.address = m.result(k).sites[a.merged->lowest_site].address;
    return acc;
  }

  static void report_access(const ptx::CompiledModule& m, const ptx::KernelFacts& k, const ptx::AccessFact& a, const Judged& j,
                            FindingSink& sink) {
    const ptx::Site& s = m.site(k, a);
    // Undecided: all three properties when the access itself is not modelled, else its conflicts
    // (an instruction without a bank model).
    auto unknown = [&](const std::string& what, const std::string& reason) {
      rules::Finding f = unknown_finding(a.at.loc, what, reason);
      f.notes = a.at.notes;
      if (!j.result && s.unknown_is_data) mark_data_dependent(f);
      sink.obligation_at(a.at.loc, what, false, 0);
      report_compiled(sink, m, k, a, std::move(f));
    };
    if (!j.result) return unknown(a.what + " is conflict-free, aligned and in bounds", j.unknown);
    const SymbolicResult& r = *j.result;
    const std::string region = s.symbol ? fmt::format("'{}'", ptx::demangled(*s.symbol)) : "shared memory";
    sink.obligation_at(a.at.loc, a.what + " is aligned", r.alignment.verdict == Verdict::Proven, r.alignment.time_ms, proof_of(r.alignment));
    sink.obligation_at(a.at.loc, fmt::format("{} stays inside {}", a.what, region), r.bounds.verdict == Verdict::Proven,
                       r.bounds.time_ms, proof_of(r.bounds));
    const auto properties = [&] {
      compiled_property(m, k, a, a.what + " is aligned", a.what + " is misaligned", r.alignment, sink);
      compiled_property(m, k, a, fmt::format("{} stays inside {}", a.what, region), fmt::format("{} leaves {}", a.what, region),
                        r.bounds, sink);
    };
    if (a.merged && !a.cost_unknown) {  // judged once, as the SASS instruction the hardware runs
      if (!j.merged_conflicts) return properties();
      const SymbolicProperty& c = *j.merged_conflicts;
      const std::string& what = a.merged->what;
      sink.obligation_at(a.at.loc, what + " is conflict-free", c.verdict == Verdict::Proven, c.time_ms,
                         conflict_proof(m, k, *a.merged->instr, merged_access(m, k, a), c));
      properties();
      std::vector<Note> ptx_level{a.merged->members};
      if (c.verdict != Verdict::Proven && r.conflicts.verdict == Verdict::Proven)
        ptx_level.push_back(Note{SourceLoc{}, fmt::format("at PTX level each {} is conflict-free; the hardware runs the merged "
                                                           "instruction", s.opcode)});
      else if (c.verdict != Verdict::Proven && r.conflicts.verdict == Verdict::Refuted && r.conflicts.witness)
        ptx_level.push_back(Note{SourceLoc{}, fmt::format("at PTX level each {} would cost {} wavefronts where {} {} ideal",
                                                           s.opcode, r.conflicts.witness->wavefronts, r.conflicts.witness->ideal,
                                                           r.conflicts.witness->ideal == 1 ? "is" : "are")});
      compiled_conflict(m, k, a, what, *a.merged->instr, c, sink, ptx_level);
      return;
    }
    const bool modelled = a.instr && !a.cost_unknown;
    if (modelled)
      sink.obligation_at(a.at.loc, a.what + " is conflict-free", r.conflicts.verdict == Verdict::Proven, r.conflicts.time_ms,
                         conflict_proof(m, k, *a.instr, symbolic_access(m, k, a), r.conflicts));
    properties();
    if (modelled) compiled_conflict(m, k, a, a.what, *a.instr, r.conflicts, sink, {});
    else unknown(a.what + " is conflict-free", a.cost_unknown.value_or(r.conflicts.reason));
  }

  // A proven conflict property with its worst wavefronts and ideal where the proof establishes
  // them: every warp of the domain costs its ideal, the ideal is at most the instruction's phases
  // (a full warp that does not merge), and a representative warp (as full as the launch allows, a
  // point of the domain) reaches that bound; then the worst is exactly that many wavefronts.
  // Otherwise the engine alone.
  static std::optional<rules::ProofSummary> conflict_proof(const ptx::CompiledModule& m, const ptx::KernelFacts& k,
                                                          const hw::SmemInstr& instr,
                                                          const SymbolicAccess& access, const SymbolicProperty& p) {
    std::optional<rules::ProofSummary> proof = proof_of(p);
    if (!proof || p.verdict != Verdict::Proven) return proof;
    try {
      std::vector<int64_t> dense(hw::kWarpLanes);
      for (size_t l = 0; l < dense.size(); ++l) dense[l] = static_cast<int64_t>(l) * instr.bytes;
      const int64_t phases = hw::smem_access_cost(*m.arch, instr, dense).ideal;
      const SymbolicWitness w = representative_warps(m, k, {access}, {}, hw::kAllLanes, kMaxRepresentativeAssignments).warps.front();
      if (w.active && w.ideal == phases && w.wavefronts == w.ideal) proof->wavefronts = proof->ideal = phases;
    } catch (const std::exception&) {  // no such warp: the engine alone
    }
    return proof;
  }

  // An unknown that loaded data alone explains (Finding::data_dependent): the access itself is
  // modelled, but which lanes execute it depends on data the kernel loads (`if (in[i] > 0)`).
  static bool activity_is_data(const ptx::CompiledModule& m, const ptx::KernelFacts& k, const ptx::AccessFact& a,
                               const rules::Finding& f) {
    const ptx::Site& s = m.site(k, a);
    const term::TermPool& P = m.analysis.pool;
    return !f.limited && s.active_exact && !P.opaque(s.address) && !P.opaque(s.extent) && P.only_loaded_data(s.active);
  }

  // A refutation for some launches that a condition on the block's shape excludes: reported as
  // depending on the launch, with one launchable witness, and how to state the launch.
  static rules::Finding launch_dependent(const ptx::AccessFact& a, const std::string& holds, const SymbolicProperty& p) {
    rules::Finding f = finding(a.at.loc, fmt::format("{} only for some launches: whenever {}", holds, p.holds_when->text));
    f.kind = rules::FindingKind::LaunchDependent;
    add_note(f, fmt::format("at another launch: {}", p.reason));
    return f;
  }

  static void compiled_property(const ptx::CompiledModule& m, const ptx::KernelFacts& k, const ptx::AccessFact& a,
                                const std::string& holds, const std::string& failed, const SymbolicProperty& p,
                                FindingSink& sink) {
    if (p.verdict == Verdict::Proven) return;
    if (p.verdict == Verdict::Unknown) {
      rules::Finding f = unknown_finding(a.at.loc, holds, p);
      f.notes = a.at.notes;
      if (activity_is_data(m, k, a, f)) mark_data_dependent(f);
      report_compiled(sink, m, k, a, std::move(f));
      return;
    }
    const SymbolicWitness& w = *p.witness;
    rules::Finding f = p.holds_when ? launch_dependent(a, holds, p) : finding(a.at.loc, fmt::format("{}: {}", failed, p.reason));
    witness_notes(m, k, w, f);
    if (p.holds_when) state_the_launch(f);
    for (const Note& n : a.at.notes) f.notes.push_back(n);
    AccessErrorCex cex;
    if (w.lane) cex.lane = *w.lane;
    cex.reason = p.reason;
    cex.lane_addresses = w.addresses;
    cex.ptx = PtxOrigin{k.name, a.at.ptx_line, w.uniforms};
    f.counterexample = std::move(cex);
    report_compiled(sink, m, k, a, std::move(f));
  }

  static void compiled_conflict(const ptx::CompiledModule& m, const ptx::KernelFacts& k, const ptx::AccessFact& a,
                                const std::string& what, const hw::SmemInstr& instr, const SymbolicProperty& p, FindingSink& sink,
                                const std::vector<Note>& extra_notes) {
    if (p.verdict == Verdict::Proven) return;
    const bool as_merged = a.merged && what == a.merged->what;  // the finding names the SASS instruction
    if (p.verdict == Verdict::Unknown) {
      rules::Finding f = unknown_finding(a.at.loc, what + " is conflict-free", p);
      f.notes = extra_notes;
      for (const Note& n : a.at.notes) f.notes.push_back(n);
      if (activity_is_data(m, k, a, f)) mark_data_dependent(f);
      report_compiled(sink, m, k, a, std::move(f), as_merged);
      return;
    }
    const SymbolicWitness& w = *p.witness;
    rules::Finding f = p.holds_when ? launch_dependent(a, what + " is conflict-free", p)
                                    : finding(a.at.loc, conflict_message(what, w.wavefronts, w.ideal));
    if (const auto& lanes = w.bank_lanes)
      add_note(f, fmt::format("lanes {} and {} access bank {} at byte addresses {} and {} (as {})", lanes->first, lanes->second,
                              w.bank, w.addresses[static_cast<size_t>(lanes->first)],
                              w.addresses[static_cast<size_t>(lanes->second)], instr.name));
    add_note(f, words_note(w.bank, w.words));
    witness_notes(m, k, w, f);
    if (p.holds_when) state_the_launch(f);
    for (const Note& n : extra_notes) f.notes.push_back(n);
    for (const Note& n : a.at.notes) f.notes.push_back(n);
    // The annotated access's counterexample type, so reports and `layoutproof replay` treat both
    // alike; no layouts were written.
    BankConflictCex cex = conflict_cex(instr, *m.arch, w.bank, w.words, w.wavefronts, w.ideal, w.addresses, w.active);
    cex.opcode = as_merged ? std::string(instr.name) : m.site(k, a).opcode;
    cex.active_lanes = w.active;
    cex.ptx = PtxOrigin{k.name, a.at.ptx_line, w.uniforms};
    if (const auto& lanes = w.bank_lanes) {
      cex.lanes = {lanes->first, lanes->second};
      cex.addresses = {w.addresses[static_cast<size_t>(lanes->first)], w.addresses[static_cast<size_t>(lanes->second)]};
    }
    f.counterexample = std::move(cex);
    report_compiled(sink, m, k, a, std::move(f), as_merged);
  }

  // ", the buffer's index I (element offset E)", or ", outside the buffer".
  static std::string where_in_buffer(const SmemAccess& access, const std::vector<int64_t>& coord) {
    try {
      const int64_t index = access.smem_index(coord);
      return fmt::format(", the buffer's index {} (element offset {})", index, access.element_part().offset_at(index));
    } catch (const AccessError&) {
      return ", outside the buffer";
    }
  }

  // One statement about an access: `expect NAME wavefronts <= N` (a bound), `expect NAME
  // conflict-free`, or, with no expectation, the access's own claim of being conflict-free.
  struct Claim {
    const annotate::Statement* expect = nullptr;  ///< nullptr: the access's own claim
    std::optional<int64_t> bound;                   ///< set for `wavefronts <= N`

    std::string description(const std::string& what) const {
      return bound ? fmt::format("{} needs at most {} wavefronts", what, *bound) : what + " is conflict-free";
    }
    /// Whether `r` proves the statement: a bound holds only when the worst instruction's exact
    /// cost is known and within it (a proof of conflict freedom says nothing about a bound below
    /// the ideal).
    bool holds(const ConflictResult& r) const {
      if (r.verdict == Verdict::Unknown || r.access) return false;
      return bound ? r.wavefronts <= *bound : r.verdict == Verdict::Proven;
    }
  };

  // The parameter values of the instance a result belongs to, when the access uses parameters.
  struct Values {
    std::string label;  ///< "M=72, N=8"
    std::string names;  ///< "M and N"
    int64_t count = 0;  ///< admissible value vectors
    int64_t decided = 0;  ///< instances decided, fewer than count when the others follow by residue classes
    /// The decided instances and the values they stand for: "8 instances", "65536 values; 72 decided, the others by
    /// residue classes"
    std::string scope() const {
      if (decided < count)
        return fmt::format("{} values; {} decided, the others by residue classes", count, decided);
      return fmt::format("{} instance{}", count, count == 1 ? "" : "s");
    }
  };

  // An access whose buffer or lane map uses parameters, decided for every admissible value one
  // instance at a time. Each claim rests on the first instance (values ascending) where it fails,
  // else on the instance with the most wavefronts.
  static void check_every_value(const FileContext& ctx, const annotate::Statement& s, const annotate::AccessDecl& acc,
                                const annotate::BufferDecl& buf, const std::vector<Claim>& claims, const std::string& what,
                                FindingSink& sink) {
    const ParametricAccess pa = *parametric_access(ctx.graph, buf, acc);
    const auto decided = prove_conflict_free_over_values(ParametricConflictQuery{pa.specs, pa.make, pa.affine_in_strides},
                                                         ctx.config.engine, ctx.config.limits);
    if (!decided) {
      for (const Claim& c : claims) {
        const annotate::Statement& owner = c.expect ? *c.expect : s;
        sink.obligation(owner, owner.loc, c.description(what), false, 0);
        sink.report(owner, unknown_finding(s.loc, c.description(what),
                                           fmt::format("deciding every value of {} needs more than {} instances; bank "
                                                       "conflicts over parameters are decided one instance at a time, or "
                                                       "by residue classes where a parameter stands only in the buffer's "
                                                       "strides (narrow the ranges or add a multiple)",
                                                       pa.names, kMostConflictInstances)));
      }
      return;
    }
    for (size_t i = 0; i < claims.size(); ++i) {
      const ConflictInstance* decisive = nullptr;
      const std::vector<ConflictInstance>& instances = decided->instances;
      for (const ConflictInstance& inst : instances)
        if (!inst.invalid.empty() || !claims[i].holds(inst.result)) {
          decisive = &inst;
          break;
        }
      if (!decisive)
        decisive = &*std::max_element(instances.begin(), instances.end(), [](const auto& a, const auto& b) {
          return a.result.wavefronts < b.result.wavefronts;
        });
      const Values values{pa.label(decisive->values), pa.names, decided->value_vectors,
                          static_cast<int64_t>(instances.size())};
      if (!decisive->invalid.empty()) {
        const annotate::Statement& owner = claims[i].expect ? *claims[i].expect : s;
        sink.obligation(owner, owner.loc, claims[i].description(what), false, 0);
        if (i != 0) continue;
        rules::Finding f =
            finding(acc.lanes.loc, fmt::format("{} cannot be modelled with {}: {}", what, values.label, decisive->invalid));
        f.kind = rules::FindingKind::Invalid;
        sink.report(s, std::move(f), {claims.front().expect});
        continue;
      }
      report_result(s, claims[i], i == 0, acc, buf, *decisive->access, decisive->result, what, sink, &values);
    }
  }


  // Every `expect ACCESS conflict-free` and `expect ACCESS wavefronts <= N` naming this access.
  static std::vector<const annotate::Statement*> expectations(const FileContext& ctx, const annotate::AccessDecl& acc) {
    std::vector<const annotate::Statement*> out;
    if (!acc.name) return out;
    for (const annotate::Statement& s : ctx.file.statements)
      if (auto* e = std::get_if<annotate::ExpectStmt>(&s.body))
        if (e->subject.text == acc.name->text &&
            (e->kind == annotate::ExpectKind::Wavefronts || e->kind == annotate::ExpectKind::ConflictFree))
          out.push_back(&s);
    return out;
  }

  // The obligation of one claim and, when it fails, its finding. A failed expectation belongs to
  // the expectation: only an `allow` on it suppresses the finding, never one on the access.
  static void report_result(const annotate::Statement& s, const Claim& claim, bool first, const annotate::AccessDecl& acc,
                            const annotate::BufferDecl& buf, const SmemAccess& access, const ConflictResult& r,
                            const std::string& what, FindingSink& sink, const Values* values = nullptr) {
    const annotate::Statement& owner = claim.expect ? *claim.expect : s;
    // With parameters: the obligation covers every value; a finding names the values it failed at.
    const std::string description =
        values ? fmt::format("{} for every value of {} ({})", claim.description(what), values->names, values->scope())
               : claim.description(what);
    auto report = [&](rules::Finding f) {
      if (values)
        add_note(f, fmt::format("with {}: the first of the {} parameter values, in ascending order, where it fails",
                                values->label, values->count));
      sink.report(owner, std::move(f));
    };
    // Layouts a counterexample quotes: the instance's, with the parameter values written in.
    const std::string smem_text = values ? print_cute_or_tirx(access.smem()) : buf.layout->instance_text();
    const std::string lanes_text = values ? print_cute_or_tirx(access.lanes()) : acc.lanes.instance_text();
    const std::optional<int64_t> bound = claim.bound;
    const bool passed = claim.holds(r);
    std::optional<rules::ProofSummary> proof = proof_of(r);
    if (proof && !r.access) {
      proof->wavefronts = r.wavefronts;
      proof->ideal = r.ideal;
      proof->issues = access.issue_count();
      proof->base_residues = access.base_residue_count();
      proof->base_alignment = access.base_align();
    }
    sink.obligation(owner, owner.loc, description, passed, r.time_ms, std::move(proof));
    if (passed) return;
    if (r.verdict == Verdict::Unknown) {
      report(unknown_finding(s.loc, description, r));
      return;
    }
    if (r.access) {
      if (!first) return;
      const auto& w = *r.access;
      rules::Finding f = finding(acc.lanes.loc, fmt::format("{}: {}", what, w.what));
      if (w.lane && !w.coord.empty() && acc.element_offsets)
        add_note(f, fmt::format("lane {} of issued instruction {} gave element offset {}{}", *w.lane, w.issue,
                                join(w.coord),
                                w.coord[0] < access.smem_dims()[0]
                                    ? ""
                                    : fmt::format(", past the buffer's offsets 0..{}", access.smem_dims()[0] - 1)));
      else if (w.lane && !w.coord.empty())
        add_note(f, fmt::format("lane {} of issued instruction {} reached coordinate ({}){}", *w.lane, w.issue, join(w.coord),
                                where_in_buffer(access, w.coord)));
      else if (w.lane)
        add_note(f, fmt::format("lane {} of issued instruction {}", *w.lane, w.issue));
      else
        add_note(f, fmt::format("issued instruction {} with the buffer at base offset {}", w.issue, w.base));
      // Integer strides in a lane map count the buffer's 1-D index, which users take for element
      // offsets (a row-major pitch written as a stride).
      const bool by_index = std::all_of(access.lanes().axes().begin(), access.lanes().axes().end(),
                                        [](const Axis& x) { return x.is_memory(); });
      if (w.lane && by_index && !acc.element_offsets)
        add_note(f, "the lane map's integer strides count the buffer's 1-D index (its coordinates in colexicographic "
                    "order), not element offsets; strides _1@d move along the buffer's mode d (a row-major tile's rows and "
                    "columns: _1@0 and _1@1), and 'offsets' instead of 'lanes' takes element offsets", acc.lanes.loc);
      AccessErrorCex cex;
      cex.lane = w.lane;
      cex.issue = w.issue;
      cex.base = w.base;
      cex.reason = w.what;
      f.counterexample = std::move(cex);
      f.trace = {{buf.layout->loc, fmt::format("'{}' is laid out like this", buf.name.text)},
                 {acc.lanes.loc, "the lanes address it like this"}};
      report(std::move(f));
      return;
    }
    if (!r.conflict) {
      // Conflict-free, yet above the bound: the ideal itself is more than the expectation allows.
      rules::Finding f = finding(s.loc, fmt::format("{} needs {} wavefronts, more than the {} expected", what, r.wavefronts, *bound));
      add_note(f, fmt::format("the access is conflict-free: {} wavefronts is the ideal of its worst instruction, the fewest "
                              "the hardware can take", r.wavefronts));
      add_note(f, "the expectation is here", owner.loc);
      report(std::move(f));
      return;
    }
    const ConflictWitness& w = *r.conflict;
    rules::Finding f = finding(
        s.loc, bound ? fmt::format("{} needs {} wavefronts, more than the {} expected", what, r.wavefronts, *bound)
                     : conflict_message(what, r.wavefronts, r.ideal));
    add_note(f, fmt::format("issued instruction {}: lanes {} and {} access bank {} at byte addresses {} and {} "
                            "({} ({}) and ({}))",
                            w.issue, w.lane_a, w.lane_b, w.bank, w.address_a, w.address_b,
                            acc.element_offsets ? "element offsets" : "coordinates", join(w.coord_a), join(w.coord_b)),
             acc.lanes.loc);
    add_note(f, words_note(w.bank, w.words));
    if (access.base_period() > access.base_align())
      add_note(f, fmt::format("with the buffer's base at offset {} (alignment {} bytes)", w.base, access.base_align()));
    // Everything a report or a GPU replay needs to redo the access: all 32 lane addresses of the
    // worst instruction, the instruction, the architecture, and the layouts as written.
    BankConflictCex cex = conflict_cex(*acc.instr, access.arch(), w.bank, w.words, w.wavefronts, w.ideal,
                                       access.addresses(w.issue, w.base), access.active());
    cex.issue = w.issue;
    cex.base = w.base;
    cex.lanes = {w.lane_a, w.lane_b};
    cex.addresses = {w.address_a, w.address_b};
    cex.coordinates = {w.coord_a, w.coord_b};
    cex.smem_layout = smem_text;
    cex.lanes_layout = lanes_text;
    cex.dtype = buf.dtype->name;
    f.counterexample = std::move(cex);
    f.trace = {{buf.layout->loc, fmt::format("'{}' places its elements like this", buf.name.text)},
               {acc.lanes.loc, fmt::format("lanes {} and {} address {} ({}) and ({})", w.lane_a, w.lane_b,
                                           acc.element_offsets ? "element offsets" : "coordinates", join(w.coord_a),
                                           join(w.coord_b))},
               {s.loc, fmt::format("{} serves them from bank {} in {} wavefronts", acc.instr->name, w.bank, w.wavefronts)}};
    if (claim.expect) add_note(f, "the expectation is here", owner.loc);
    report(std::move(f));
  }
};

}  // namespace

LP_REGISTER_RULE(BankConflictRule);

}  // namespace lp::rules
