#include "rules/PtxCheck.h"

#include <cxxabi.h>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>

#include "analyzer/ptx/PtxEval.h"
#include "hw/Arch.h"
#include "hw/HwError.h"
#include "rules/Rule.h"
#include "rules/RuleSupport.h"
#include "solver/SymbolicAccess.h"

namespace lp::rules {

namespace fs = std::filesystem;

namespace {

constexpr uintmax_t kMaxSourceBytes = 16u << 20;  // the checker's own limit on files it reads

const rules::RuleInfo& rule_info(const std::string& id) {
  for (const Rule* r : all_rules())
    if (r->info().id == id) return r->info();
  throw std::logic_error("rule " + id + " is not registered");
}

std::string demangled(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && d ? std::string(d.get()) : name;
}

// The bank model of the PTX's `.target`: sm_8x reads as sm_80, sm_9x as sm_90, sm_100 and later
// as sm_100 (their shared memory banks are the same; docs/hardware.md), with a note when the
// model is not the target's own.
std::pair<const hw::Arch*, std::string> arch_for_target(const std::string& target) {
  int sm = 0;
  if (target.rfind("sm_", 0) == 0) sm = std::atoi(target.c_str() + 3);
  const hw::Arch& arch = hw::arch_for_sm(sm);
  std::string note;
  if (target.empty()) note = fmt::format("the PTX names no .target; modelled as {}", arch.name);
  else if (arch.name != target) note = fmt::format(".target {} is modelled as {}", target, arch.name);
  return {&arch, note};
}

bool under(const fs::path& p, const fs::path& dir) {
  if (dir.empty()) return false;
  auto d = std::mismatch(dir.begin(), dir.end(), p.begin(), p.end()).first;
  return d == dir.end() || (std::next(d) == dir.end() && d->empty());
}

/// The user's source files a PTX's `.file` directives name, read when the policy allows.
class Sources {
 public:
  Sources(const ptx::Module& m, const std::string& ptx_path, const PtxSourcePolicy& policy) : m_(m) {
    std::error_code ec;
    roots_.push_back(fs::weakly_canonical(fs::current_path(ec), ec));
    ptx_dir_ = fs::path(ptx_path).parent_path();
    roots_.push_back(fs::weakly_canonical(fs::absolute(ptx_path, ec).parent_path(), ec));
    for (const std::string& e : policy.extra) extra_.insert(fs::weakly_canonical(fs::absolute(e, ec), ec).string());
  }

  /// A location at FILE:LINE:COL of the user's source, when that file is readable.
  std::optional<SourceLoc> at(int file, int line, int col) {
    auto* f = load(file);
    if (!f || line < 1 || static_cast<size_t>(line) > f->line_starts.size()) return std::nullopt;
    const size_t start = f->line_starts[static_cast<size_t>(line - 1)];
    const size_t end = f->text->text.find('\n', start);
    const size_t len = (end == std::string::npos ? f->text->text.size() : end) - start;
    return SourceLoc{f->text, start + std::min(len, static_cast<size_t>(std::max(col, 1) - 1))};
  }
  std::string name(int file) const {
    auto it = m_.files.find(file);
    return it == m_.files.end() ? fmt::format("<file {}>", file) : it->second;
  }

 private:
  struct File {
    std::shared_ptr<SourceText> text;
    std::vector<size_t> line_starts;
  };
  File* load(int file) {
    auto it = cache_.find(file);
    if (it != cache_.end()) return it->second ? &*it->second : nullptr;
    std::optional<File>& slot = cache_[file];
    auto name_it = m_.files.find(file);
    if (name_it == m_.files.end()) return nullptr;
    // nvcc records the path the source had where it was compiled: where that path does not exist
    // (PTX compiled elsewhere, or checked in), the file of that name next to the PTX is the source.
    std::optional<fs::path> found;
    std::string shown = name_it->second;
    for (const fs::path& candidate : {fs::path(name_it->second), ptx_dir_ / fs::path(name_it->second).filename()}) {
      std::error_code ec;
      const fs::path canon = fs::weakly_canonical(fs::absolute(candidate, ec), ec);
      if (ec || !fs::is_regular_file(canon, ec) || fs::file_size(canon, ec) > kMaxSourceBytes) continue;
      const bool allowed = extra_.count(canon.string()) ||
                           std::any_of(roots_.begin(), roots_.end(), [&](const fs::path& r) { return under(canon, r); });
      if (!allowed) continue;
      found = canon;
      shown = candidate.string();
      break;
    }
    if (!found) return nullptr;
    std::ifstream in(*found, std::ios::binary);
    if (!in) return nullptr;
    File f;
    f.text = std::make_shared<SourceText>();
    f.text->name = shown;
    f.text->text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    f.line_starts.push_back(0);
    for (size_t i = 0; i < f.text->text.size(); ++i)
      if (f.text->text[i] == '\n') f.line_starts.push_back(i + 1);
    slot = std::move(f);
    return &*slot;
  }
  const ptx::Module& m_;
  fs::path ptx_dir_;
  std::vector<fs::path> roots_;
  std::set<std::string> extra_;
  std::map<int, std::optional<File>> cache_;
};

class PtxReporter {
 public:
  PtxReporter(const std::string& path, std::shared_ptr<const SourceText> src, const Config& config,
              const PtxSourcePolicy& policy, std::vector<rules::Finding>& findings,
              std::vector<rules::Obligation>& obligations)
      : path_(path), src_(std::move(src)), config_(config), policy_(policy),
        bank_(rule_info("LP002"), config, findings, obligations),
        descriptor_(rule_info("LP010"), config, findings, obligations),
        input_(rule_info("LP011"), config, findings, obligations), obligations_(obligations) {}

  void run() {
    ptx::Module module;
    try {
      module = ptx::read_ptx(src_);
    } catch (const DiagnosticError& e) {
      const Diagnostic& d = e.diagnostic();
      rules::Finding f = finding(d.loc, d.message);
      f.kind = rules::FindingKind::Invalid;
      f.notes = d.notes;
      input_.report_at(d.loc, std::move(f), Severity::Error);
      return;
    }
    auto [arch, arch_note] = arch_for_target(module.target);
    arch_ = arch;
    arch_note_ = arch_note;
    ptx::EvalOptions options;
    options.max_smem_bytes = arch_->max_smem_bytes_per_block;
    ptx::Analysis analysis;
    ptx::analyze(module, options, analysis);
    Sources sources(module, path_, policy_);
    module_ = &module;
    sources_ = &sources;
    pool_ = &analysis.pool;
    for (const ptx::KernelResult& k : analysis.kernels) {
      kernel_ = demangled(k.name);
      for (const ptx::Issue& issue : k.issues) {
        Placed at = place(issue.origin);
        rules::Finding f = unknown_finding(at.loc, fmt::format("the shared-memory accesses of {} are checked", kernel_), issue.message);
        f.notes = at.notes;
        obligation(at.loc, fmt::format("{}: every shared-memory access analysed", kernel_), false, 0);
        bank_.report_at(at.loc, std::move(f), Severity::Error);
      }
      for (const ptx::Site& s : k.sites) site(s);
    }
  }

 private:
  struct Placed {
    SourceLoc loc;
    std::vector<Note> notes;
    int ptx_line = 0;
  };

  // The user's source line (outermost frame) when readable, else the PTX line; the inlined
  // frames and the PTX instruction as notes.
  Placed place(const ptx::SiteOrigin& o) {
    Placed p;
    const SourceLoc ptx_loc{src_, o.pos};
    p.ptx_line = static_cast<int>(line_col_of(*src_, o.pos).first);
    // Outermost first: each call site's frames, then the instruction's; `called` marks the first
    // frame inside a called (not inlined) function.
    std::vector<ptx::SourceFrame> frames;
    std::vector<char> called;
    auto append = [&](std::optional<size_t> loc) {
      if (!loc) return;
      auto f = ptx::source_frames(*module_, *loc);
      for (size_t k = 0; k < f.size(); ++k) called.push_back(k == 0 && !frames.empty());
      frames.insert(frames.end(), f.begin(), f.end());
    };
    for (const auto& loc : o.call_debug_locs) append(loc);
    append(o.debug_loc);
    std::optional<SourceLoc> user;
    if (!frames.empty() && frames.front().line > 0) user = sources_->at(frames.front().file, frames.front().line, frames.front().col);
    p.loc = user ? *user : ptx_loc;
    for (size_t k = 1; k < frames.size(); ++k) {
      const ptx::SourceFrame& f = frames[k];
      if (f.line <= 0) continue;
      auto loc = sources_->at(f.file, f.line, f.col);
      auto fn = module_->debug_strings.find(f.function_label);
      const std::string what = called[k] ? "in the called function" : "inlined";
      const std::string in = fn == module_->debug_strings.end() ? "" : " in " + demangled(fn->second);
      p.notes.push_back(Note{loc.value_or(SourceLoc{}), loc ? what + in
                                                            : fmt::format("{}{} at {}:{}:{}", what, in, sources_->name(f.file), f.line, f.col)});
    }
    if (!frames.empty() && !user && frames.front().line > 0)
      p.notes.insert(p.notes.begin(), Note{SourceLoc{}, fmt::format("source: {}:{}:{} (not read)", sources_->name(frames.front().file),
                                                                    frames.front().line, frames.front().col)});
    for (size_t k = 0; k < o.call_positions.size(); ++k)
      p.notes.push_back(Note{SourceLoc{src_, o.call_positions[k]}, "called from here"});
    p.notes.push_back(Note{ptx_loc, fmt::format("the PTX instruction, in kernel {}", kernel_)});
    return p;
  }

  void obligation(const SourceLoc& loc, std::string description, bool passed, double ms,
                  std::optional<rules::ProofSummary> proof = std::nullopt) {
    if (!config_.severity_of(rule_info("LP002"))) return;  // the rule is off
    obligations_.push_back(rules::Obligation{"LP002", loc, std::move(description), passed, ms, std::move(proof)});
  }

  void site(const ptx::Site& s) {
    Placed at = place(s.origin);
    const std::string what = fmt::format("{} (PTX line {})", s.opcode, at.ptx_line);
    if (s.kind == ptx::SiteKind::NotPerLane) {
      rules::Finding f = finding(at.loc, fmt::format("{} is not a per-lane shared-memory access ({}); its banks are not checked",
                                                      what, s.note));
      f.notes = at.notes;
      descriptor_.report_at(at.loc, std::move(f), Severity::Error);
      return;
    }
    const std::string all_properties = what + " is conflict-free, aligned and in bounds";
    auto unknown = [&](const std::string& reason) {
      rules::Finding f = unknown_finding(at.loc, what + " is conflict-free", reason);
      f.notes = at.notes;
      obligation(at.loc, all_properties, false, 0);
      bank_.report_at(at.loc, std::move(f), Severity::Error);
    };
    if (s.unknown) return unknown(*s.unknown);
    const hw::SmemInstr* instr = nullptr;
    if (s.kind != ptx::SiteKind::Atomic) {
      if (s.instr.empty()) return unknown(fmt::format("no bank model for a {}-byte access", s.bytes));
      try {
        instr = &hw::smem_instr(s.instr);
      } catch (const hw::HwError& e) {
        return unknown(e.what());
      }
      if (arch_->sm < instr->min_sm || (instr->kind == hw::AccessKind::MatrixRows &&
                                        instr->direction == hw::SmemDirection::Store && !arch_->has_stmatrix))
        return unknown(fmt::format("{} does not exist on {}", instr->name, arch_->name));
    }
    SymbolicAccess a;
    a.pool = pool_;
    a.address = s.address;
    a.active = s.active;
    a.active_exact = s.active_exact;
    a.instr = instr;
    a.bytes = s.bytes;
    a.address_lanes = instr ? hw::address_lane_count(*instr) : hw::kWarpLanes;
    a.arch = arch_;
    a.base = s.symbol_base;
    a.extent = s.symbol && s.symbol_bytes ? *s.symbol_bytes : arch_->max_smem_bytes_per_block;
    SymbolicResult r;
    try {
      r = decide_symbolic_access(a, config_.engine, config_.limits);
    } catch (const hw::HwError& e) {
      return unknown(e.what());
    }
    const std::string region = s.symbol ? fmt::format("'{}'", demangled(*s.symbol)) : "shared memory";
    obligation(at.loc, fmt::format("{} is aligned", what), r.alignment.verdict == Verdict::Proven, r.alignment.time_ms,
               proof_of(r.alignment));
    obligation(at.loc, fmt::format("{} stays inside {}", what, region), r.bounds.verdict == Verdict::Proven, r.bounds.time_ms,
               proof_of(r.bounds));
    if (instr)
      obligation(at.loc, fmt::format("{} is conflict-free", what), r.conflicts.verdict == Verdict::Proven, r.conflicts.time_ms,
                 proof_of(r.conflicts));
    property(at, what + " is aligned", what + " is misaligned", r.alignment);
    property(at, what + " stays inside " + region, what + " leaves " + region, r.bounds);
    if (instr) conflict(s, at, what, *instr, r.conflicts);
    else unknown(r.conflicts.reason);
  }

  void uniform_note(rules::Finding& f, const SymbolicWitness& w) {
    if (w.uniforms.empty()) return;
    std::string u;
    for (const auto& [name, value] : w.uniforms) u += fmt::format("{}{} = {}", u.empty() ? "" : ", ", demangled(name), value);
    add_note(f, "with the uniform values " + u);
  }
  static std::string mask_text(hw::LaneMask m) {
    if (m == hw::kAllLanes) return "all 32";
    std::string s;
    for (int l = 0; l < hw::kWarpLanes;) {
      if (!((m >> l) & 1)) {
        ++l;
        continue;
      }
      int e = l;
      while (e + 1 < hw::kWarpLanes && ((m >> (e + 1)) & 1)) ++e;
      s += fmt::format("{}{}", s.empty() ? "" : ",", l == e ? std::to_string(l) : fmt::format("{}-{}", l, e));
      l = e + 1;
    }
    return s;
  }

  void property(const Placed& at, const std::string& what, const std::string& failed, const SymbolicProperty& p) {
    if (p.verdict == Verdict::Proven) return;
    if (p.verdict == Verdict::Unknown) {
      rules::Finding f = unknown_finding(at.loc, what, p.reason);
      f.notes = at.notes;
      bank_.report_at(at.loc, std::move(f), Severity::Error);
      return;
    }
    const SymbolicWitness& w = *p.witness;
    rules::Finding f = finding(at.loc, fmt::format("{}: {}", failed, p.reason));
    uniform_note(f, w);
    if (w.active != hw::kAllLanes) add_note(f, "active lanes: " + mask_text(w.active));
    for (const Note& n : at.notes) f.notes.push_back(n);
    AccessErrorCex cex;
    if (w.lane) cex.lane = *w.lane;
    cex.reason = p.reason;
    cex.lane_addresses = w.addresses;
    cex.ptx = origin(at, w);
    f.counterexample = std::move(cex);
    bank_.report_at(at.loc, std::move(f), Severity::Error);
  }

  PtxOrigin origin(const Placed& at, const SymbolicWitness& w) const { return PtxOrigin{kernel_, at.ptx_line, w.uniforms}; }

  void conflict(const ptx::Site& s, const Placed& at, const std::string& what, const hw::SmemInstr& instr,
                const SymbolicProperty& p) {
    if (p.verdict == Verdict::Proven) return;
    if (p.verdict == Verdict::Unknown) {
      rules::Finding f = unknown_finding(at.loc, what + " is conflict-free", p.reason);
      f.notes = at.notes;
      bank_.report_at(at.loc, std::move(f), Severity::Error);
      return;
    }
    const SymbolicWitness& w = *p.witness;
    rules::Finding f = finding(at.loc, fmt::format("{} has bank conflicts: {} wavefronts where {} {} ideal", what, w.wavefronts,
                                                    w.ideal, w.ideal == 1 ? "is" : "are"));
    if (const auto& lanes = w.bank_lanes)
      add_note(f, fmt::format("lanes {} and {} access bank {} at byte addresses {} and {} (as {})", lanes->first, lanes->second,
                              w.bank, w.addresses[static_cast<size_t>(lanes->first)],
                              w.addresses[static_cast<size_t>(lanes->second)], instr.name));
    add_note(f, fmt::format("bank {} must deliver {} distinct words in that phase: {}", w.bank, w.words.size(), join(w.words, ", ")));
    uniform_note(f, w);
    if (w.active != hw::kAllLanes) add_note(f, "active lanes: " + mask_text(w.active));
    if (!arch_note_.empty()) add_note(f, arch_note_);
    for (const Note& n : at.notes) f.notes.push_back(n);
    // The annotated LP002 counterexample's type, so reports and `layoutproof replay` treat both
    // alike; no layouts were written.
    BankConflictCex cex;
    cex.bank = w.bank;
    cex.words = w.words;
    cex.wavefronts = w.wavefronts;
    cex.ideal = w.ideal;
    cex.instruction = instr.name;
    cex.arch = arch_->name;
    cex.lane_addresses = w.addresses;
    cex.opcode = s.opcode;
    cex.active_lanes = w.active;
    cex.ptx = origin(at, w);
    if (const auto& lanes = w.bank_lanes) {
      cex.lanes = {lanes->first, lanes->second};
      cex.addresses = {w.addresses[static_cast<size_t>(lanes->first)], w.addresses[static_cast<size_t>(lanes->second)]};
    }
    f.counterexample = std::move(cex);
    bank_.report_at(at.loc, std::move(f), Severity::Error);
  }

  std::string path_;
  std::shared_ptr<const SourceText> src_;
  const Config& config_;
  const PtxSourcePolicy& policy_;
  FindingSink bank_, descriptor_, input_;
  std::vector<rules::Obligation>& obligations_;
  const hw::Arch* arch_ = nullptr;
  std::string arch_note_;
  const ptx::Module* module_ = nullptr;
  Sources* sources_ = nullptr;
  const term::TermPool* pool_ = nullptr;
  std::string kernel_;
};

}  // namespace

bool is_ptx_path(const std::string& path) { return fs::path(path).extension() == ".ptx"; }

bool is_input_error(const rules::Finding& f) {
  // LP011, or a PTX file the checker refused to read (too large: LP000 "PATH.ptx: larger than ...").
  return f.rule_id == "LP011" || (f.rule_id == "LP000" && !f.loc.source && f.message.find(".ptx: ") != std::string::npos);
}

void check_ptx(const std::string& path, std::string text, const Config& config, const PtxSourcePolicy& sources,
               std::vector<rules::Finding>& findings, std::vector<rules::Obligation>& obligations) {
  auto src = std::make_shared<SourceText>();
  src->name = path;
  src->text = std::move(text);
  PtxReporter(path, src, config, sources, findings, obligations).run();
}

}  // namespace lp::rules
