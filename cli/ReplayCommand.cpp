// `layoutproof replay FINDINGS.json --out DIR [--run] [--arch sm_90a] [--clock64]`: one CUDA program per
// finding that the GPU can reproduce, an index (DIR/README.md) and a CMakeLists.txt; with --run,
// compiles and runs them and writes DIR/findings.replayed.json (docs/replay.md).
#include <fstream>
#include <iostream>

#include "cli/Command.h"
#include "replay/Replay.h"
#include "replay/Run.h"

namespace lp::cli {

namespace {

class ReplayCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    auto* sub = app.add_subcommand("replay", "Write CUDA programs that reproduce the counterexamples of findings");
    sub->add_option("findings", findings_, "Findings from `layoutproof check --format json`")->required();
    sub->add_option("--out", out_, "Directory for the programs, their build file and the index")->required();
    sub->add_flag("--run", run_, "Compile with nvcc and run every program on this machine's GPU");
    sub->add_option("--arch", options_.arch, "nvcc -arch for --run (default sm_90a)");
    sub->add_flag("--clock64", options_.clock64, "With --run: time bank conflicts with clock64 even where ncu is present");
    return sub;
  }

  int run() override {
    nlohmann::json doc = read_json_input(findings_);
    std::vector<replay::Replay> replays;
    try {
      replays = replay::generate_replays(doc);
      replay::write_replays(replays, out_);
    } catch (const replay::ReplayError& e) {
      throw InputError(e.what());
    }
    size_t programs = 0;
    for (const replay::Replay& r : replays) programs += !r.source.empty();
    std::cout << "wrote " << programs << " replay programs for " << replays.size() << " findings to " << out_
              << " (index: README.md)\n";
    if (!run_) return kOk;
    return replay::run_replays(replays, doc, out_, options_, std::cout) == 0 ? kOk : kFindings;
  }

 private:
  std::string findings_, out_;
  replay::RunOptions options_;
  bool run_ = false;
};

}  // namespace

std::unique_ptr<Command> make_replay_command() { return std::make_unique<ReplayCommand>(); }

}  // namespace lp::cli
