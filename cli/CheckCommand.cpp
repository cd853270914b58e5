// `layoutproof check PATH... [--format text|json|sarif|junit|codequality] [--output FILE] [--baseline FILE] [--report DIR]`:
// the CI gate. Exit 1 when a finding (or an unknown) is at least as severe as --fail-on (default
// warning), 0 otherwise, 2 for usage, configuration or internal errors.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <regex>
#include <set>

#include "frontend/annotate/LaunchFacts.h"
#include "analyzer/support/Governor.h"
#include "analyzer/support/KernelName.h"
#include "analyzer/support/Parallel.h"
#include "analyzer/support/ReadFile.h"
#include "hw/Arch.h"
#include "cli/Command.h"
#include "cli/CudaCompile.h"
#include "cli/ProjectCompile.h"
#include "report/Baseline.h"
#include "report/Fold.h"
#include "report/JsonReport.h"
#include "report/pages/MarkdownReport.h"
#include "report/Report.h"
#include "rules/Checker.h"
#include "solver/Result.h"

namespace lp::cli {

namespace {

// $XDG_CACHE_HOME/layoutproof, else ~/.cache/layoutproof: out of the repository being checked.
std::optional<std::string> default_cache_dir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/layoutproof";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/layoutproof";
  return std::nullopt;
}

class CheckCommand : public Command {
 public:
  bool sets_own_budget() const override { return true; }
  CLI::App* setup(CLI::App& app) override {
    auto* sub = app.add_subcommand("check", "Check every layout annotation in files and directories (the CI gate)");
    sub->add_option("paths", paths_,
                    "Files and directories to check (with --cuda: nvcc arguments, after --; with -p: only the units "
                    "whose source is one of these files or lies under these directories)");
    sub->add_option("--cuda", cuda_, "Compile this CUDA file to PTX with nvcc (-O3 -lineinfo) and check the PTX, and the file's own annotations against it");
    sub->add_option("-p,--build-dir", build_dir_,
                    "Check every CUDA translation unit of the project built here: BUILD_DIR/compile_commands.json "
                    "(CMake: -DCMAKE_EXPORT_COMPILE_COMMANDS=ON), each unit compiled to PTX with its own flags for "
                    "each architecture it is built for");
    sub->add_option("--compile-commands", compile_commands_, "As -p, with the compilation database's file named");
    arch_option_ = sub->add_option("--arch", arch_,
                                   "The architecture --cuda compiles for (default " + std::string(hw::kDefaultArchName) +
                                       "); with -p: every unit is compiled for it instead of its own");
    sub->add_option("--kernel", kernel_filter_,
                    "Only the kernels whose demangled (or PTX) name this regular expression finds, e.g. 'transpose|reduce<'");
    sub->add_option("--keep-ptx", keep_ptx_,
                    "Keep the PTX that --cuda and -p compile under this directory (DIR/SOURCE.ARCH.ptx), for the notes "
                    "that point into it");
    sub->add_option("--launch", launches_,
                    "How a compiled kernel is launched: 'KERNEL=block(X, Y, Z) [grid(...)] [dynamic_smem(BYTES)] [param P OP "
                    "VALUE]' (KERNEL demangled, templates allowed; * for every kernel); repeat for more launches")
        ->allow_extra_args(false);  // one KERNEL=FACTS per --launch: the paths after it stay paths
    sub->add_option("--format", format_, "text, json, sarif, junit or codequality (GitLab)")
        ->check(CLI::IsMember({"text", "json", "sarif", "junit", "codequality"}));
    sub->add_option("--output", output_, "Write the report here instead of standard output");
    sub->add_option("--report", report_dir_, "Also write an HTML page and a Markdown summary to this directory");
    sub->add_option("--baseline", baseline_, "Accept the findings listed in this baseline file");
    sub->add_option("--write-baseline", write_baseline_, "Write every finding of this run to a baseline file");
    sub->add_option("--config", config_path_, "Configuration file (default: ./.layoutproof.toml when present)");
    sub->add_option("--engine", engine_, "Override the configured engine: " + engine_choices())
        ->check(CLI::IsMember(engine_names()));
    sub->add_option("--jobs", jobs_, "Files checked in parallel (default: one per core)");
    sub->add_option("--cache-dir", cache_dir_, "Where results are cached by content (default: ~/.cache/layoutproof)");
    sub->add_flag("--no-cache", no_cache_, "Neither read nor write cached results");
    sub->add_option("--time-budget", time_budget_,
                    "Seconds for the whole run; proofs not started by then are reported as unknown")
        ->check(CLI::Range(0.001, 1e6));
    sub->add_option("--timeout-ms", timeout_ms_, "Z3 time limit per query (default [solver] timeout-ms, 20000)")
        ->check(CLI::Range(1, 3600000));
    sub->add_option("--memory-mb", memory_mb_,
                    "Memory budget of the run in MiB (the process's resident memory; default [solver] memory-mb, 2048): "
                    "proofs that would pass it are reported as unknown")
        ->check(CLI::Range(16, 1048576));
    sub->add_flag("--no-progress", no_progress_, "No progress line, even on a terminal");
    sub->add_flag("--verbose", verbose_,
                  "Text format: one line per obligation, its verdict and what the proof rests on (engine, points, "
                  "wavefronts and ideal, issues and base residues)");
    sub->add_flag("--show-proven", show_proven_, "Text format: a table of the proven obligations");
    sub->add_option("--frames", frames_,
                    "Inlined frames of compiled findings: 'user' (default: a run of frames in library headers the "
                    "checker does not read is one note) or 'all'")
        ->check(CLI::IsMember({"user", "all"}));
    sub->add_flag("--no-fold", no_fold_,
                  "One finding per compiled instruction: without it, findings alike but for their instruction (template "
                  "instantiations, unrolled copies of one source line) are shown as one that lists them");
    sub->add_option("--fail-on", fail_on_, "Least severity that fails the gate: " + severity_choices() + " (default: warning)")
        ->check(CLI::IsMember(severity_names()));
    return sub;
  }

  int run() override {
    const bool project = !build_dir_.empty() || !compile_commands_.empty();
    if (paths_.empty() && cuda_.empty() && !project) throw InputError("check needs at least one PATH, --cuda FILE or -p BUILD_DIR");
    if (project && !cuda_.empty()) throw InputError("--cuda and -p/--compile-commands are alternatives: give one");
    if (!build_dir_.empty() && !compile_commands_.empty()) throw InputError("-p and --compile-commands are alternatives: give one");
    rules::CheckOptions opt;
    try {
      if (!config_path_.empty()) opt.config = rules::load_config(config_path_);
      else if (std::filesystem::exists(".layoutproof.toml")) opt.config = rules::load_config(".layoutproof.toml");
    } catch (const rules::ConfigError& e) {
      throw InputError(e.what());
    }
    if (!engine_.empty()) opt.config.engine = engine_from_name(engine_);
    opt.jobs = jobs_;
    if (time_budget_) opt.config.time_budget_s = *time_budget_;
    if (memory_mb_) opt.config.limits.memory_mb = *memory_mb_;
    if (timeout_ms_) opt.config.limits.timeout_ms = *timeout_ms_;
    if (!no_cache_) opt.cache_dir = cache_dir_.empty() ? default_cache_dir() : std::optional<std::string>(cache_dir_);
    for (const std::string& l : launches_) opt.ptx.option_launches.push_back(launch_option(l));
    opt.ptx.all_frames = frames_ == "all";
    if (!kernel_filter_.empty()) {
      try {
        kernel_pattern(kernel_filter_);
      } catch (const std::regex_error& e) {
        throw InputError(fmt::format("--kernel '{}' is not a kernel-name pattern (an ECMAScript regular expression without "
                                     "back-references, at most {} characters): {}",
                                     kernel_filter_, kMaxKernelPatternChars, e.what()));
      }
      opt.ptx.kernel_filter = kernel_filter_;
    }
    std::optional<ProjectRun> compiled;
    if (!cuda_.empty() || project) {
      compiled.emplace();
      if (const int rc = compile(opt, *compiled, project); rc != kOk) return rc;
    }
    const bool tty = !no_progress_ && isatty(STDERR_FILENO);
    if (tty)
      opt.progress = [](size_t done, size_t total, const std::string& path) {
        std::cerr << "\r\033[K[" << done << "/" << total << "] " << path << std::flush;
      };
    Stopwatch analysis;
    rules::CheckRun run = rules::check_paths(paths_, opt);
    if (tty) std::cerr << "\r\033[K" << std::flush;
    if (compiled) {
      std::cerr << fmt::format("nvcc: {:.0f} ms{}; analysis: {:.0f} ms\n", compiled->nvcc_ms,
                               compiled->ptx.size() > 1 ? fmt::format(" ({} compiles)", compiled->ptx.size()) : "",
                               analysis.elapsed_ms());
      // The run checked translation units: its files are their sources, not the PTX.
      std::vector<std::string> files;
      for (const std::string& f : run.files) {
        auto unit = compiled->source_of.find(f);
        files.push_back(unit == compiled->source_of.end() ? f : unit->second);
      }
      std::sort(files.begin(), files.end());
      files.erase(std::unique(files.begin(), files.end()), files.end());
      run.files = std::move(files);
    }
    try {
      if (!write_baseline_.empty()) report::Baseline::from_run(run).write(write_baseline_);
      if (!baseline_.empty()) report::apply_baseline(run, report::Baseline::read(baseline_));
    } catch (const report::BaselineError& e) {
      throw InputError(e.what());
    }
    report::fold_findings(run, !no_fold_);
    const std::string text = report::render_report(*report::parse_format(format_), run, {}, {verbose_, show_proven_});
    if (!report_dir_.empty()) {
      try {
        report::write_report_dir(report::findings_doc(run), report_dir_);
      } catch (const report::ReportInputError& e) {
        throw InputError(e.what());
      }
    }
    write_output(text, output_, "report");
    if (compiled && compiled->failed) return kBadInput;  // a unit nvcc could not compile
    for (const rules::Finding& f : run.findings)
      if (rules::is_input_error(f)) return kBadInput;  // a PTX that cannot be read
    return run.passes_gate(*severity_from_name(fail_on_)) ? kOk : kFindings;  // CLI11 checked the word
  }

 private:
  // The PTX compiled for the run, and where it lies (removed when the run ends).
  struct ProjectRun {
    std::vector<cuda::CompileUnit> units;
    std::vector<UnitPtx> ptx;
    std::map<std::string, std::string> source_of;  ///< PTX path -> its unit's source as shown
    std::string scratch_dir;
    double nvcc_ms = 0;
    bool failed = false;  ///< some unit did not compile
    ~ProjectRun() {
      std::error_code ec;
      if (!scratch_dir.empty()) std::filesystem::remove_all(scratch_dir, ec);
    }
  };

  // The units of --cuda or the compilation database, compiled to PTX under the run's budget (its
  // time counts against the run's); the PTX become the paths checked. A unit that fails is
  // reported with nvcc's output; with --cuda that ends the run, with -p the other units are checked.
  int compile(rules::CheckOptions& opt, ProjectRun& project, bool from_database) {
    if (from_database) {
      const std::string db_path =
          compile_commands_.empty() ? (std::filesystem::path(build_dir_) / "compile_commands.json").string() : compile_commands_;
      auto src = std::make_shared<SourceText>();
      src->name = db_path;
      try {
        src->text = read_regular_file(db_path, kMaxDatabaseBytes);
      } catch (const std::exception& e) {
        throw InputError(fmt::format("{}{}", e.what(),
                                     compile_commands_.empty() ? " (-p reads BUILD_DIR/compile_commands.json: configure the "
                                                                 "build with CMake's -DCMAKE_EXPORT_COMPILE_COMMANDS=ON, or "
                                                                 "record it with Bear)"
                                                               : ""));
      }
      try {
        project.units = cuda::read_compile_database(src);
      } catch (const DiagnosticError& e) {
        throw InputError(e.diagnostic().render());
      }
      if (!paths_.empty()) project.units = selected_units(std::move(project.units));
      if (project.units.empty())
        throw InputError(fmt::format("{}: no CUDA translation unit{}", db_path, paths_.empty() ? "" : " under the paths given"));
    } else {
      cuda::CompileUnit u;
      u.file = cuda_;  // as given: findings name it so
      u.archs = {arch_};
      project.units.push_back(std::move(u));
    }
    ProjectCompileOptions how;
    if (from_database && arch_option_->count()) how.arch = arch_;
    if (!from_database) how.extra_flags = paths_;  // the positionals are nvcc's arguments
    if (!keep_ptx_.empty()) how.keep_dir = keep_ptx_;
    how.jobs = jobs_or_cores(opt.jobs);
    Stopwatch nvcc;
    try {
      project.scratch_dir = make_scratch_dir();
      BudgetScope scope(rules::run_budget(opt.config));
      project.ptx = compile_units(project.units, how, project.scratch_dir);
    } catch (const CudaCompileError& e) {
      std::cerr << "error: " << e.what() << "\n";
      return kBadInput;
    }
    project.nvcc_ms = nvcc.elapsed_ms();
    if (opt.config.time_budget_s) opt.config.time_budget_s = std::max(0.001, *opt.config.time_budget_s - project.nvcc_ms / 1000);
    paths_.clear();
    for (const cuda::CompileUnit& u : project.units)
      for (const std::string& n : u.notes) std::cerr << note_at(u, n);
    for (const UnitPtx& p : project.ptx) {
      const std::string arch = p.arch.value_or("nvcc's default architecture");
      if (p.error) {
        project.failed = true;
        std::cerr << p.error->output;
        if (!from_database) {
          std::cerr << "error: " << p.error->what() << "\n";
          return kBadInput;
        }
        Diagnostic d;
        d.loc = p.unit->where;
        d.message = fmt::format("{} for {}: {}", shown_path(p.unit->file), arch, p.error->what());
        std::cerr << d.render();
        continue;
      }
      if (!p.compiled->host_note.empty()) std::cerr << note_at(*p.unit, p.compiled->host_note);
      rules::CompiledPtxFile file;
      file.inputs = opt.ptx;
      file.inputs.extra_sources.insert(p.unit->file);
      file.inputs.host_launches = p.compiled->host_launches;
      file.inputs.disassemble = disassemble_ptx;
      file.inputs.disassembler_key = disassembler_key();
      file.shown_as = p.shown_as;
      opt.compiled[p.ptx_path] = std::move(file);
      // As findings name it: nvcc records the source's absolute path in the PTX's .file directives.
      project.source_of[p.ptx_path] = std::filesystem::absolute(p.unit->file).lexically_normal().string();
      paths_.push_back(p.ptx_path);
    }
    // The units' sources are checked too: their annotations, bound to the compiled kernels with
    // `expect ACCESS compiled ...` (rule LP015), are judged against the PTX of the same run.
    std::set<std::string> sources;
    for (const UnitPtx& p : project.ptx)
      if (!p.error && sources.insert(p.unit->file).second)  // as the PTX's findings name it
        paths_.push_back(std::filesystem::absolute(p.unit->file).lexically_normal().string());
    return kOk;
  }

  // "note: ..." at the unit's entry of the database (none for --cuda's one unit).
  static std::string note_at(const cuda::CompileUnit& u, const std::string& message) {
    Diagnostic d;
    d.severity = Severity::Note;
    d.loc = u.where;
    d.message = u.where.source ? fmt::format("{}: {}", shown_path(u.file), message) : message;
    return d.render();
  }

  // The units whose source is one of the positional paths or lies under one of them.
  std::vector<cuda::CompileUnit> selected_units(std::vector<cuda::CompileUnit> units) const {
    namespace fs = std::filesystem;
    std::vector<fs::path> roots;
    for (const std::string& p : paths_) roots.push_back(fs::absolute(p).lexically_normal());
    std::erase_if(units, [&](const cuda::CompileUnit& u) {
      return std::none_of(roots.begin(), roots.end(), [&](const fs::path& r) { return lies_within(u.file, r); });
    });
    return units;
  }

  // `--launch KERNEL=FACTS`: the facts read by the launch reader, located in the option's text.
  static ptx::StatedLaunch launch_option(const std::string& option) {
    const size_t eq = option.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError(fmt::format("--launch '{}': expected KERNEL=FACTS, e.g. 'transposeNaive=block(32, 8)' ('*=...' for "
                                   "every kernel)", option));
    auto src = std::make_shared<SourceText>();
    src->name = "--launch";
    src->text = option;
    Cursor c(src);
    c.set_pos(eq + 1);
    try {
      return ptx::StatedLaunch{option.substr(0, eq), annotate::read_launch_clauses(c, [&](size_t off) { return SourceLoc{src, off}; })};
    } catch (const DiagnosticError& e) {
      throw InputError(e.diagnostic().render());
    }
  }

  static constexpr uint64_t kMaxDatabaseBytes = uint64_t{256} << 20;
  std::vector<std::string> paths_, launches_;
  std::string cuda_, arch_{hw::kDefaultArchName}, build_dir_, compile_commands_, kernel_filter_, keep_ptx_;
  CLI::Option* arch_option_ = nullptr;
  std::string frames_ = "user", format_ = "text", output_, baseline_, write_baseline_, config_path_, engine_, cache_dir_, report_dir_, fail_on_ = "warning";
  unsigned jobs_ = 0;
  std::optional<double> time_budget_;
  std::optional<unsigned> memory_mb_, timeout_ms_;
  bool no_cache_ = false, no_progress_ = false, verbose_ = false, show_proven_ = false, no_fold_ = false;
};

}  // namespace

std::unique_ptr<Command> make_check_command() { return std::make_unique<CheckCommand>(); }

}  // namespace lp::cli
