// `layoutproof bench [PATH...] [--json] [--output FILE] [--repeats N] [--synthetic N] [--max-tile S]
//                    [--param-max-log2 K] [--no-engines] [--z3-timeout-ms N] [--jobs N] [--no-isolate] [--ptx PATH]`:
// the performance benchmark (docs/performance.md); the measuring lives in bench/.
// Exit: 0 when every engine that decided agreed, 1 on any disagreement (a soundness bug) or a
// missed target with --fail-on-miss, 2 for usage.
#include <filesystem>
#include <iostream>
#include <fstream>

#include "bench/Bench.h"
#include "cli/Command.h"

namespace lp::cli {

namespace {

class BenchCommand : public Command {
 public:
  bool sets_own_budget() const override { return true; }
  CLI::App* setup(CLI::App& app) override {
    auto* sub = app.add_subcommand("bench", "Measure the corpus check, proof times, scaling and the engines (docs/performance.md)");
    sub->add_option("paths", paths_, "Corpus files and directories (default: corpus/)");
    sub->add_flag("--json", json_, "Print the results as JSON instead of tables");
    sub->add_option("--ptx", opt_.ptx_paths, "PTX files or directories to time one by one (default: tests/data/ptx and docs/data/ptx_validate_sm90.ptx)");
    sub->add_option("--cuda", opt_.cuda_paths, "CUDA files timed against nvcc: check --cuda and check of the PTX alone")
        ->allow_extra_args(false);
    sub->add_option("--kernels", opt_.kernel_dirs,
                    "A directory of compiled kernels (a Triton cache: scripts/triton-cache.py) checked as a whole, cold and warm")
        ->allow_extra_args(false);
    sub->add_option("--nvcc-arg", opt_.nvcc_args, "An argument for nvcc with --cuda (e.g. -I DIR); repeat for more")
        ->allow_extra_args(false);
    sub->add_option("--ptx-alone-budget", opt_.ptx_alone_budget_s, "--time-budget of the check of a CUDA file's PTX alone (s)");
    sub->add_option("--output", output_, "Write the output here instead of standard output");
    sub->add_option("--repeats", opt_.repeats,
                    "Repeats of each corpus run and obligation (medians); the least timed rounds of an engine comparison");
    sub->add_option("--synthetic", opt_.synthetic_entries, "Also check the corpus replicated to this many files (0: not)");
    sub->add_option("--max-tile", opt_.max_tile, "Largest tile side of the scaling section (0: no scaling)");
    sub->add_option("--param-max-log2", opt_.param_max_log2, "Largest parameter range 2^K of the scaling section");
    sub->add_flag("--no-engines", no_engines_, "Do not compare the engines on the corpus obligations");
    sub->add_option("--z3-timeout-ms", opt_.z3_timeout_ms, "Z3 limit per query in the comparisons (a timeout is undecided)");
    sub->add_option("--jobs", opt_.jobs, "Files checked in parallel (default: one per core)");
    sub->add_flag("--no-limits", no_limits_, "Skip the limits section (the worst inputs, each in its own process)");
    sub->add_flag("--no-parametric", no_parametric_, "Skip the parametric obligations (bench/ParametricSet.h)");
    sub->add_option("--cache-files", opt_.cache_files, "Files of the limits section's cache case (0: none)");
    sub->add_flag("--no-isolate", no_isolate_, "Run everything in this process (peak memory is then the process's)");
    sub->add_flag("--fail-on-miss", fail_on_miss_, "Exit 1 when a target is missed");
    sub->add_flag("--quiet", quiet_, "No progress lines on stderr");
    sub->add_option("--from-json", from_json_, "Render the tables of an earlier --json result instead of measuring");
    return sub;
  }

  int run() override {
    opt_.paths = paths_.empty() ? std::vector<std::string>{"corpus"} : paths_;
    if (opt_.ptx_paths.empty())  // the checked-in compiled kernels
      for (const char* d : {"tests/data/ptx", "docs/data/ptx_validate_sm90.ptx"})
        if (std::filesystem::exists(d)) opt_.ptx_paths.push_back(d);
    opt_.engines = !no_engines_;
    opt_.isolate = !no_isolate_;
    opt_.limits = !no_limits_;
    opt_.parametric = !no_parametric_;
    if (!quiet_) opt_.progress = [](const std::string& s) { std::cerr << "bench: " << s << "\n"; };
    bench::json r;
    if (!from_json_.empty()) {
      r = read_json_input(from_json_);
    } else {
      r = bench::run_bench(opt_);
    }
    write_output(json_ ? r.dump(2) + "\n" : bench::render_tables(r), output_, "benchmark");
    if (!r["disagreements"].empty()) {
      std::cerr << "error: engines disagree on " << r["disagreements"].size() << " queries (a soundness bug)\n";
      return kFindings;
    }
    if (fail_on_miss_)
      for (const auto& t : r["targets"])
        if (!t["met"].get<bool>()) return kFindings;
    return kOk;
  }

 private:
  bench::BenchOptions opt_;
  std::vector<std::string> paths_;
  std::string output_, from_json_;
  bool json_ = false, no_engines_ = false, no_isolate_ = false, no_limits_ = false, no_parametric_ = false, fail_on_miss_ = false, quiet_ = false;
};

}  // namespace

std::unique_ptr<Command> make_bench_command() { return std::make_unique<BenchCommand>(); }

}  // namespace lp::cli
