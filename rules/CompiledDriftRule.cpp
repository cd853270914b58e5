// LP015 compiled-drift: an annotated access that names the compiled instructions it describes
// (`expect ACCESS compiled "KERNEL" at ["FILE":]LINE`) is what the compiled kernel does there: the
// same hardware instruction, and each compiled warp's lane addresses one of the annotated issues
// (all moved by one shift: where the buffer lies in the kernel's shared memory). docs/rules/LP015.md
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include "analyzer/support/KernelName.h"
#include "rules/CompiledAccess.h"
#include "rules/DeclaredAccess.h"
#include "rules/Rule.h"
#include "rules/RuleSupport.h"
#include "solver/AccessAgreement.h"
#include "solver/SymbolicAccess.h"

namespace lp::rules {

namespace {

// Annotated issues compared at most: each is one warp's addresses, held at once.
constexpr int64_t kMaxIssues = int64_t{1} << 16;
// Assignments of the compiled instructions' unknowns tried for the one they run with the annotated
// lanes under (representative_warps).
constexpr size_t kMaxAssignments = 4096;
// Kernels and lines a note lists before "...".
constexpr size_t kMaxListed = 8;

// `file` names `recorded` (a path as the PTX's `.file` gives it): equal, or a suffix of it that
// starts at a path component.
bool names_file(const std::string& recorded, const std::string& file) {
  if (recorded == file) return true;
  return recorded.size() > file.size() && recorded.compare(recorded.size() - file.size(), file.size(), file) == 0 &&
         recorded[recorded.size() - file.size() - 1] == '/';
}

// A `where` name for an unknown: its own name, the name findings show ("width (parameter 2)"), or
// that name's first word (a parameter's source name, "width").
bool names_unknown(const std::string& given, const std::string& name, const std::string& shown) {
  return given == name || given == shown || shown.rfind(given + " (", 0) == 0;
}

std::string listed(const std::vector<std::string>& items) {
  std::vector<std::string> shown(items.begin(), items.begin() + static_cast<ptrdiff_t>(std::min(items.size(), kMaxListed)));
  std::string out = fmt::format("{}", fmt::join(shown, ", "));
  if (items.size() > kMaxListed) out += fmt::format(" and {} more", items.size() - kMaxListed);
  return out;
}

// "load" or "store", as the instruction moves data relative to shared memory.
const char* direction_name(const hw::SmemInstr& i) {
  if (i.async != hw::AsyncCopy::None) return "copy into shared memory";
  return i.direction == hw::SmemDirection::Load ? "load" : "store";
}

std::string form(const hw::SmemInstr& i) {
  return fmt::format("{} ({}, {} bytes {})", i.name, i.sass, i.bytes, i.kind == hw::AccessKind::MatrixRows ? "a matrix row" : "a lane");
}

// One compiled instruction at the annotated line.
struct CompiledSite {
  const ptx::CompiledModule* module = nullptr;
  const ptx::KernelFacts* kernel = nullptr;
  const ptx::AccessFact* access = nullptr;
  std::string where() const {
    return fmt::format("PTX line {} of {}", access->at.ptx_line, module->ptx->name);
  }
};

class CompiledDriftRule : public Rule {
 public:
  const rules::RuleInfo& info() const override {
    static const rules::RuleInfo kInfo{
        "LP015", "compiled-drift", "An annotated access is not what the compiled kernel does",
        "An access bound to compiled code with `expect ACCESS compiled \"KERNEL\" at [\"FILE\":]LINE` must be what the "
        "kernel's shared-memory instructions at that source line do, in the PTX of the same run: the same hardware "
        "instruction (width, vector, ldmatrix count), the same active lanes, and each compiled warp's addresses one of "
        "the annotated issues, all at one place of the buffer. An annotation that drifted from the code proves "
        "properties of a kernel that does not exist.",
        "docs/rules/LP015.md", Severity::Error, {"correctness", "ptx"}};
    return kInfo;
  }

  void check(const FileContext& ctx, FindingSink& sink) const override {
    for (const annotate::Statement& s : ctx.file.statements)
      if (auto* e = std::get_if<annotate::ExpectStmt>(&s.body); e && e->kind == annotate::ExpectKind::Compiled)
        check_expectation(ctx, s, *e, sink);
  }

 private:
  // The access statement the expectation is about: the last one of that name before it.
  static const annotate::Statement* access_statement(const FileContext& ctx, const std::string& name,
                                                      const annotate::Statement& before) {
    const annotate::Statement* found = nullptr;
    for (const annotate::Statement& s : ctx.file.statements) {
      if (&s == &before) break;
      if (auto* a = std::get_if<annotate::AccessDecl>(&s.body); a && a->name && a->name->text == name) found = &s;
    }
    return found;
  }

  struct Expectation {
    const FileContext& ctx;
    const annotate::Statement& stmt;
    const annotate::ExpectStmt& expect;
    const annotate::Statement& access_stmt;
    const annotate::AccessDecl& access;
    std::string file;   ///< the source file the line is in, as the expectation names it
    std::string where;  ///< "sgemm_1.cu:332"
    std::string what;   ///< the obligation
    FindingSink& sink;

    void fail(Finding f) const {
      sink.obligation(stmt, expect.kind_loc, what, false, 0);
      add_note(f, fmt::format("'{}' is annotated here", access.name->text), access_stmt.loc);
      sink.report(stmt, std::move(f), {&access_stmt});
    }
    void invalid(std::string message, std::vector<std::string> notes = {}, std::optional<SourceLoc> at = {}) const {
      Finding f = finding(at.value_or(expect.kind_loc), std::move(message));
      f.kind = FindingKind::Invalid;
      for (std::string& n : notes) add_note(f, std::move(n));
      fail(std::move(f));
    }
    void unknown(const std::string& reason) const {
      sink.obligation(stmt, expect.kind_loc, what, false, 0);
      sink.report(stmt, unknown_finding(expect.kind_loc, what, reason), {&access_stmt});
    }
  };

  static void check_expectation(const FileContext& ctx, const annotate::Statement& s, const annotate::ExpectStmt& e,
                                FindingSink& sink) {
    const annotate::Statement* acc_stmt = access_statement(ctx, e.subject.text, s);
    if (!acc_stmt) return;  // the parser reported it
    const auto& acc = std::get<annotate::AccessDecl>(acc_stmt->body);
    const annotate::CompiledRef& ref = *e.compiled;
    const std::string file = ref.file ? ref.file->text : std::filesystem::path(ctx.file.source->name).filename().string();
    const std::string where = fmt::format("{}:{}", file, ref.line.value);
    Expectation x{ctx, s, e, *acc_stmt, acc, file, where,
                  fmt::format("'{}' is what kernel \"{}\" does at {}", e.subject.text, ref.kernel.text, where), sink};

    const annotate::BufferDecl* buf = ctx.graph.buffer(acc.buffer.text);
    if (!buf || !buf->layout || !buf->dtype) return;  // the parser reported it
    if (!buf->layout->parsed.param_uses.empty() || !acc.lanes.parsed.param_uses.empty())
      return x.unknown("an access with parameters is not compared with compiled code; instantiate them");
    std::optional<SmemAccess> declared;
    try {
      declared = declared_access(ctx.graph, acc);
    } catch (const AccessError&) {
      return;  // LP002 reports the access itself
    }
    if (!declared) return;
    if (declared->issue_count() > kMaxIssues)
      return x.unknown(fmt::format("the access has {} issues; at most {} are compared", declared->issue_count(), kMaxIssues));

    // The compiled side: the run's kernels the expression finds, and their instructions at the line.
    const RunCompiled* run = ctx.run_compiled;
    if (run && run->incomplete) return x.unknown(*run->incomplete);
    if (!run || run->modules.empty())
      return x.invalid(fmt::format("no compiled kernel is checked in this run, so '{}' cannot be compared with kernel "
                                   "\"{}\"",
                                   e.subject.text, ref.kernel.text),
                       {"check this file together with the kernel's PTX: a .ptx file, --cuda FILE.cu, or -p BUILD_DIR "
                        "(docs/rules/LP015.md)"});
    const std::regex re = kernel_pattern(ref.kernel.text);  // the parser checked that it compiles
    std::vector<std::string> all_kernels;
    std::vector<std::vector<CompiledSite>> at_line;  // per kernel with instructions at the line, in the run's order
    bool matched = false;
    std::set<int> lines_in_file;
    for (const auto& m : run->modules)
      for (const ptx::KernelFacts& k : m->kernels) {
        all_kernels.push_back(short_kernel_name(k.name));
        if (!std::regex_search(k.name, re) && !std::regex_search(m->result(k).name, re)) continue;
        matched = true;
        std::vector<CompiledSite> sites;
        for (const ptx::AccessFact& a : k.accesses)
          for (const ptx::SourceLine& l : a.at.lines) {
            if (!names_file(l.file, file)) continue;
            lines_in_file.insert(l.line);
            if (l.line == ref.line.value) {
              sites.push_back(CompiledSite{m.get(), &k, &a});
              break;
            }
          }
        if (!sites.empty()) at_line.push_back(std::move(sites));
      }
    if (!matched)
      return x.invalid(fmt::format("no compiled kernel of this run matches \"{}\"", ref.kernel.text),
                       {fmt::format("the run's kernels: {}", listed(all_kernels))}, ref.kernel.loc);
    if (at_line.empty()) {
      std::vector<std::string> lines;
      for (int l : lines_in_file) lines.push_back(std::to_string(l));
      return x.invalid(fmt::format("no kernel matching \"{}\" has a shared-memory instruction at {}", ref.kernel.text, where),
                       {lines.empty() ? fmt::format("none of their shared-memory instructions is in a file named {}", file)
                                      : fmt::format("their shared-memory instructions in {} are at lines {}", file, listed(lines))},
                       ref.line.loc);
    }

    // The `where` names some instruction has, and the warps compared.
    Stopwatch clock;
    std::set<std::string> used_values;
    size_t compared = 0;
    for (const std::vector<CompiledSite>& sites : at_line)
      if (!compare_kernel(x, *declared, sites, used_values, compared)) return;
    for (const auto& [name, value] : ref.values)
      if (!used_values.count(name.text))
        return x.invalid(fmt::format("'{}' is no unknown of the compiled instructions at {}", name.text, where), {},
                         name.loc);
    sink.obligation(s, e.kind_loc, x.what, true, clock.elapsed_ms(),
                    ProofSummary{engine_name(Engine::Enum), static_cast<int64_t>(compared), std::nullopt, std::nullopt,
                                 declared->issue_count(), std::nullopt, std::nullopt});
  }

  // One kernel's instructions at the line against the annotation; false once a finding is reported.
  // The line's instructions in the annotated direction are grouped by the shared symbol they
  // address (a line may read two buffers, `gemm(tCsA, tCsB, ...)`): one group must be the access.
  static bool compare_kernel(const Expectation& x, const SmemAccess& declared, const std::vector<CompiledSite>& sites,
                             std::set<std::string>& used_values, size_t& compared) {
    const hw::SmemInstr& annotated = *x.access.instr;
    const ptx::KernelFacts& kernel = *sites.front().kernel;
    const std::string kname = short_kernel_name(kernel.name);
    std::vector<std::string> other_kinds;
    std::vector<std::pair<std::string, std::vector<const CompiledSite*>>> groups;  // by symbol, in PTX order
    for (const CompiledSite& c : sites) {
      const ptx::AccessFact& a = *c.access;
      if (!a.instr || a.instr->direction != annotated.direction ||
          (a.instr->async == hw::AsyncCopy::None) != (annotated.async == hw::AsyncCopy::None)) {
        other_kinds.push_back(a.unknown ? fmt::format("{} ({})", a.what, *a.unknown) : a.what);
        continue;
      }
      const std::optional<std::string>& symbol = c.module->site(kernel, a).symbol;
      const std::string name = symbol ? short_symbol_name(kernel.shown_uniform(*symbol)) : "an unknown symbol";
      auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& e) { return e.first == name; });
      if (g == groups.end()) groups.emplace_back(name, std::vector<const CompiledSite*>{&c});
      else g->second.push_back(&c);
    }
    if (groups.empty()) {
      Finding f = finding(x.expect.kind_loc,
                          fmt::format("'{}' is annotated as a {} ({}), but {} has no {} at {}", x.access.name->text,
                                      direction_name(annotated), annotated.name, kname, direction_name(annotated), x.where));
      add_note(f, fmt::format("its shared-memory instructions at the line: {}", listed(other_kinds)));
      x.fail(std::move(f));
      return false;
    }
    std::vector<GroupOutcome> outcomes;
    for (const auto& [symbol, members] : groups) {
      outcomes.push_back(compare_group(x, declared, kernel, kname, members, used_values));
      if (outcomes.back().kind == GroupOutcome::Kind::Agrees) {
        compared += outcomes.back().warps;
        return true;
      }
    }
    for (const GroupOutcome& o : outcomes)
      if (o.kind == GroupOutcome::Kind::Invalid) {
        x.invalid(o.reason, {}, o.at);
        return false;
      }
    for (const GroupOutcome& o : outcomes)
      if (o.kind == GroupOutcome::Kind::Unknown) {
        x.unknown(o.reason);
        return false;
      }
    // The group with the annotated instruction, else the first, is the one reported.
    size_t shown = 0;
    for (size_t g = 0; g < outcomes.size(); ++g)
      if (!outcomes[g].other_form) {
        shown = g;
        break;
      }
    Finding f = std::move(outcomes[shown].finding);
    if (groups.size() > 1) {
      std::vector<std::string> names;
      for (const auto& [symbol, members] : groups) names.push_back(fmt::format("{} ({} instructions)", symbol, members.size()));
      add_note(f, fmt::format("the line's {}s address {} shared symbols, and none is this access: {}; shown: the {}",
                              direction_name(annotated), groups.size(), listed(names), ordinal(shown)));
    }
    x.fail(std::move(f));
    return false;
  }

  struct GroupOutcome {
    enum class Kind { Agrees, Drifts, Unknown, Invalid } kind = Kind::Drifts;
    Finding finding;       ///< Drifts
    std::string reason;    ///< Unknown, Invalid
    SourceLoc at;          ///< Invalid: the `where` value at fault
    size_t warps = 0;      ///< Agrees: the compiled warps compared
    bool other_form = false;  ///< Drifts: another hardware instruction than the annotated one
  };

  static std::string ordinal(size_t i) {
    static const char* const kWords[] = {"first", "second", "third", "fourth", "fifth"};
    return i < 5 ? kWords[i] : fmt::format("{}th", i + 1);
  }

  // One symbol's instructions at the line against the annotation.
  static GroupOutcome compare_group(const Expectation& x, const SmemAccess& declared, const ptx::KernelFacts& kernel,
                                    const std::string& kname, const std::vector<const CompiledSite*>& same_direction,
                                    std::set<std::string>& used_values) {
    const hw::SmemInstr& annotated = *x.access.instr;
    GroupOutcome out;
    std::vector<const CompiledSite*> other_forms;
    for (const CompiledSite* c : same_direction)
      if (c->access->instr != &annotated) other_forms.push_back(c);
    if (!other_forms.empty()) {
      const hw::SmemInstr& runs = *other_forms.front()->access->instr;
      Finding f = finding(x.expect.kind_loc,
                          fmt::format("'{}' is annotated as {}, but {} runs {} at {}: {} bytes {}", x.access.name->text,
                                      form(annotated), kname, other_forms.front()->access->what, x.where, runs.bytes,
                                      runs.kind == hw::AccessKind::MatrixRows ? "a matrix row" : "a lane"));
      std::vector<std::string> instances;
      for (const CompiledSite* c : other_forms) instances.push_back(c->access->what);
      add_note(f, fmt::format("{} of the {} compiled {}s at the line {} {}, not {}: {}", other_forms.size(),
                              same_direction.size(), direction_name(annotated), other_forms.size() == 1 ? "is" : "are",
                              form(runs), annotated.name, listed(instances)));
      add_note(f, fmt::format("the annotation declares {} issue{} of {} for each warp", declared.issue_count(),
                              declared.issue_count() == 1 ? "" : "s", annotated.name));
      add_note(f, fmt::format("the compiled instruction: {} in kernel {}", other_forms.front()->where(), kname));
      out.finding = std::move(f);
      out.other_form = true;
      return out;
    }

    // The compiled warps at one assignment of the instructions' unknowns, shared by all of them:
    // the expectation's values, the rest chosen so that the instructions run with the annotated
    // lanes where some assignment does (representative_warps).
    std::vector<SymbolicAccess> accesses;
    for (const CompiledSite* c : same_direction) {
      const ptx::AccessFact& a = *c->access;
      if (a.unknown) {
        out.kind = GroupOutcome::Kind::Unknown;
        out.reason = fmt::format("{} of {} at {} cannot be modelled: {}", a.what, kname, x.where, *a.unknown);
        return out;
      }
      accesses.push_back(symbolic_access(*c->module, kernel, a));
    }
    const term::TermPool& pool = *accesses.front().pool;
    const ptx::CompiledModule& module = *same_direction.front()->module;
    const ptx::LaunchVars& launch = module.result(kernel).launch;
    std::map<term::VarId, int64_t> given;  // the expectation's values
    bool every_instance = true;
    for (const SymbolicAccess& sa : accesses) {
      for (term::VarId v : access_unknowns(sa)) {
        const term::VarInfo& info = pool.var(v);
        if (!(is_free_extent(launch, v) || v == launch.warp || sa.base == v)) every_instance = false;
        for (const auto& [name, value] : x.expect.compiled->values)
          if (names_unknown(name.text, info.name, kernel.shown_uniform(info.name))) {
            used_values.insert(name.text);
            if (value.value < 0 || !in_var_domain(sa, v, static_cast<uint64_t>(value.value) & term::mask_of(info.width))) {
              const term::VarDomain d = var_domain(sa, v);
              const uint64_t step = uint64_t{1} << std::min(d.align_log2, 63);
              out.kind = GroupOutcome::Kind::Invalid;
              out.at = value.loc;
              out.reason = fmt::format("{} = {} is outside the values it takes in {}: {}..{}{}", name.text, value.value, kname,
                                       d.lo, std::min(d.hi, term::mask_of(info.width)),
                                       step > 1 ? fmt::format(", every {}", step) : "");
              return out;
            }
            given[v] = value.value;
          }
      }
    }
    const hw::LaneMask wanted = declared.active() & hw::lanes_below(hw::address_lane_count(annotated));
    RepresentativeWarps chosen;
    try {
      chosen = representative_warps(module, kernel, accesses, given, wanted, kMaxAssignments);
    } catch (const std::invalid_argument& err) {
      out.kind = GroupOutcome::Kind::Unknown;
      out.reason = fmt::format("the instructions of {} at {} have no addresses at one assignment of their unknowns: {}",
                               kname, x.where, err.what());
      return out;
    }
    std::vector<WarpAddresses> warps;
    for (const SymbolicWitness& w : chosen.warps) warps.push_back(WarpAddresses{w.addresses, w.active});
    std::vector<std::string> parts;
    for (const auto& [name, value] : chosen.values) parts.push_back(fmt::format("{} = {}", kernel.shown_uniform(name), value));
    const std::string values_text = fmt::format("{}", fmt::join(parts, ", "));
    std::vector<WarpAddresses> issues;
    for (int64_t i = 0; i < declared.issue_count(); ++i) issues.push_back(WarpAddresses{declared.addresses(i, 0), declared.active()});
    const auto result = compare_warps(warps, issues, hw::address_lane_count(annotated), every_instance);
    if (std::holds_alternative<Agreement>(result)) {
      out.kind = GroupOutcome::Kind::Agrees;
      out.warps = warps.size();
      return out;
    }

    const Disagreement& d = std::get<Disagreement>(result);
    const CompiledSite& site = *same_direction[std::min(d.warp, same_direction.size() - 1)];
    const std::string at = values_text.empty() ? "" : fmt::format(" (with {})", values_text);
    std::string message = disagreement_message(x, d, site, kname, at);
    // A difference found where the model over-approximates (a loop's iteration count, lanes that
    // leave a divergent loop) may be at a warp the kernel never runs: undecided, as LP002's are.
    for (const SymbolicAccess& sa : accesses) {
      std::string approx;
      if (!sa.active_exact) approx = "which lanes run it, over-approximated inside a divergent loop";
      for (term::VarId v : access_unknowns(sa))
        if (const term::VarInfo& info = pool.var(v); approx.empty() && info.over_approximated) {
          auto value = chosen.values.find(info.name);
          approx = fmt::format("{} = {}, {}", kernel.shown_uniform(info.name),
                               value == chosen.values.end() ? static_cast<int64_t>(info.lo) : value->second, info.reason);
        }
      if (!approx.empty()) {
        out.kind = GroupOutcome::Kind::Unknown;
        out.reason = fmt::format("{} only with {}", message, approx);
        return out;
      }
    }
    Finding f = finding(x.expect.kind_loc, std::move(message));
    if (d.kind == Disagreement::Kind::Shift)
      add_note(f, fmt::format("the instructions before it are issues at a shift of {} bytes",
                              fmt::join(d.shifts_before, " or ")));
    if (d.kind == Disagreement::Kind::MissingIssue) {
      const std::vector<int64_t> a = declared.addresses(static_cast<int64_t>(d.issue), 0);
      add_note(f, fmt::format("issue {}: lanes 0-3 at bytes {}, ... of the buffer", d.issue,
                              fmt::join(std::vector<int64_t>(a.begin(), a.begin() + 4), ", ")));
      add_note(f, warps.size() == 1 ? std::string("the compiled instruction at the line depends on no loop or parameter: it "
                                                  "is every instance the warp runs")
                                    : fmt::format("the {} compiled instructions at the line depend on no loop or parameter: "
                                                  "they are every instance the warp runs",
                                                  warps.size()));
    } else {
      const WarpAddresses& w = warps[d.warp];
      add_note(f, fmt::format("the compiled warp{}: lanes 0-7 at shared bytes {}", at,
                              fmt::join(std::vector<int64_t>(w.addresses.begin(), w.addresses.begin() + 8), ", ")));
      const std::vector<int64_t> a = declared.addresses(static_cast<int64_t>(d.issue), 0);
      add_note(f, fmt::format("the annotation's issue {}: lanes 0-7 at buffer bytes {}", d.issue,
                              fmt::join(std::vector<int64_t>(a.begin(), a.begin() + 8), ", ")));
      add_note(f, fmt::format("the compiled instruction: {} in kernel {}", site.where(), kname));
    }
    out.finding = std::move(f);
    return out;
  }

  // The finding's message for how the compiled warps differ from the annotation; `at` is the
  // " (with VALUES)" the unknowns were given.
  static std::string disagreement_message(const Expectation& x, const Disagreement& d, const CompiledSite& site,
                                          const std::string& kname, const std::string& at) {
    std::string message;
    switch (d.kind) {
      case Disagreement::Kind::ActiveLanes:
        message = fmt::format("'{}' is annotated with active lanes {}, but the active lanes of {} of {} at {} are {}{}",
                              x.access.name->text, lanes_text(d.annotated_active), site.access->what, kname, x.where,
                              lanes_text(d.compiled_active), at);
        break;
      case Disagreement::Kind::LanePattern:
        message = fmt::format("'{}' does not address what {} does at {}: in {}, lane {} accesses {} bytes past the first "
                              "active lane; in the annotation's nearest issue ({}), {} bytes",
                              x.access.name->text, kname, x.where, site.access->what, d.lane, d.compiled_offset, d.issue,
                              d.annotated_offset);
        break;
      case Disagreement::Kind::Shift:
        message = fmt::format("'{}' has the issues {} runs at {}, but not at one place of the buffer: {} is issue {} only "
                              "{} bytes from where the instructions before it are",
                              x.access.name->text, kname, x.where, site.access->what, d.issue,
                              fmt::join(d.shifts_of_warp, " or "));
        break;
      case Disagreement::Kind::MissingIssue:
        message = fmt::format("'{}' declares issue {}, which no instruction {} runs at {} performs", x.access.name->text,
                              d.issue, kname, x.where);
        break;
    }
    return message;
  }
};

}  // namespace

LP_REGISTER_RULE(CompiledDriftRule);

}  // namespace lp::rules
