// `layoutproof print LAYOUT --to cute|tirx|descriptor`: exact conversion between notations, or
// a precise reason why the target notation cannot say what the layout means.
#include <iostream>

#include "cli/Command.h"
#include "cli/LayoutArg.h"

namespace lp::cli {

namespace {

class PrintCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    auto* sub = app.add_subcommand("print", "Print a layout in another notation, exactly");
    sub->add_option("layout", layout_, "Layout in CuTe, TIRx or descriptor notation")->required();
    sub->add_option("--to", to_, "Target notation: " + notation_choices())->check(CLI::IsMember(notation_names()));
    sub->add_option("--notation", notation_, "Force the input notation: " + notation_choices());
    return sub;
  }

  int run() override {
    ParsedLayout parsed = read_layout_arg(layout_, notation_);
    Notation target = to_.empty() ? parsed.notation : *notation_from_option(to_);
    try {
      Printed p = print(parsed.layout, target);
      std::cout << p.text << "\n";
      for (const std::string& n : p.notes) std::cerr << "note: " << n << "\n";
      return kOk;
    } catch (const ConversionError& e) {
      std::cerr << "error: cannot write this layout in " << notation_name(target) << " notation: " << e.what()
                << "\n";
      return kBadInput;
    }
  }

 private:
  std::string layout_, to_, notation_;
};

}  // namespace

std::unique_ptr<Command> make_print_command() { return std::make_unique<PrintCommand>(); }

}  // namespace lp::cli
