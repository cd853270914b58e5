#include "rules/Checker.h"

#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "frontend/annotate/AnnotationParser.h"
#include "analyzer/support/Governor.h"
#include "analyzer/support/ReadFile.h"
#include "analyzer/support/Version.h"
#include "rules/BufferGraph.h"
#include "rules/CuteDefinitions.h"
#include "rules/Origins.h"
#include "rules/ResultCache.h"
#include "rules/Rule.h"
#include "solver/ToolVersions.h"

namespace lp::rules {

namespace fs = std::filesystem;

namespace {

bool annotatable(const fs::path& p) {
  static const std::set<std::string> kExt = {".c", ".cc", ".cpp", ".cxx", ".h", ".hpp", ".cu", ".cuh", ".py", ".lp", ".ptx"};
  return kExt.count(p.extension().string()) != 0;
}


// ---- one file ------------------------------------------------------------------------------

// A finding of LP000 about the checking itself: it fails the gate.
rules::Finding run_problem(SourceLoc loc, std::string message, rules::FindingKind kind) {
  rules::Finding f;
  f.rule_id = "LP000";
  f.severity = Severity::Error;
  f.kind = kind;
  f.loc = std::move(loc);
  f.message = std::move(message);
  f.fingerprint = "LP000:" + f.message;
  return f;
}

// What every file of a run shares: the CuTe definitions of all its files (rule LP012), and the
// files whose lines findings on generated statements may show (rules/Origins.h).
struct RunContext {
  CorePool* cores = nullptr;  ///< the run's cores no file's thread holds (Parallel.h)
  CuteDefinitions cute;
  std::string cute_text;  ///< every definition, as written: part of the cache key of files that name one
  std::set<std::string> shown;
  /// The run's compiled modules, read once before the files are checked when an annotation names a
  /// compiled kernel (rule LP015), by path; what they rest on is part of those files' cache key.
  RunCompiled compiled;
  std::map<std::string, std::shared_ptr<const ptx::CompiledModule>> compiled_by_path;
  std::string compiled_key;
};

// Whether an annotated file names a compiled kernel (`expect ACCESS compiled "KERNEL" ...`): only
// then does it depend on the run's PTX.
bool names_compiled_kernel(std::string_view text) {
  for (size_t at = text.find("compiled"); at != std::string_view::npos; at = text.find("compiled", at + 1)) {
    size_t i = at + 8;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i < text.size() && text[i] == '"') return true;
  }
  return false;
}

// Every rule over one file's facts: its annotations, and a compiled module's facts when it is one.
FileResult check_text(const annotate::ParseResult& parsed, const Config& config, const RunContext* run,
                      const ptx::CompiledModule* compiled = nullptr, CorePool* cores = nullptr) {
  FileResult r;
  BufferGraph graph(parsed);
  AlgebraSteps algebra(parsed, graph, config.engine, config.limits);
  FileContext ctx{parsed, graph, algebra, config, run ? &run->cute : nullptr, compiled, run ? &run->compiled : nullptr, cores};
  for (const Rule* rule : all_rules()) {
    if (!config.severity_of(rule->info())) continue;  // an "off" rule reports nothing, so it decides nothing
    FindingSink sink(rule->info(), config, r.findings, r.obligations);
    // A rule stopped by the run's budget leaves its remaining obligations undecided: one unknown
    // says so, and the rules after it still run.
    const SourceLoc file_start{parsed.source, 0};
    try {
      rule->check(ctx, sink);
    } catch (const BudgetExhausted& e) {
      r.findings.push_back(run_problem(file_start, fmt::format("{} stopped before its last obligation: {}",
                                                               rule->info().id, e.what()),
                                       rules::FindingKind::Unknown));
      r.findings.back().limited = true;
    } catch (const std::bad_alloc&) {
      r.findings.push_back(run_problem(file_start, fmt::format("{} stopped before its last obligation: the "
                                                               "system refused memory", rule->info().id),
                                       rules::FindingKind::Unknown));
      r.findings.back().limited = true;
    }
  }
  return r;
}

// A file that cannot be read (permissions, an I/O error, not a regular file, grown past the size
// limit since it was listed) is an LP000 error of its own; `why` is "PATH: PROBLEM".
rules::Finding unreadable(const std::string& why) { return run_problem({}, why, rules::FindingKind::Invalid); }

// A file's bytes, read as every file a user names is (read_regular_file: never more than the limit,
// a FIFO or a device refused). nullopt: not read, and `why` says why.
std::optional<std::string> read_bounded(const std::string& path, std::string& why) {
  try {
    return read_regular_file(path, kMaxSourceFileBytes);
  } catch (const FileReadError& e) {
    why = e.what();
    return std::nullopt;
  }
}

// Findings on generated statements move to the generating call site; its line is shown when the
// file is one the run reads anyway.
void move_findings(const annotate::ParseResult& parsed, FileResult& r, const RunContext& run) {
  move_to_origins(parsed, r.findings, [&](const std::string& file) -> std::optional<std::string> {
    if (!run.shown.count(file)) return std::nullopt;
    std::string why;
    return read_bounded(file, why);
  });
}

// A PTX file as the front end reads it: its text under the name it is shown as (a compiled unit's
// PTX that is not kept: `<PTX of a.cu for sm_90>`), and what the front end reads besides: the
// unit's inputs for a PTX the run compiled, else the run's; the configuration's launches.
std::pair<std::shared_ptr<SourceText>, ptx::FrontEndInputs> ptx_input(const CheckOptions& opt, const std::string& path,
                                                                      std::string text) {
  auto ptx = std::make_shared<SourceText>();
  auto compiled = opt.compiled.find(path);
  ptx::FrontEndInputs inputs = compiled == opt.compiled.end() ? opt.ptx : compiled->second.inputs;
  inputs.config_launches = opt.config.ptx_launches;
  ptx->name = compiled == opt.compiled.end() ? path : compiled->second.shown_as;
  if (ptx->name != path) inputs.ptx_path = path;
  ptx->text = std::move(text);
  return {std::move(ptx), std::move(inputs)};
}

// What a compiled module's facts rest on besides its text. Not its path: `check --cuda` writes the
// same PTX to a new temporary file every run.
std::string compiled_key(const std::string& path, const SourceText& ptx, const ptx::FrontEndInputs& inputs) {
  return ptx::inputs_key(inputs) + ptx::sources_key(path, ptx.text, inputs);
}

// A compiled kernel: the PTX front end's facts (frontend/ptx/KernelFacts.h) judged by every rule,
// through the same door as annotations.
FileResult check_compiled(std::shared_ptr<const ptx::CompiledModule> compiled, CorePool* cores, const Config& config) {
  annotate::ParseResult none;
  none.source = compiled->ptx;
  FileResult r = check_text(none, config, nullptr, compiled.get(), cores);
  for (const ptx::KernelFacts& k : compiled->kernels) {
    r.assumptions.push_back(Note{k.where, fmt::format("kernel {}: launched with {}", k.name, k.launch)});
    r.assumptions.push_back(Note{k.where, fmt::format("kernel {}: shared variables {}", k.name, k.placement)});
    r.assumptions.push_back(Note{k.where, fmt::format("kernel {}: shared-memory instructions {}", k.name, k.sass)});
  }
  return r;
}

FileResult check_file(const std::string& path, const CheckOptions& opt, const RunContext& run, const ResultCache* cache,
                      bool& stored) {
  std::string why;
  std::optional<std::string> read = read_bounded(path, why);
  if (!read) return FileResult{{unreadable(why)}, {}, {}};
  std::string text = std::move(*read);
  if (is_ptx_path(path)) {
    // Cached by the PTX's content and everything else its results rest on (the launches, the
    // configuration, the source files it names as this run may read them: their launch comments);
    // the entry also holds the content of each source file its findings quote.
    auto [ptx, inputs] = ptx_input(opt, path, std::move(text));
    const std::string key = cache ? ResultCache::key("", ptx->text, opt.config, compiled_key(path, *ptx, inputs)) : "";
    if (cache)
      if (auto hit = cache->lookup(key, ptx)) {
        for (Finding& f : hit->findings)  // the key holds the content, not the name it is shown under
          for (CompiledInstance& c : f.compiled) c.ptx = ptx->name;
        return std::move(*hit);
      }
    Stopwatch clock;
    auto read = run.compiled_by_path.find(path);
    std::shared_ptr<const ptx::CompiledModule> module;
    if (read != run.compiled_by_path.end()) module = read->second;
    else module = ptx::read_compiled_module(ptx, inputs);
    FileResult r = check_compiled(std::move(module), run.cores, opt.config);
    if (cache) stored |= cache->store(key, r, clock.elapsed_ms(), ptx);
    return r;
  }
  const std::string key =
      cache ? ResultCache::key(path, text, opt.config,
                               (mentions_cute(text) ? run.cute_text : "") + (names_compiled_kernel(text) ? run.compiled_key : ""))
            : std::string();
  annotate::ParseResult parsed = annotate::parse_annotations(path, std::move(text));
  FileResult r;
  // A file without statements costs nothing an entry would save (ResultCache.h).
  if (!cache || parsed.statements.empty()) {
    r = check_text(parsed, opt.config, &run);
  } else if (auto hit = cache->lookup(key, parsed.source)) {
    r = std::move(*hit);
  } else {
    Stopwatch clock;
    r = check_text(parsed, opt.config, &run);
    stored |= cache->store(key, r, clock.elapsed_ms(), parsed.source);
  }
  move_findings(parsed, r, run);
  return r;
}

// Files beyond the scanner's size limit are reported, not read (following a symlink for its size).
bool too_large(const std::string& path, std::vector<std::string>& errors) {
  if (is_ptx_path(path)) return false;  // the PTX reader refuses it, as LP011
  std::error_code ec;
  const uintmax_t size = fs::file_size(path, ec);
  if (ec || size <= kMaxSourceFileBytes) return false;
  errors.push_back(fmt::format("{}: larger than {} bytes, not read", path, kMaxSourceFileBytes));
  return true;
}

// Directories nested deeper than this under a checked path are reported, not entered.
constexpr int kMaxDirectoryDepth = 128;

std::string link_problem(const fs::path& p, const std::error_code& ec) {
  if (ec == std::errc::too_many_symbolic_link_levels) return fmt::format("{}: symbolic link loop, not read", p.string());
  return fmt::format("{}: cannot be resolved: {}", p.string(), ec.message());
}

// The annotatable files under `dir`. Anything the walk cannot read (a directory without
// permission, an I/O error) is an error: an unread part of the tree must never pass silently.
// Symlinked directories are not followed, so a link loop cannot recurse. A symlink is looked
// at only when its name would be checked; it is read only when it resolves to a file inside
// `root`: a link in a checked tree (a pull request) never makes the checker read, and report
// lines of, files elsewhere.
void walk(const fs::path& dir, const fs::path& root, const std::string& given, int depth, std::vector<std::string>& out,
          std::vector<std::string>& errors) {
  if (depth > kMaxDirectoryDepth) {
    errors.push_back(fmt::format("{}: nested more than {} directories deep, not read", dir.string(), kMaxDirectoryDepth));
    return;
  }
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  if (ec) {
    errors.push_back(fmt::format("{}: cannot be read: {}", dir.string(), ec.message()));
    return;
  }
  for (; it != end; it.increment(ec)) {
    const fs::path p = it->path();
    std::error_code e2;
    if (it->is_symlink(e2)) {
      if (!annotatable(p)) continue;
      const bool there = fs::exists(p, e2);
      if (e2) {
        errors.push_back(link_problem(p, e2));
      } else if (!there) {
        errors.push_back(fmt::format("{}: dangling symbolic link", p.string()));
      } else if (fs::is_regular_file(p, e2)) {
        const fs::path target = fs::canonical(p, e2);
        if (e2 || !lies_within(target, root))  // an unresolved root: follow no link
          errors.push_back(fmt::format("{}: symbolic link to a file outside {}, not read", p.string(), given));
        else if (!too_large(p.string(), errors))
          out.push_back(p.string());
      }
      continue;
    }
    if (it->is_directory(e2)) {
      walk(p, root, given, depth + 1, out, errors);
      continue;
    }
    if (e2) {
      errors.push_back(fmt::format("{}: cannot be read: {}", p.string(), e2.message()));
      continue;
    }
    if (it->is_regular_file(e2) && annotatable(p) && !too_large(p.string(), errors)) out.push_back(p.string());
  }
  if (ec) errors.push_back(fmt::format("{}: cannot be read completely: {}", dir.string(), ec.message()));
}

}  // namespace

bool is_ptx_path(const std::string& path) { return fs::path(path).extension() == ".ptx"; }

bool is_input_error(const rules::Finding& f) { return f.rule_id == "LP011"; }

std::vector<std::string> collect_files(const std::vector<std::string>& paths, std::vector<std::string>& errors) {
  std::vector<std::string> out;
  for (const std::string& p : paths) {
    std::error_code ec;
    fs::file_status st = fs::status(p, ec);
    if (ec == std::errc::too_many_symbolic_link_levels) {
      errors.push_back(link_problem(p, ec));
      continue;
    }
    if (ec && ec != std::errc::no_such_file_or_directory) {
      errors.push_back(fmt::format("{}: cannot be read: {}", p, ec.message()));
      continue;
    }
    if (!fs::exists(st)) {
      errors.push_back(fmt::format("{}: {}", p, fs::is_symlink(fs::symlink_status(p, ec)) ? "dangling symbolic link"
                                                                                          : "no such file or directory"));
      continue;
    }
    if (fs::is_regular_file(st)) {
      // Named explicitly: checked whatever its extension (the scanner decides), within the size limit.
      if (too_large(p, errors)) continue;
      out.push_back(p);
      continue;
    }
    if (!fs::is_directory(st)) {
      errors.push_back(fmt::format("{}: not a regular file or directory", p));
      continue;
    }
    walk(p, fs::weakly_canonical(p, ec), p, 0, out, errors);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// The run's budget, installed in every worker (analyzer/support/Governor.h).
Budget run_budget(const Config& config) {
  Budget budget;
  if (config.time_budget_s) {
    budget.deadline = Budget::after(*config.time_budget_s);
    budget.deadline_name = "the run's time budget (--time-budget)";
  }
  budget.memory_bytes = uint64_t{config.limits.memory_mb} << 20;
  budget.memory_name = "the run's memory budget ([solver] memory-mb)";
  return budget;
}

namespace {

// A run with its metadata and no results yet.
rules::CheckRun empty_run() {
  rules::CheckRun run;
  run.tool_version = kToolVersion;
  run.versions = tool_versions();
  for (const Rule* r : all_rules()) run.rules.push_back(r->info());
  return run;
}

// Whatever stops one file (the budget, memory the system refuses, a bug) is reported with it; it
// never ends the run or leaves the file silently unchecked.
template <class Check>
FileResult check_guarded(const std::string& path, Check&& check) {
  try {
    return check();
  } catch (const BudgetExhausted& e) {
    return FileResult{{run_problem({}, fmt::format("{} was not checked: {}", path, e.what()), rules::FindingKind::Unknown)},
                      {}, {}};
  } catch (const std::bad_alloc&) {
    return FileResult{
        {run_problem({}, fmt::format("{} was not checked: the system refused memory", path), rules::FindingKind::Unknown)},
        {}, {}};
  } catch (const std::exception& e) {
    return FileResult{
        {run_problem({}, fmt::format("internal error while checking {}: {}", path, e.what()), rules::FindingKind::Invalid)},
        {}, {}};
  }
}

void append(rules::CheckRun& run, FileResult& r) {
  for (auto& f : r.findings) run.findings.push_back(std::move(f));
  for (auto& o : r.obligations) run.obligations.push_back(std::move(o));
  for (auto& n : r.assumptions) run.assumptions.push_back(std::move(n));
}

// Every PTX file of the run, read before the files are checked (when an annotated file names a
// compiled kernel, rule LP015): the rules of every file see them all, and the PTX's own check
// reuses them.
void read_run_compiled(const std::vector<std::string>& files, const CheckOptions& opt, const Budget& budget,
                       RunContext& run) {
  BudgetScope scope(budget);
  for (const std::string& f : files) {
    if (!is_ptx_path(f)) continue;
    std::string why;
    std::optional<std::string> text = read_bounded(f, why);
    if (!text) continue;  // reported when the file itself is checked
    auto [ptx, inputs] = ptx_input(opt, f, std::move(*text));
    run.compiled_key += fmt::format("{}\n{:016x}\n{}\n", ptx->name, XXH3_64bits(ptx->text.data(), ptx->text.size()),
                                    compiled_key(f, *ptx, inputs));
    try {
      std::shared_ptr<const ptx::CompiledModule> m = ptx::read_compiled_module(ptx, inputs);
      run.compiled.modules.push_back(m);
      run.compiled_by_path.emplace(f, std::move(m));
    } catch (const BudgetExhausted& e) {
      run.compiled.incomplete = fmt::format("{} was not read: {}", f, e.what());
      return;
    } catch (const std::bad_alloc&) {
      run.compiled.incomplete = fmt::format("{} was not read: the system refused memory", f);
      return;
    }
  }
}

}  // namespace

rules::CheckRun check_paths(const std::vector<std::string>& paths, const CheckOptions& options) {
  const CheckOptions& opt = options;
  const Budget budget = run_budget(opt.config);
  rules::CheckRun run = empty_run();
  std::vector<std::string> errors;
  run.files = collect_files(paths, errors);
  for (const std::string& e : errors) run.findings.push_back(run_problem({}, e, rules::FindingKind::Invalid));
  // The CuTe definitions of every file (only files that mention one are parsed for them).
  RunContext shared;
  bool names_compiled = false;  // some annotated file names a compiled kernel (rule LP015)
  for (const std::string& f : run.files) {
    shared.shown.insert(f);
    std::string why;
    std::optional<std::string> text = read_bounded(f, why);
    if (!text) continue;
    names_compiled = names_compiled || (!is_ptx_path(f) && names_compiled_kernel(*text));
    if (mentions_cute(*text)) collect_cute_definitions(annotate::parse_annotations(f, std::move(*text)), shared.cute);
  }
  for (const auto& [name, defs] : shared.cute)
    for (const CuteDefinition& d : defs) shared.cute_text += fmt::format("{}\n{}\n{}\n", name, d.text, rules::file_of(d.loc));
  for (const std::string& f : opt.shown_files) shared.shown.insert(f);
  if (names_compiled) read_run_compiled(run.files, opt, budget, shared);
  std::optional<ResultCache> cache;
  if (opt.cache_dir)
    cache.emplace(CacheOptions{*opt.cache_dir, opt.cache_min_check_ms, uint64_t{opt.config.cache_max_mb} << 20});
  std::atomic<bool> stored{false};
  std::vector<FileResult> results(run.files.size());
  std::atomic<size_t> next{0}, done{0};
  std::mutex progress_mutex;
  unsigned jobs = jobs_or_cores(opt.jobs);
  const unsigned all_jobs = jobs;
  jobs = static_cast<unsigned>(std::min<size_t>(jobs, std::max<size_t>(1, run.files.size())));
  // Each file's thread holds a core; a file's loops borrow the rest, and the cores of threads that
  // found no file left.
  CorePool cores(all_jobs - jobs);
  shared.cores = &cores;
  auto worker = [&] {
    BudgetScope scope(budget);
    for (size_t i; (i = next++) < run.files.size();) {
      results[i] = check_guarded(run.files[i], [&] {
        bool wrote = false;
        FileResult r = check_file(run.files[i], opt, shared, cache ? &*cache : nullptr, wrote);
        if (wrote) stored = true;
        return r;
      });
      size_t d = ++done;
      if (opt.progress) {
        std::lock_guard<std::mutex> lock(progress_mutex);
        opt.progress(d, run.files.size(), run.files[i]);
      }
    }
    cores.give_back();
  };
  std::vector<std::thread> pool;
  for (unsigned j = 1; j < jobs; ++j) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (stored) cache->evict();
  for (auto& r : results) append(run, r);
  return run;
}

rules::CheckRun check_source(const std::string& name, std::string text, const CheckOptions& options) {
  BudgetScope scope(run_budget(options.config));
  rules::CheckRun run = empty_run();
  run.files = {name};
  FileResult r = check_guarded(name, [&] {
    FileResult checked;
    if (is_ptx_path(name)) {
      auto [ptx, inputs] = ptx_input(options, name, std::move(text));
      CorePool cores(jobs_or_cores(options.jobs) - 1);
      return check_compiled(ptx::read_compiled_module(ptx, inputs), &cores, options.config);
    }
    RunContext own;
    annotate::ParseResult parsed = annotate::parse_annotations(name, std::move(text));
    if (mentions_cute(parsed.source->text)) collect_cute_definitions(parsed, own.cute);
    checked = check_text(parsed, options.config, &own);
    move_findings(parsed, checked, own);
    return checked;
  });
  append(run, r);
  return run;
}

}  // namespace lp::rules
