// `layoutproof report FINDINGS.json --out DIR`: the findings of `check --format json` as a
// self-contained HTML page (DIR/index.html) and a Markdown summary (DIR/summary.md).
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/Command.h"
#include "report/pages/MarkdownReport.h"

namespace lp::cli {

namespace {

class ReportCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    auto* sub = app.add_subcommand("report", "Write an HTML page and a Markdown summary of a findings JSON");
    sub->add_option("findings", findings_, "The output of `layoutproof check --format json`")->required();
    sub->add_option("--out", out_, "Directory for index.html and summary.md")->required();
    return sub;
  }

  int run() override {
    const std::string text = read_input(findings_);
    try {
      report::write_report_dir(report::parse_findings_doc(text, findings_), out_);
    } catch (const report::ReportInputError& e) {
      throw InputError(e.what());
    }
    std::cout << "wrote " << out_ << "/index.html and " << out_ << "/summary.md\n";
    return kOk;
  }

 private:
  std::string findings_, out_;
};

}  // namespace

std::unique_ptr<Command> make_report_command() { return std::make_unique<ReportCommand>(); }

}  // namespace lp::cli
