#include "frontend/ptx/KernelFacts.h"

#include <cxxabi.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include "frontend/annotate/AnnotationParser.h"
#include "frontend/annotate/LaunchFacts.h"
#include "frontend/ptx/MergedAccess.h"
#include "frontend/sass/SassListing.h"
#include "analyzer/support/KernelName.h"
#include "analyzer/support/ReadFile.h"

namespace lp::ptx {

namespace fs = std::filesystem;

namespace {

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

/// The user's source files a PTX's `.file` directives name, read when the policy allows: under the
/// working directory, under the PTX file's directory, or named by the inputs (a PTX file from a
/// pull request cannot make the checker print another file's lines).
class Sources {
 public:
  Sources(const Module& m, const std::string& ptx_path, const std::set<std::string>& extra) : m_(m) {
    std::error_code ec;
    roots_.push_back(fs::weakly_canonical(fs::current_path(ec), ec));
    ptx_dir_ = fs::path(ptx_path).parent_path();
    roots_.push_back(fs::weakly_canonical(fs::absolute(ptx_path, ec).parent_path(), ec));
    for (const std::string& e : extra) extra_.insert(fs::weakly_canonical(fs::absolute(e, ec), ec).string());
  }

  struct File {
    std::shared_ptr<SourceText> text;
    std::vector<size_t> line_starts;
    std::optional<std::vector<cuda::KernelDefinition>> kernels;
    std::optional<annotate::ParseResult> annotations;
    bool unread_launches_reported = false;  ///< LaunchResolver::report_unread_launches
  };

  /// A location at FILE:LINE:COL of the user's source, when that file is readable.
  std::optional<SourceLoc> at(int file, int line, int col) {
    File* f = load(file);
    if (!f) return std::nullopt;
    return at(*f, line, col);
  }
  static std::optional<SourceLoc> at(const File& f, int line, int col) {
    if (line < 1 || static_cast<size_t>(line) > f.line_starts.size()) return std::nullopt;
    const size_t start = f.line_starts[static_cast<size_t>(line - 1)];
    const size_t end = f.text->text.find('\n', start);
    const size_t len = (end == std::string::npos ? f.text->text.size() : end) - start;
    return SourceLoc{f.text, start + std::min(len, static_cast<size_t>(std::max(col, 1) - 1))};
  }
  std::string name(int file) const {
    auto it = m_.files.find(file);
    return it == m_.files.end() ? fmt::format("<file {}>", file) : it->second;
  }

  File* load(int file) {
    auto it = m_.files.find(file);
    return it == m_.files.end() ? nullptr : load_path(it->second);
  }

  /// A readable file by its path as a `.file` directive or a line marker names it.
  File* load_path(const std::string& recorded) {
    auto it = cache_.find(recorded);
    if (it != cache_.end()) return it->second ? &*it->second : nullptr;
    std::optional<File>& slot = cache_[recorded];
    // nvcc records the path the source had where it was compiled: where that path does not exist
    // (PTX compiled elsewhere, or checked in), the file of that name next to the PTX is the source.
    std::optional<fs::path> found;
    std::string shown = recorded;
    for (const fs::path& candidate : {fs::path(recorded), ptx_dir_ / fs::path(recorded).filename()}) {
      std::error_code ec;
      const fs::path canon = fs::weakly_canonical(fs::absolute(candidate, ec), ec);
      if (ec || !fs::is_regular_file(canon, ec) || fs::file_size(canon, ec) > kMaxSourceFileBytes) continue;
      const bool allowed = extra_.count(canon.string()) ||
                           std::any_of(roots_.begin(), roots_.end(), [&](const fs::path& r) { return lies_within(canon, r); });
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

  /// The file's kernel definitions and annotations (its `launch` comments), read once.
  File& scanned(File& f) {
    if (!f.kernels) f.kernels = cuda::kernel_definitions(f.text->text, f.text->name);
    if (!f.annotations) f.annotations = annotate::parse_annotations(f.text->name, f.text->text);
    return f;
  }

 private:
  const Module& m_;
  fs::path ptx_dir_;
  std::vector<fs::path> roots_;
  std::set<std::string> extra_;
  std::map<std::string, std::optional<File>> cache_;
};

// ---- placement --------------------------------------------------------------------------------

Placement place(const Module& m, Sources& sources, const std::shared_ptr<const SourceText>& ptx, const SiteOrigin& o,
                const std::string& kernel, bool all_frames) {
  Placement p;
  const SourceLoc ptx_loc{ptx, o.pos};
  p.ptx_line = static_cast<int>(line_col_of(*ptx, o.pos).first);
  // Outermost first: each call site's frames, then the instruction's; `called` marks the first
  // frame inside a called (not inlined) function.
  std::vector<SourceFrame> frames;
  std::vector<char> called;
  auto append = [&](std::optional<size_t> loc) {
    if (!loc) return;
    auto f = source_frames(m, *loc);
    for (size_t k = 0; k < f.size(); ++k) called.push_back(k == 0 && !frames.empty());
    frames.insert(frames.end(), f.begin(), f.end());
  };
  for (const auto& loc : o.call_debug_locs) append(loc);
  append(o.debug_loc);
  for (const SourceFrame& f : frames)
    if (f.line > 0) p.lines.push_back(SourceLine{sources.name(f.file), f.line});
  std::optional<SourceLoc> user;
  if (!frames.empty() && frames.front().line > 0) user = sources.at(frames.front().file, frames.front().line, frames.front().col);
  p.loc = user ? *user : ptx_loc;
  // Frames in files the checker does not read (a library's headers outside the project) are
  // collapsed, a run of them into one note, unless every frame is asked for (`--frames all`).
  std::vector<Note> library_run;
  auto flush_library_run = [&] {
    if (library_run.size() < 2 || all_frames) {
      p.notes.insert(p.notes.end(), library_run.begin(), library_run.end());
    } else {
      p.notes.push_back(Note{{}, fmt::format("inlined through {} frames of library code, the innermost: {} (--frames all "
                                             "shows each)",
                                             library_run.size(), library_run.back().message)});
    }
    library_run.clear();
  };
  for (size_t k = 1; k < frames.size(); ++k) {
    const SourceFrame& f = frames[k];
    if (f.line <= 0) continue;
    auto loc = sources.at(f.file, f.line, f.col);
    auto fn = m.debug_strings.find(f.function_label);
    const std::string what = called[k] ? "in the called function" : "inlined";
    const std::string in = fn == m.debug_strings.end() ? "" : " in " + demangled(fn->second);
    if (loc) {
      flush_library_run();
      p.notes.push_back(Note{*loc, what + in});
    } else {
      library_run.push_back(Note{{}, fmt::format("{}{} at {}:{}:{}", what, in, sources.name(f.file), f.line, f.col)});
    }
  }
  flush_library_run();
  if (!frames.empty() && !user && frames.front().line > 0)
    p.notes.insert(p.notes.begin(), Note{SourceLoc{}, fmt::format("source: {}:{}:{} (not read)", sources.name(frames.front().file),
                                                                  frames.front().line, frames.front().col)});
  for (size_t k = 0; k < o.call_positions.size(); ++k) p.notes.push_back(Note{SourceLoc{ptx, o.call_positions[k]}, "called from here"});
  p.notes.push_back(Note{ptx_loc, fmt::format("the PTX instruction, in kernel {}", kernel)});
  return p;
}

// ---- launches ---------------------------------------------------------------------------------

std::string extents_text(const std::array<int64_t, 3>& d) { return fmt::format("({}, {}, {})", d[0], d[1], d[2]); }

std::array<int64_t, 3> padded(const std::vector<annotate::Number>& e) {
  std::array<int64_t, 3> d{1, 1, 1};
  for (size_t k = 0; k < e.size() && k < 3; ++k) d[k] = e[k].value;
  return d;
}

__extension__ using Int128 = __int128;

/// Whether some value of a `bits`-wide parameter satisfies every fact (each read as PtxEval reads
/// it: signed comparisons at the parameter's width, `%` as srem), exactly: the facts bound an
/// interval, and among |Ne|+1 consecutive multiples of the moduli's lcm inside it one is not
/// excluded when any is. A moduli lcm past 2^62 is not searched (taken as satisfiable).
bool satisfiable(const std::vector<ParamFact>& facts, int bits) {
  using R = ParamFact::Relation;
  Int128 lo = -(Int128{1} << (bits - 1)), hi = (Int128{1} << (bits - 1)) - 1, step = 1;
  std::set<Int128> excluded;
  for (const ParamFact& f : facts) {
    const Int128 v = f.value;
    switch (f.relation) {
      case R::Eq: lo = std::max(lo, v), hi = std::min(hi, v); break;
      case R::Ne: excluded.insert(v); break;
      case R::Lt: hi = std::min(hi, v - 1); break;
      case R::Le: hi = std::min(hi, v); break;
      case R::Gt: lo = std::max(lo, v + 1); break;
      case R::Ge: lo = std::max(lo, v); break;
      case R::MultipleOf: {
        if (v == 0) {  // x % 0 == x: the value is 0
          lo = std::max<Int128>(lo, 0), hi = std::min<Int128>(hi, 0);
          break;
        }
        const Int128 m = v < 0 ? -v : v;
        Int128 a = step, b = m;
        while (b != 0) a %= b, std::swap(a, b);
        step = step / a * m;
        if (step > (Int128{1} << 62)) return true;
        break;
      }
    }
  }
  if (lo > hi) return false;
  Int128 c = lo >= 0 ? (lo + step - 1) / step * step : -((-lo) / step * step);
  for (size_t n = 0; n <= excluded.size() && c <= hi; ++n, c += step)
    if (!excluded.count(c)) return true;
  return false;
}

/// Where a kernel is defined in its source and what that file says of its launches.
struct Definition {
  Sources::File* file = nullptr;
  const cuda::KernelDefinition* def = nullptr;
  std::vector<const annotate::LaunchDecl*> comments;
};

class LaunchResolver {
 public:
  LaunchResolver(CompiledModule& out, Sources& sources, const FrontEndInputs& in) : out_(out), sources_(sources), in_(in) {}

  /// The kernel's stated launches (EvalOptions::launches) and the text --verbose shows.
  std::vector<KernelLaunch> resolve(const Function& f, const std::string& name, std::string& how, std::vector<std::string>& params,
                                    SourceLoc& where) {
    const Definition def = definition(f, name);
    if (def.def) params = def.def->params;
    where = SourceLoc{out_.ptx, f.pos};
    if (def.def)
      if (auto loc = Sources::at(*def.file, static_cast<int>(def.def->line), 1)) where = *loc;
    const cuda::KernelName kernel = cuda::split_kernel_name(name);
    auto stated = [&](const std::vector<StatedLaunch>& list, const char* origin) {
      std::vector<const annotate::LaunchDecl*> decls;
      for (const StatedLaunch& s : list)
        if (s.kernel == "*" || cuda::launches_kernel(cuda::split_kernel_name(s.kernel), kernel)) decls.push_back(&s.facts);
      return from_decls(f, decls, def, origin, how);
    };
    if (auto l = stated(in_.option_launches, "--launch")) return *l;
    if (auto l = stated(in_.config_launches, "[ptx.launch] of the configuration")) return *l;
    if (auto l = from_decls(f, def.comments, def, "`launch` comments in the source", how)) return *l;
    if (in_.host_launches) return from_host(f, kernel, how);
    how = "any launch the hardware and the kernel's directives allow (no launch is stated)";
    return {};
  }

 private:
  Definition definition(const Function& f, const std::string& name) {
    Definition d;
    // The kernel's first source position names its file and a line inside its definition.
    std::optional<SourceFrame> first;
    for (const Instruction& ins : f.body)
      if (ins.debug_loc) {
        auto frames = source_frames(out_.module, *ins.debug_loc);
        if (!frames.empty() && frames.front().line > 0) {
          first = frames.front();
          break;
        }
      }
    if (!first) return d;
    Sources::File* file = sources_.load(first->file);
    if (!file) return d;
    sources_.scanned(*file);
    report_unread_launches(*file);
    const std::string base = cuda::split_kernel_name(name).base;
    const auto& defs = *file->kernels;
    for (const cuda::KernelDefinition& k : defs)
      if (k.name == base && static_cast<size_t>(first->line) >= k.line && static_cast<size_t>(first->line) <= k.end_line) d.def = &k;
    if (!d.def)
      for (const cuda::KernelDefinition& k : defs)
        if (k.name == base) d.def = d.def ? nullptr : &k;  // only when the name is unique
    d.file = file;
    // `launch` statements: those naming this kernel, and unnamed ones before its definition and
    // after the previous definition.
    size_t previous_end = 0;
    if (d.def)
      for (const cuda::KernelDefinition& k : defs)
        if (k.end_line < d.def->line) previous_end = std::max(previous_end, k.end_line);
    for (const annotate::Statement& s : file->annotations->statements) {
      const auto* l = std::get_if<annotate::LaunchDecl>(&s.body);
      if (!l) continue;
      const size_t line = line_col_of(*s.loc.source, s.loc.offset).first;
      if (l->kernel) {
        if (cuda::launches_kernel(cuda::split_kernel_name(l->kernel->text), cuda::split_kernel_name(name))) d.comments.push_back(l);
      } else if (d.def && line > previous_end && line < d.def->line) {
        d.comments.push_back(l);
      }
    }
    return d;
  }

  /// A `launch` comment of the source that cannot be read states no launch: each is an LP014
  /// error (with `check FILE.cu` it is LP000 too; with `--cuda` only the PTX is checked), once per file.
  void report_unread_launches(Sources::File& file) {
    if (file.unread_launches_reported) return;
    file.unread_launches_reported = true;
    for (const Diagnostic& d : file.annotations->diagnostics) {
      if (d.severity != Severity::Error || source_line(d.loc).find("launch") == std::string::npos) continue;
      LaunchProblem p;
      p.loc = d.loc;
      p.message = "this launch comment cannot be read, so it states no launch: " + d.message;
      p.notes = d.notes;
      out_.launch_problems.push_back(std::move(p));
    }
  }

  void problem(SourceLoc loc, std::string message, const Function& f) {
    LaunchProblem p;
    p.loc = std::move(loc);
    p.message = std::move(message);
    p.notes.push_back(Note{SourceLoc{out_.ptx, f.pos}, fmt::format("the kernel {}", demangled(f.name))});
    out_.launch_problems.push_back(std::move(p));
  }

  int64_t static_smem(const Function& f) const {
    int64_t total = 0;
    for (const SharedSymbol& s : out_.module.shared) total += s.bytes.value_or(0);
    for (const SharedSymbol& s : f.shared) total += s.bytes.value_or(0);
    return total;
  }

  /// Why a block, grid or dynamic shared memory no launch of `f` can have is impossible; empty if possible.
  /// Of a block some of whose extents are unknown, what its known extents already make impossible.
  std::string impossible_block(const Function& f, const hw::BlockExtents& b) const {
    const hw::LaunchLimits& L = out_.arch->launch;
    for (size_t d = 0; d < 3; ++d)
      if (b.extent[d] && *b.extent[d] < 1)
        return fmt::format("block {} has {} = {}; a block's extents are at least 1 (the launch fails)", b.text(),
                           std::string("xyz").substr(d, 1), *b.extent[d]);
    for (size_t d = 0; d < 3; ++d)
      if (b.extent[d] && *b.extent[d] > L.max_block_dim[d])
        return fmt::format("block {} has {} = {}; {} allows at most {}", b.text(), std::string("xyz").substr(d, 1),
                           *b.extent[d], out_.arch->name, L.max_block_dim[d]);
    const int64_t threads = b.known_threads();
    const char* at_least = b.exact() ? "" : "at least ";
    if (threads > L.max_threads_per_block)
      return fmt::format("block {} has {}{} threads; {} allows at most {} per block", b.text(), at_least, threads,
                         out_.arch->name, L.max_threads_per_block);
    if (f.reqntid)
      for (size_t d = 0; d < 3; ++d)
        if (b.extent[d] && *b.extent[d] != (*f.reqntid)[d])
          return fmt::format("block {} is not the kernel's .reqntid {}", b.text(), extents_text(*f.reqntid));
    if (f.maxntid) {
      const int64_t most = (*f.maxntid)[0] * (*f.maxntid)[1] * (*f.maxntid)[2];
      if (threads > most)
        return fmt::format("block {} has {}{} threads, more than the kernel's .maxntid {} allows ({}); the launch fails",
                           b.text(), at_least, threads, extents_text(*f.maxntid), most);
    }
    return "";
  }
  std::string impossible_grid(const std::array<int64_t, 3>& g) const {
    const hw::LaunchLimits& L = out_.arch->launch;
    for (size_t d = 0; d < 3; ++d)
      if (g[d] > L.max_grid_dim[d])
        return fmt::format("grid {} has {} = {}; {} allows at most {}", extents_text(g), std::string("xyz").substr(d, 1), g[d],
                           out_.arch->name, L.max_grid_dim[d]);
    return "";
  }
  std::string impossible_smem(const Function& f, int64_t bytes) const {
    const int64_t room = out_.arch->max_smem_bytes_per_block - static_smem(f);
    if (bytes > room)
      return fmt::format("dynamic_smem({}) is more than {} can give this kernel: {} bytes of shared memory per block less its "
                         "{} static bytes",
                         bytes, out_.arch->name, out_.arch->max_smem_bytes_per_block, static_smem(f));
    return "";
  }

  std::optional<std::vector<KernelLaunch>> from_decls(const Function& f, const std::vector<const annotate::LaunchDecl*>& decls,
                                                      const Definition& def, const char* origin, std::string& how) {
    if (decls.empty()) return std::nullopt;
    std::vector<KernelLaunch> out;
    std::vector<std::string> shown;
    for (const annotate::LaunchDecl* d : decls) {
      KernelLaunch l;
      bool ok = true;
      if (d->block) {
        l.block = hw::BlockExtents::exactly(padded(*d->block));
        if (std::string why = impossible_block(f, l.block); !why.empty()) problem(d->block_loc, why, f), ok = false;
      }
      if (d->grid) {
        l.grid = padded(*d->grid);
        if (std::string why = impossible_grid(*l.grid); !why.empty()) problem(d->grid_loc, why, f), ok = false;
      }
      if (d->dynamic_smem) {
        l.dynamic_smem = d->dynamic_smem->value;
        if (std::string why = impossible_smem(f, *l.dynamic_smem); !why.empty()) problem(d->dynamic_smem->loc, why, f), ok = false;
      }
      std::map<std::string, const annotate::LaunchParamFact*> first_fact;
      for (const annotate::LaunchParamFact& p : d->params) {
        auto fact = param_fact(f, def, p);
        if (!fact) ok = false;
        else l.params.push_back(*fact), first_fact.emplace(fact->param, &p);
      }
      // Facts no value satisfies would leave no launch, and every access proven vacuously.
      for (const auto& [param_name, at] : first_fact) {
        const std::string& name = param_name;  // clang 14 cannot capture a structured binding
        std::vector<ParamFact> of_param;
        for (const ParamFact& x : l.params)
          if (x.param == name) of_param.push_back(x);
        const auto param = std::find_if(f.params.begin(), f.params.end(), [&](const Param& q) { return q.name == name; });
        if (param != f.params.end() && !satisfiable(of_param, param->type->bits)) {
          problem(at->param.loc, fmt::format("no value of param {} satisfies every fact this launch states of it: it describes no "
                                             "launch and is not used", at->param.text), f);
          ok = false;
        }
      }
      if (!ok) continue;
      out.push_back(std::move(l));
      shown.push_back(annotate::launch_text(*d));
    }
    if (out.empty()) return std::nullopt;  // every stated launch was refused: the general domain
    std::string list;
    for (const std::string& s : shown) list += (list.empty() ? "" : "; ") + s;
    how = fmt::format("{} ({})", list, origin);
    return out;
  }

  std::optional<ParamFact> param_fact(const Function& f, const Definition& def, const annotate::LaunchParamFact& p) {
    size_t index = 0;
    if (p.by_position) {
      index = static_cast<size_t>(std::stoll(p.param.text));
      if (index >= f.params.size()) {
        problem(p.param.loc, fmt::format("param {}: the kernel has {} parameter{} (positions from 0)", index, f.params.size(),
                                         f.params.size() == 1 ? "" : "s"), f);
        return std::nullopt;
      }
    } else {
      const std::vector<std::string>* names = def.def ? &def.def->params : nullptr;
      auto it = names ? std::find(names->begin(), names->end(), p.param.text) : std::vector<std::string>::const_iterator{};
      if (!names || it == names->end() || names->size() != f.params.size()) {
        std::string known;
        if (names)
          for (const std::string& n : *names) known += (known.empty() ? "" : ", ") + (n.empty() ? "(unnamed)" : n);
        problem(p.param.loc,
                names ? fmt::format("param '{}' names no parameter of the kernel (its parameters: {}); a position (0, 1, ...) "
                                    "names one too", p.param.text, known.empty() ? "none" : known)
                      : fmt::format("param '{}': the kernel's definition is not in a source the checker reads; name the "
                                    "parameter by its position (0, 1, ...)", p.param.text),
                f);
        return std::nullopt;
      }
      index = static_cast<size_t>(it - names->begin());
    }
    const Param& param = f.params[index];
    if (!param.type || param.type->is_float || param.type->bits > 64) {
      problem(p.param.loc, fmt::format("param {}: only integer and pointer parameters have facts", p.param.text), f);
      return std::nullopt;
    }
    const int bits = param.type->bits;
    const int64_t v = p.value.value;
    if (bits < 64 && (v >= (int64_t{1} << bits) || v < -(int64_t{1} << (bits - 1)))) {
      problem(p.value.loc, fmt::format("{} does not fit the parameter's {} bits", v, bits), f);
      return std::nullopt;
    }
    ParamFact fact;
    fact.param = param.name;
    fact.value = v;
    fact.relation = static_cast<ParamFact::Relation>(static_cast<int>(p.relation));
    return fact;
  }

  std::vector<KernelLaunch> from_host(const Function& f, const cuda::KernelName& kernel, std::string& how) {
    std::vector<KernelLaunch> out;
    std::vector<std::string> where;
    for (const cuda::HostLaunch& h : *in_.host_launches) {
      if (!cuda::launches_kernel(cuda::split_kernel_name(h.kernel), kernel)) continue;
      const std::string at = fmt::format("{}:{}", h.file, h.line);
      if (!h.block.any_known()) {
        how = fmt::format("any legal launch: it is launched at {} with a block that is not a constant ({})", at, h.not_constant);
        return {};
      }
      KernelLaunch l;
      l.block = h.block;
      l.grid = h.grid;
      l.dynamic_smem = h.dynamic_smem;
      std::string why = impossible_block(f, l.block);
      if (why.empty() && l.grid) why = impossible_grid(*l.grid);
      if (why.empty() && l.dynamic_smem) why = impossible_smem(f, *l.dynamic_smem);
      if (!why.empty()) {
        std::optional<SourceLoc> loc;
        if (Sources::File* file = sources_.load_path(h.file)) loc = Sources::at(*file, static_cast<int>(h.line), 1);
        problem(loc.value_or(SourceLoc{}), fmt::format("the launch at {}: {}", at, why), f);
        continue;
      }
      out.push_back(l);
      where.push_back(fmt::format("block {}{}{} at {}{}", l.block.text(), l.grid ? " grid " + extents_text(*l.grid) : "",
                                  l.dynamic_smem ? fmt::format(" dynamic_smem {}", *l.dynamic_smem) : "", at,
                                  h.not_constant.empty() ? "" : fmt::format(", whose ? is not a constant ({})", h.not_constant)));
    }
    if (out.empty()) {
      if (how.empty()) how = "any legal launch: its translation unit does not launch it";
      return {};
    }
    std::string list;
    for (const std::string& w : where) list += (list.empty() ? "" : "; ") + w;
    how = fmt::format("{} (the translation unit's launch{})", list, out.size() == 1 ? "" : "es");
    return out;
  }

  CompiledModule& out_;
  Sources& sources_;
  const FrontEndInputs& in_;
};

// ---- accesses ---------------------------------------------------------------------------------

AccessFact access_fact(const CompiledModule& m, const Site& s, size_t index, Placement at) {
  AccessFact a;
  a.site = index;
  a.what = fmt::format("{} (PTX line {})", s.opcode, at.ptx_line);
  a.at = std::move(at);
  a.unknown = s.unknown;
  a.cost_unknown = s.cost_unknown;
  if (a.unknown || s.kind == SiteKind::Atomic || s.kind == SiteKind::NotPerLane) return a;
  if (!s.instr) {
    a.unknown = fmt::format("no bank model for a {}-byte access", s.bytes);
    return a;
  }
  a.instr = s.instr;
  if (!hw::available_on(*a.instr, *m.arch)) a.unknown = fmt::format("{} does not exist on {}", a.instr->name, m.arch->name);
  return a;
}

// What the module's cubin shows: the probe (the module with its placement markers), its SASS, and
// the shared variables' placement read from it; or why there is none.
struct Cubin {
  PlacementProbe probe;
  std::optional<sass::Listing> listing;
  SharedPlacement placement;
  std::string missing;  ///< why there is no listing
};

// A probe that cannot be built, assembled or read leaves every kernel unplaced, with the reason.
Cubin cubin_of(const Module& m, const FrontEndInputs& inputs) {
  Cubin c;
  auto unplaced = [&](const std::string& why) {
    c.missing = why;
    for (const Function& f : m.functions) c.placement.unplaced[f.name] = why;
  };
  if (!inputs.disassemble) {
    unplaced("no cubin was built (a PTX file checked alone)");
    return c;
  }
  try {
    c.probe = placement_probe(m);
    const std::string target = m.target.substr(0, m.target.find_first_of(", "));
    c.listing = sass::read_listing(inputs.disassemble(c.probe.ptx, target));
    c.placement = read_placement(m, c.probe, *c.listing);
  } catch (const std::exception& e) {
    c.listing.reset();
    unplaced(std::string("the cubin is not read: ") + e.what());
  }
  return c;
}

// Marks the accesses ptxas merged (their conflicts judged as the merged SASS instruction); returns
// what --verbose says of the kernel's SASS.
std::string apply_merges(const CompiledModule& m, const KernelResult& r, const Cubin& cubin, KernelFacts& facts) {
  if (!cubin.listing) return "judged at PTX level: " + cubin.missing;
  const sass::Function* code = cubin.listing->function(r.name);
  if (!code) return "judged at PTX level: the kernel is not in the cubin's disassembly";
  std::map<size_t, size_t> fact_of_site;
  for (size_t i = 0; i < facts.accesses.size(); ++i) fact_of_site[facts.accesses[i].site] = i;
  const std::vector<MergedAccess> merges =
      merged_accesses(m.module, r, *code, [&](int line) { return cubin.probe.original_line(line); });
  size_t judged = 0;
  for (const MergedAccess& g : merges) {
    const Site& lowest = r.sites[g.sites.front()];
    const hw::SmemInstr* instr = nullptr;
    for (const hw::SmemInstr& i : hw::smem_instr_catalog())
      if (i.sass == g.sass && (i.direction == hw::SmemDirection::Store) == g.store) instr = &i;
    if (!instr || !hw::available_on(*instr, *m.arch)) continue;
    std::vector<size_t> members;
    for (size_t site : g.sites)
      if (auto it = fact_of_site.find(site); it != fact_of_site.end() && !facts.accesses[it->second].unknown) members.push_back(it->second);
    if (members.size() != g.sites.size()) continue;
    std::sort(members.begin(), members.end());  // PTX order
    std::string lines;
    for (size_t i = 0; i < members.size(); ++i)
      lines += fmt::format("{}{}", i == 0 ? "" : i + 1 == members.size() ? " and " : ", ", facts.accesses[members[i]].at.ptx_line);
    const std::string opcode = fmt::format("{} (ptxas merged {} {})", g.sass, members.size(), lowest.opcode);
    const std::string what = fmt::format("{} (ptxas merged {} {}, PTX lines {})", g.sass, members.size(), lowest.opcode, lines);
    const Note note{SourceLoc{}, fmt::format("ptxas runs the {} PTX instructions as one {} (the disassembly of this build's cubin): "
                                             "the hardware's cost is that instruction's",
                                             members.size(), g.sass)};
    for (size_t i : members)
      facts.accesses[i].merged = AccessFact::Merged{opcode, what, note, instr, g.sites.front(), i == members.front()};
    ++judged;
  }
  return fmt::format("judged as the cubin runs them: {} merged SASS instruction{}", judged, judged == 1 ? "" : "s");
}

// A shared variable as a kernel names it (its own, or the module's).
const SharedSymbol* shared_symbol_of(const Module& m, const std::string& kernel, const std::string& name) {
  const Function* f = m.function(kernel);
  return f ? m.shared_symbol(*f, name) : nullptr;
}

// Whether a function's body reads %reserved_smem_offset_0 or _1 (cooperative groups' scratch).
bool reads_reserved_offsets(const Function& f) {
  for (const Instruction& i : f.body)
    for (const Operand& o : i.operands)
      if (o.kind == Operand::Kind::Register &&
          (o.name == "%reserved_smem_offset_0" || o.name == "%reserved_smem_offset_1"))
        return true;
  return false;
}

// What the evaluator assumes of those offsets (PtxEval's reserved_smem), for --verbose.
std::string reserved_text(const hw::Arch& arch) {
  if (arch.reserved_smem_bytes == 0)
    return fmt::format("; %reserved_smem_offset_0/1 anywhere ({} reserves a region the model does not know)", arch.name);
  return fmt::format("; %reserved_smem_offset_0/1 multiples of {} inside the {} bytes {} reserves (docs/ptx.md)",
                     hw::kReservedSmemOffsetAlignment, arch.reserved_smem_bytes, arch.name);
}

std::string placement_text(const Module& m, const SharedPlacement& p, const std::string& kernel) {
  if (auto it = p.offsets.find(kernel); it != p.offsets.end()) {
    std::string text;
    for (const auto& [symbol, offset] : it->second) {
      const SharedSymbol* s = shared_symbol_of(m, kernel, symbol);
      text += fmt::format("{}'{}' at byte {} (.align {})", text.empty() ? "" : ", ", demangled(symbol), offset, s ? s->align : 1);
    }
    return "as the cubin places them: " + text;
  }
  auto why = p.unplaced.find(kernel);
  return "at any offset their .align allows: " + (why == p.unplaced.end() ? std::string("it names none") : why->second);
}

// A note on an access whose alignment rests on the cubin's placement: its variable's `.align` is
// smaller than the access, and the offset ptxas chose is aligned to it.
std::optional<Note> placement_note(const Module& m, const SharedPlacement& p, const std::string& kernel, const Site& site) {
  auto it = p.offsets.find(kernel);
  if (!site.symbol || it == p.offsets.end()) return std::nullopt;
  auto placed = it->second.find(*site.symbol);
  const SharedSymbol* s = shared_symbol_of(m, kernel, *site.symbol);
  if (placed == it->second.end() || !s || s->align >= site.bytes) return std::nullopt;
  return Note{SourceLoc{}, fmt::format("ptxas placed '{}' at byte {} of shared memory in this build's cubin; its PTX declaration "
                                       "promises only .align {}, so another compile may place it elsewhere",
                                       demangled(*site.symbol), placed->second, s->align)};
}

}  // namespace

std::string demangled(const std::string& name) {
  // Only a mangled name is demangled: "s" alone reads as the type `short` to the demangler.
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && d ? std::string(d.get()) : name;
}

std::unique_ptr<CompiledModule> read_compiled_module(const std::string& path, std::string text, const FrontEndInputs& inputs) {
  auto src = std::make_shared<SourceText>();
  src->name = path;
  src->text = std::move(text);
  return read_compiled_module(std::move(src), inputs);
}

std::string inputs_key(const FrontEndInputs& inputs) {
  std::string key;
  for (const std::string& e : inputs.extra_sources) key += "source " + e + "\n";
  if (inputs.kernel_filter) key += "kernels " + *inputs.kernel_filter + "\n";
  if (inputs.all_frames) key += "all frames\n";
  if (inputs.disassemble) key += "placement by " + inputs.disassembler_key + "\n";
  for (const auto* list : {&inputs.option_launches, &inputs.config_launches})
    for (const StatedLaunch& l : *list) key += fmt::format("launch {} {}\n", l.kernel, annotate::launch_text(l.facts));
  if (inputs.host_launches)
    for (const cuda::HostLaunch& h : *inputs.host_launches)
      key += fmt::format("host {} {}:{} {} {} {} {}\n", h.kernel, h.file, h.line, h.block.text(),
                         h.grid ? extents_text(*h.grid) : "-", h.dynamic_smem ? std::to_string(*h.dynamic_smem) : "-",
                         h.not_constant);
  return key;
}

std::string sources_key(const std::string& ptx_path, std::string_view ptx_text, const FrontEndInputs& inputs) {
  // The `.file` directives, found by their lines alone: a key may name more files than the reader
  // would accept, never fewer.
  Module named;
  size_t at = 0;
  while (at < ptx_text.size()) {
    size_t end = ptx_text.find('\n', at);
    if (end == std::string_view::npos) end = ptx_text.size();
    std::string_view line = ptx_text.substr(at, end - at);
    at = end + 1;
    const size_t start = line.find_first_not_of(" \t");
    if (start == std::string_view::npos || line.substr(start, 5) != ".file") continue;
    line.remove_prefix(start + 5);
    const size_t open = line.find('"'), close = open == std::string_view::npos ? open : line.find('"', open + 1);
    if (close == std::string_view::npos) continue;
    const int number = std::atoi(std::string(line.substr(0, open)).c_str());
    named.files[number] = std::string(line.substr(open + 1, close - open - 1));
  }
  Sources sources(named, ptx_path, inputs.extra_sources);
  std::string key;
  for (const auto& [number, path] : named.files) {
    const Sources::File* f = sources.load(number);
    key += fmt::format("file {} {}: {}\n", number, path, f ? std::to_string(f->text->text.size()) + " bytes " + f->text->name : "unread");
    if (f) key += f->text->text;
  }
  return key;
}

std::unique_ptr<CompiledModule> read_compiled_module(std::shared_ptr<const SourceText> src, const FrontEndInputs& inputs) {
  auto out = std::make_unique<CompiledModule>();
  const std::string path = inputs.ptx_path.value_or(src->name);
  out->ptx = src;
  try {
    out->module = read_ptx(src);
  } catch (const DiagnosticError& e) {
    out->read_error = e.diagnostic();
    return out;
  }
  std::tie(out->arch, out->arch_note) = arch_for_target(out->module.target);
  Sources sources(out->module, path, inputs.extra_sources);
  LaunchResolver resolver(*out, sources, inputs);
  EvalOptions options;
  options.arch = out->arch;
  std::map<std::string, std::string> how;
  std::map<std::string, std::vector<std::string>> param_names;
  std::map<std::string, SourceLoc> where;
  if (inputs.kernel_filter) {
    const std::regex filter = kernel_pattern(*inputs.kernel_filter);
    options.only.emplace();
    for (const Function& f : out->module.functions)
      if (std::regex_search(f.name, filter) || std::regex_search(demangled(f.name), filter)) options.only->insert(f.name);
  }
  for (const Function& f : out->module.functions) {
    if (!f.is_entry || !f.has_body || (options.only && !options.only->count(f.name))) continue;
    std::vector<KernelLaunch> launches = resolver.resolve(f, demangled(f.name), how[f.name], param_names[f.name], where[f.name]);
    if (!launches.empty()) options.launches[f.name] = std::move(launches);
  }
  const Cubin cubin = cubin_of(out->module, inputs);
  options.placement = cubin.placement.offsets;
  const SharedPlacement& placement = cubin.placement;
  analyze(out->module, options, out->analysis);
  for (size_t k = 0; k < out->analysis.kernels.size(); ++k) {
    const KernelResult& r = out->analysis.kernels[k];
    KernelFacts facts;
    facts.result = k;
    facts.name = demangled(r.name);
    facts.launch = how.count(r.name) ? how[r.name] : "its parameters unknown (a function no kernel calls)";
    facts.placement = placement_text(out->module, placement, r.name);
    if (const Function* f = out->module.function(r.name); f && reads_reserved_offsets(*f)) facts.placement += reserved_text(*out->arch);
    facts.where = where.count(r.name) ? where[r.name] : SourceLoc{src, r.pos};
    if (const Function* f = out->module.function(r.name)) {
      const auto& names = param_names[r.name];
      for (size_t p = 0; p < f->params.size(); ++p)
        facts.uniform_names[f->params[p].name] =
            p < names.size() && !names[p].empty() ? fmt::format("{} (parameter {})", names[p], p) : fmt::format("parameter {}", p);
    }
    for (const Issue& issue : r.issues) facts.issues.emplace_back(place(out->module, sources, src, issue.origin, facts.name, inputs.all_frames), issue.message);
    for (size_t s = 0; s < r.sites.size(); ++s) {
      const Site& site = r.sites[s];
      AccessFact a = access_fact(*out, site, s, place(out->module, sources, src, site.origin, facts.name, inputs.all_frames));
      if (std::optional<Note> n = placement_note(out->module, placement, r.name, site)) a.at.notes.push_back(std::move(*n));
      (site.kind == SiteKind::NotPerLane ? facts.descriptors : facts.accesses).push_back(std::move(a));
    }
    facts.sass = apply_merges(*out, r, cubin, facts);
    out->kernels.push_back(std::move(facts));
  }
  return out;
}

std::string KernelFacts::shown_uniform(const std::string& name) const {
  for (const auto& [param, shown] : uniform_names)
    if (name == param) return shown;
    else if (name.rfind(param + "+", 0) == 0) return shown + name.substr(param.size());
  return demangled(name);
}

}  // namespace lp::ptx
