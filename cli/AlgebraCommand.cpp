// `layoutproof algebra OP ARG... [--json]`: CuTe's layout algebra with a legality verdict.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "analyzer/algebra/Operations.h"
#include "api/AlgebraRecords.h"
#include "analyzer/ir/Checked.h"
#include "analyzer/parse/OperationParser.h"
#include "cli/Command.h"
#include "solver/AlgebraClaims.h"

namespace lp::cli {

namespace {

using json = nlohmann::ordered_json;
using namespace lp::algebra;
using algebra::Outcome;
using algebra::Verdict;

class AlgebraCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    auto* sub = app.add_subcommand(
        "algebra", "CuTe's layout algebra with a legality verdict: is the result the function the operation claims?");
    sub->add_option("op", op_, "Operation")->required()->check(CLI::IsMember(algebra_operation_names()));
    // Operands arrive as extras so that CLI11 does not split a tiler `[a,b]` into two arguments.
    sub->allow_extras();
    sub->footer("ARG: layouts in any notation; tilers as [T0,T1,...] (N means N:_1, _ keeps a mode); swizzles as "
                "Sw<B,M,S>; complement's optional cotarget as an integer or a flat shape (_4,7), tile_to_shape's target shape as a flat shape");
    sub->add_flag("--json", json_, "Machine-readable output");
    sub->add_option("--engine", engine_, "How compositions are decided: " + engine_choices())
        ->check(CLI::IsMember(engine_names()));
    sub->add_option("--timeout-ms", limits_.timeout_ms, "Z3 time limit per query");
    sub_ = sub;
    return sub;
  }

  int run() override {
    args_ = sub_->remaining();
    const Outcome o = decide_algebra_operation(op_, args_, engine_from_name(engine_), limits_);
    const Check& c = o.check;
    if (json_) {
      const json out = api::algebra_record(op_, o);
      std::cout << out.dump() << "\n";
      return kOk;
    }
    std::cout << fmt::format("{}: {}\n", op_, o.text ? *o.text : "(no result)");
    std::cout << fmt::format("verdict: {}{}\n", verdict_name(c.verdict), c.reason.empty() ? "" : " - " + c.reason);
    auto print_witness = [](const Witness& w) {
      if (w.index) std::cout << fmt::format("witness: {} index {} coordinate {}\n", w.domain, *w.index, w.coordinate);
      std::cout << fmt::format("  expected {} = {}\n  actual   {} = {}\n", w.expected_label, w.expected, w.actual_label,
                               w.actual);
    };
    if (c.witness) print_witness(*c.witness);
    for (const ContractNote& n : c.notes) {
      std::cout << fmt::format("note [{}]: {}\n", note_kind_name(n.kind), n.message);
      if (n.witness) print_witness(*n.witness);
    }
    return kOk;
  }

 private:
  CLI::App* sub_ = nullptr;
  std::string op_;
  std::vector<std::string> args_;
  bool json_ = false;
  std::string engine_ = "auto";
  SolverLimits limits_;
};

}  // namespace

std::unique_ptr<Command> make_algebra_command() { return std::make_unique<AlgebraCommand>(); }

}  // namespace lp::cli
