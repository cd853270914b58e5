// `layoutproof algebra OP ARG... [--json]`: CuTe's layout algebra with a legality verdict.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "analyzer/algebra/Operations.h"
#include "analyzer/ir/Checked.h"
#include "analyzer/parse/OperandParser.h"
#include "analyzer/parse/TilerParser.h"
#include "cli/Command.h"
#include "cli/LayoutArg.h"
#include "solver/AlgebraClaims.h"

namespace lp::cli {

namespace {

using json = nlohmann::ordered_json;
using namespace lp::algebra;
using algebra::Outcome;
using algebra::Verdict;

const std::vector<std::string> kOps = {"compose",         "complement",      "logical_divide", "zipped_divide",
                                       "tiled_divide",    "flat_divide",     "logical_product", "blocked_product",
                                       "raked_product",   "tile_to_shape",   "coalesce",       "filter_zeros",
                                       "filter",          "right_inverse",   "left_inverse",   "max_common_vector"};

// An operand as the parsers read it: the text named by its position, a diagnostic on malformed
// input printed as every parser's is.
template <class Parse>
auto parse_operand(const std::string& text, const std::string& name, Parse&& parse) {
  auto src = std::make_shared<SourceText>();
  src->name = name;
  src->text = text;
  try {
    return parse(src);
  } catch (const DiagnosticError& e) {
    std::cerr << e.diagnostic().render();
    throw ExitRequest{kBadInput};
  }
}

// A tiler: `[T0, T1, ...]` or a single layout in any notation (analyzer/parse/TilerParser.h), an
// extent N (CuTe reads it as N:_1), or `_` (keep the mode).
CuteTiler tiler_operand(const std::string& text, const std::string& name) {
  const size_t first = text.find_first_not_of(" \t"), last = text.find_last_not_of(" \t");
  if (first != std::string::npos && first == last && text[first] == '_') return CuteTiler::underscore();
  if (auto n = parse_operand(text, name, parse_cute_integer)) {
    if (n->value < 1) throw InputError(fmt::format("tiler extent {} must be >= 1", n->value));
    return CuteTiler::of(CuteLayout::leaf(*n, Int{1, true}));
  }
  return parse_operand(text, name, [](std::shared_ptr<const SourceText> src) { return to_cute(parse_tiler(std::move(src))); });
}

Operand compose_operand(const std::string& text, const std::string& name) {
  if (auto sw = parse_operand(text, name, parse_swizzle_operand)) return *sw;
  const size_t first = text.find_first_not_of(" \t");
  if (first != std::string::npos && text[first] == '[') return tiler_operand(text, name);
  return read_layout_arg(text, "", name).layout;
}

json witness_json(const Witness& w) {
  json j;
  j["domain"] = w.domain;
  if (w.index) {
    j["index"] = *w.index;
    j["coordinate"] = w.coordinate;
  }
  j["expected_is"] = w.expected_label;
  j["expected"] = w.expected;
  j["actual_is"] = w.actual_label;
  j["actual"] = w.actual;
  return j;
}

class AlgebraCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    auto* sub = app.add_subcommand(
        "algebra", "CuTe's layout algebra with a legality verdict: is the result the function the operation claims?");
    sub->add_option("op", op_, "Operation")->required()->check(CLI::IsMember(kOps));
    // Operands arrive as extras so that CLI11 does not split a tiler `[a,b]` into two arguments.
    sub->allow_extras();
    sub->footer("ARG: layouts in any notation; tilers as [T0,T1,...] (N means N:_1, _ keeps a mode); swizzles as "
                "Sw<B,M,S>; complement's optional cotarget as an integer or a flat shape (_4,7), tile_to_shape's target shape as a flat shape");
    sub->add_flag("--json", json_, "Machine-readable output");
    sub->add_option("--engine", engine_, "How compositions are decided: z3, enum, f2 or auto")
        ->check(CLI::IsMember({"z3", "enum", "f2", "auto"}));
    sub->add_option("--timeout-ms", limits_.timeout_ms, "Z3 time limit per query");
    sub_ = sub;
    return sub;
  }

  int run() override {
    args_ = sub_->remaining();
    Outcome o;
    try {
      o = decide_claims(evaluate(), engine_from_name(engine_), limits_);
    } catch (const OverflowError& e) {
      throw InputError(fmt::format("{}: CuTe's arithmetic on these operands leaves 64-bit integers ({})", op_, e.what()));
    }
    const Check& c = o.check;
    if (json_) {
      json out;
      out["op"] = op_;
      out["result"] = o.text ? json(*o.text) : json(nullptr);
      // Decided or not: an undecided operation is neither legal nor illegal.
      out["legal"] = c.verdict == Verdict::Unknown ? json(nullptr) : json(c.verdict == Verdict::Legal);
      out["verdict"] = verdict_name(c.verdict);
      out["reason"] = c.reason;
      out["witness"] = c.witness ? witness_json(*c.witness) : json::object();
      out["notes"] = json::array();
      for (const ContractNote& n : c.notes)
        out["notes"].push_back({{"kind", note_kind_name(n.kind)},
                                {"message", n.message},
                                {"witness", n.witness ? witness_json(*n.witness) : json::object()}});
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
  void need(size_t lo, size_t hi) const {
    if (args_.size() < lo || args_.size() > hi)
      throw InputError(lo == hi ? fmt::format("{} takes {} operand(s), got {}", op_, lo, args_.size())
                                 : fmt::format("{} takes {} to {} operands, got {}", op_, lo, hi, args_.size()));
  }

  Layout layout_arg(size_t i) const { return read_layout_arg(args_[i], "", fmt::format("<operand {}>", i + 1)).layout; }

  Outcome evaluate() const {
    const std::string n2 = "<operand 2>";
    if (op_ == "compose") {
      need(2, 2);
      return op_compose(compose_operand(args_[0], "<operand 1>"), compose_operand(args_[1], n2));
    }
    if (op_ == "complement") {
      need(1, 2);
      std::optional<Cotarget> cotarget;  // an integer, or a shape as CuTe's IntTuple cotarget
      if (args_.size() == 2) cotarget = Cotarget{parse_operand(args_[1], "<cotarget>", parse_flat_shape)};
      return op_complement(layout_arg(0), cotarget);
    }
    if (op_.ends_with("_divide")) {
      need(2, 2);
      const DivideKind kind = op_ == "logical_divide" ? DivideKind::Logical
                              : op_ == "zipped_divide" ? DivideKind::Zipped
                              : op_ == "tiled_divide"  ? DivideKind::Tiled
                                                       : DivideKind::Flat;
      return op_divide(kind, layout_arg(0), tiler_operand(args_[1], n2));
    }
    if (op_ == "logical_product") {
      need(2, 2);
      return op_logical_product(layout_arg(0), tiler_operand(args_[1], n2));
    }
    if (op_ == "blocked_product" || op_ == "raked_product" || op_ == "max_common_vector") {
      need(2, 2);
      if (op_ == "blocked_product") return op_blocked_product(layout_arg(0), layout_arg(1));
      if (op_ == "raked_product") return op_raked_product(layout_arg(0), layout_arg(1));
      return op_max_common_vector(layout_arg(0), layout_arg(1));
    }
    if (op_ == "tile_to_shape") {
      need(2, 2);
      return op_tile_to_shape(layout_arg(0), parse_operand(args_[1], "<target shape>", parse_flat_shape));
    }
    need(1, 1);
    if (op_ == "coalesce") return op_coalesce(layout_arg(0));
    if (op_ == "filter_zeros") return op_filter_zeros(layout_arg(0));
    if (op_ == "filter") return op_filter(layout_arg(0));
    if (op_ == "right_inverse") return op_right_inverse(layout_arg(0));
    return op_left_inverse(layout_arg(0));
  }

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
