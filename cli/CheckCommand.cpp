// `layoutproof check PATH... [--format text|json|sarif|junit|codequality] [--output FILE] [--baseline FILE] [--report DIR]`:
// the CI gate. Exit 1 when a finding (or an unknown) is at least as severe as --fail-on (default
// warning), 0 otherwise, 2 for usage, configuration or internal errors.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "analyzer/annotate/LaunchFacts.h"
#include "analyzer/support/Governor.h"
#include "hw/Arch.h"
#include "cli/Command.h"
#include "cli/CudaCompile.h"
#include "report/Baseline.h"
#include "report/JsonReport.h"
#include "report/MarkdownReport.h"
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
    sub->add_option("paths", paths_, "Files and directories to check (with --cuda: nvcc arguments, after --)");
    sub->add_option("--cuda", cuda_, "Compile this CUDA file to PTX with nvcc (-O3 -lineinfo) and check the PTX");
    sub->add_option("--arch", arch_, "The architecture --cuda compiles for (default " + std::string(hw::kDefaultArchName) + ")");
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
    sub->add_option("--engine", engine_, "Override the configured engine: z3, enum, f2 or auto")
        ->check(CLI::IsMember({"z3", "enum", "f2", "auto"}));
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
    sub->add_option("--fail-on", fail_on_, "Least severity that fails the gate: error, warning (default) or note")
        ->check(CLI::IsMember({"error", "warning", "note"}));
    return sub;
  }

  int run() override {
    if (paths_.empty() && cuda_.empty()) throw InputError("check needs at least one PATH, or --cuda FILE");
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
    std::optional<CompiledPtx> compiled;
    if (!cuda_.empty()) {
      // nvcc runs under the run's budget: its time counts against the run's, and it is stopped
      // at the memory budget.
      Stopwatch nvcc;
      try {
        BudgetScope scope(rules::run_budget(opt.config));
        compiled = compile_cuda_to_ptx(cuda_, arch_, paths_);  // the positionals are nvcc's arguments
      } catch (const CudaCompileError& e) {
        std::cerr << e.output << "error: " << e.what() << "\n";
        return kBadInput;
      }
      if (opt.config.time_budget_s) opt.config.time_budget_s = std::max(0.001, *opt.config.time_budget_s - nvcc.elapsed_ms() / 1000);
      paths_ = {compiled->ptx_path};
      opt.ptx.extra_sources.insert(cuda_);
      opt.ptx.host_launches = compiled->host_launches;
      if (!compiled->host_note.empty()) std::cerr << "note: " << compiled->host_note << "\n";
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
      std::cerr << fmt::format("nvcc: {:.0f} ms; analysis: {:.0f} ms\n", compiled->nvcc_ms, analysis.elapsed_ms());
      std::error_code ec;
      std::filesystem::remove_all(compiled->dir, ec);
    }
    try {
      if (!write_baseline_.empty()) report::Baseline::from_run(run).write(write_baseline_);
      if (!baseline_.empty()) report::apply_baseline(run, report::Baseline::read(baseline_));
    } catch (const report::BaselineError& e) {
      throw InputError(e.what());
    }
    const std::string text = report::render_report(*report::parse_format(format_), run, {}, {verbose_, show_proven_});
    if (!report_dir_.empty()) {
      try {
        report::write_report_dir(report::findings_doc(run), report_dir_);
      } catch (const report::ReportInputError& e) {
        throw InputError(e.what());
      }
    }
    write_output(text, output_, "report");
    for (const rules::Finding& f : run.findings)
      if (rules::is_input_error(f)) return kBadInput;  // a PTX that cannot be read
    return run.passes_gate(*severity_from_name(fail_on_)) ? kOk : kFindings;  // CLI11 checked the word
  }

 private:
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

  std::vector<std::string> paths_, launches_;
  std::string cuda_, arch_{hw::kDefaultArchName};
  std::string format_ = "text", output_, baseline_, write_baseline_, config_path_, engine_, cache_dir_, report_dir_, fail_on_ = "warning";
  unsigned jobs_ = 0;
  std::optional<double> time_budget_;
  std::optional<unsigned> memory_mb_, timeout_ms_;
  bool no_cache_ = false, no_progress_ = false, verbose_ = false, show_proven_ = false;
};

}  // namespace

std::unique_ptr<Command> make_check_command() { return std::make_unique<CheckCommand>(); }

}  // namespace lp::cli
