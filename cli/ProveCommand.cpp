// `layoutproof prove PROPERTY ...`: proof obligations decided by the solver library.
//   prove injective LAYOUT
//   prove covers LAYOUT --target AXIS=LO..HI[,AXIS=LO..HI...]
//   prove compose A B            (the stated result is CuTe's composition, from the algebra library)
//   prove conflict-free --smem LAYOUT --dtype T --lanes LAYOUT --instr NAME [--arch A] [--base-align B]
//                       [--param M=LO..HI[%MULT]]... (every value, one instance at a time)
// JSON: {"property", "verdict", "engine", "time_ms", "reason", "counterexample"}.
// Exit: 0 proven, 1 refuted or unknown, 2 bad input.
#include <fmt/format.h>

#include <iostream>
#include <numeric>
#include <nlohmann/json.hpp>

#include "hw/Arch.h"
#include "cli/Command.h"
#include "cli/ImageJson.h"
#include "cli/LayoutArg.h"
#include "hw/HwError.h"
#include "solver/ParametricConflicts.h"
#include "analyzer/algebra/Operations.h"
#include "solver/Composition.h"
#include "solver/Coverage.h"
#include "solver/Injectivity.h"

namespace lp::cli {

namespace {

using json = nlohmann::ordered_json;

json point_json(const Layout& l, const Point& p) {
  if (l.is_scalar()) return p[0];
  json o = json::object();
  for (size_t a = 0; a < p.size(); ++a) o[l.axes()[a].spelling()] = p[a];
  return o;
}

json coord_json(const Layout& l, int64_t index) {
  json c = json::array();
  for (int64_t v : l.split(index)) c.push_back(v);
  return c;
}

std::vector<AxisRange> parse_target(const std::string& text) {
  std::vector<AxisRange> out;
  for (const std::string& item : split_commas(text)) {
    size_t eq = item.find('='), dots = item.find("..");
    if (eq == std::string::npos || dots == std::string::npos || dots < eq)
      throw InputError(fmt::format("--target item '{}' is not AXIS=LO..HI", item));
    out.push_back(AxisRange{axis_option(item.substr(0, eq), "--target"),
                            parse_int_option(item.substr(eq + 1, dots - eq - 1), "--target"),
                            parse_int_option(item.substr(dots + 2), "--target")});
  }
  return out;
}

class ProveCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    auto* sub = app.add_subcommand("prove", "Prove a property of a layout, or refute it with a checked counterexample");
    sub->require_subcommand(1);
    auto common = [&](CLI::App* p) {
      p->add_option("--engine", engine_, engine_choices())->check(CLI::IsMember(engine_names()));
      p->add_option("--timeout-ms", limits_.timeout_ms, "Z3 time limit per query");
      p->add_option("--notation", notation_, "Force the input notation: cute, tirx or descriptor");
      p->add_flag("--json", json_, "Machine-readable output");
    };
    injective_ = sub->add_subcommand("injective", "No two logical elements share a physical point");
    injective_->add_option("layout", layout_, "The layout")->required();
    injective_->add_option("--param", param_options_, "Symbolic parameter NAME=LO..HI[%MULTIPLE] used in the layout");
    common(injective_);
    covers_ = sub->add_subcommand("covers", "Every point of a target box holds a copy");
    covers_->add_option("layout", layout_, "The layout")->required();
    covers_->add_option("--param", param_options_, "Symbolic parameter NAME=LO..HI[%MULTIPLE] used in the layout");
    covers_->add_option("--target", target_, "AXIS=LO..HI[,AXIS=LO..HI...]")->required();
    common(covers_);
    compose_ = sub->add_subcommand("compose", "B maps into A's domain and CuTe's result equals A(B(c)) everywhere");
    compose_->add_option("a", layout_, "The outer layout A")->required();
    compose_->add_option("b", second_, "The inner layout B")->required();
    common(compose_);
    conflict_ = sub->add_subcommand("conflict-free", "No phase of a shared-memory access needs more wavefronts than ideal");
    conflict_->add_option("--smem", smem_, "Shared-memory layout: logical coordinate -> element offset")->required();
    conflict_->add_option("--dtype", dtype_, "Element type: f16, bf16, f32, u8, ...")->required();
    conflict_->add_option("--lanes", lanes_, "Lane map: (lane, issue...) -> smem coordinate (_1@d) or index")->required();
    conflict_->add_option("--instr", instr_, "Instruction, e.g. ldmatrix.x4, ld.shared.v4.b32")->required();
    conflict_->add_option("--arch", arch_, "Architecture (default sm_90)");
    conflict_->add_option("--base-align", base_align_,
                          fmt::format("Alignment of the buffer's base in bytes; the proof covers every base it allows "
                                      "(default {}, as for a buffer without `align`)", hw::kDefaultBaseAlignment));
    conflict_->add_option("--active", active_,
                          "The lanes that execute the access (a guard predicate), as in annotations: 0..15,24 "
                          "(default every lane)");
    conflict_->add_option("--param", param_options_,
                          fmt::format("Parameter NAME=LO..HI[%MULTIPLE] the layouts use; every value is decided, one "
                                      "instance at a time, or by residue classes where a parameter stands only in the "
                                      "buffer's strides (at most {} instances)",
                                      kMostConflictInstances));
    common(conflict_);
    return sub;
  }

  int run() override {
    Engine engine = engine_from_name(engine_);
    json out;
    Outcome outcome;
    // The solver reports operands it cannot compare (a target axis the layout lacks, shapes
    // that do not fit) as std::invalid_argument: bad input, said as such.
    try {
      if (conflict_->parsed()) return report(out, conflict_free(engine, out));
      if (compose_->parsed()) return report(out, compose(engine, out));
      return report(out, layout_property(engine, out));
    } catch (const std::invalid_argument& e) {
      throw InputError(e.what());
    }
  }

 private:
  Outcome layout_property(Engine engine, json& out) {
    Outcome outcome;
    Parametric params;
    for (const std::string& p : param_options_) params.specs.push_back(parse_param_option(p));
    ParsedLayout parsed = read_layout_arg(layout_, notation_, "<layout>", &params.specs);
    params.uses = parsed.param_uses;
    const Layout& l = parsed.layout;
    auto param_json = [&](const std::vector<int64_t>& values) {
      json o = json::object();
      for (size_t i = 0; i < values.size(); ++i) o[params.specs[i].name] = values[i];
      return o;
    };
    if (injective_->parsed()) {
      auto r = prove_injective(l, engine, limits_, &params);
      out["property"] = "injective";
      outcome = r;
      if (r.witness) {
        const auto& w = *r.witness;
        json cx;
        const Layout inst = params.empty() ? l : instantiate(l, params, w.params);
        if (!params.empty()) cx["params"] = param_json(w.params);
        cx["indices"] = {w.index_a, w.index_b};
        cx["coordinates"] = {coord_json(inst, w.index_a), coord_json(inst, w.index_b)};
        if (!l.replicas().empty()) cx["replicas"] = {w.replica_a, w.replica_b};
        cx["images"] = {point_json(inst, w.image), point_json(inst, w.image)};
        out["counterexample"] = cx;
      }
    } else {
      auto ranges = parse_target(target_);
      auto r = prove_covers(l, ranges, engine, limits_, &params);
      out["property"] = "covers";
      outcome = r;
      if (r.witness) {
        json u = json::object();
        for (size_t k = 0; k < ranges.size(); ++k) u[ranges[k].axis.spelling()] = r.witness->uncovered[k];
        out["counterexample"] = {{"uncovered", u}};
        if (!params.empty()) out["counterexample"]["params"] = param_json(r.witness->params);
      }
    }
    return outcome;
  }

  Outcome compose(Engine engine, json& out) {
    ParsedLayout a = read_layout_arg(layout_, notation_, "<A>");
    ParsedLayout b = read_layout_arg(second_, notation_, "<B>");
    algebra::Outcome cute = algebra::op_compose(a.layout, b.layout);
    std::optional<Layout> r;
    out["property"] = "compose";
    if (cute.text) {
      out["result"] = *cute.text;
      r = parse_layout_text(*cute.text, "<result>").layout;
    }
    auto res = prove_composition(a.layout, b.layout, r, engine, limits_);
    if (res.witness) {
      const auto& w = *res.witness;
      json cx;
      cx["index"] = w.index;
      cx["coordinate"] = w.coordinate;
      if (w.out_of_domain) {
        cx["out_of_domain"] = point_json(b.layout, w.b_image);
        cx["domain_size"] = a.layout.size();
      } else if (w.outside_result) {
        if (!w.expected.empty()) cx["expected"] = point_json(a.layout, w.expected);
        cx["got"] = w.got.empty() ? json() : point_json(*r, w.got);  // R past its domain, as CuTe evaluates it
        cx["result_size"] = r->size();
      } else {
        cx["expected"] = point_json(a.layout, w.expected);
        cx["got"] = r ? point_json(*r, w.got) : json();
      }
      if (res.wrong_points) cx["wrong_points"] = *res.wrong_points;
      out["counterexample"] = cx;
    }
    return res;
  }

  Outcome conflict_free(Engine engine, json& out) {
    Parametric params;
    for (const std::string& p : param_options_) params.specs.push_back(parse_param_option(p));
    ParsedLayout smem = read_layout_arg(smem_, notation_, "<smem>", &params.specs);
    ParsedLayout lanes = read_layout_arg(lanes_, "", "<lanes>", &params.specs);
    auto make = [&](const Layout& s, const Layout& l) {
      return SmemAccess(s, dtype_bits(dtype_), l, hw::smem_instr(instr_), hw::arch_by_name(arch_), base_align_,
                        active_lanes());
    };
    if (!params.specs.empty()) return conflict_free_every_value(engine, out, params, smem, lanes, make);
    const SmemAccess access = make(smem.layout, lanes.layout);
    auto r = prove_conflict_free(access, engine, limits_);
    describe_conflicts(out, access, r);
    return r;
  }

  // Every admissible parameter value, one instance at a time: the result is the first instance
  // (values ascending) that is not conflict-free, else the one with the most wavefronts.
  template <class Make>
  Outcome conflict_free_every_value(Engine engine, json& out, const Parametric& params, const ParsedLayout& smem,
                                    const ParsedLayout& lanes, const Make& make) {
    const Parametric smem_params{params.specs, smem.param_uses}, lane_params{params.specs, lanes.param_uses};
    const Stopwatch clock;
    std::vector<size_t> all_specs(params.specs.size());
    std::iota(all_specs.begin(), all_specs.end(), size_t{0});
    const auto decided = prove_conflict_free_over_values(
        ParametricConflictQuery{params.specs,
                                [&](const std::vector<int64_t>& v) {
                                  return make(instantiate(smem.layout, smem_params, v),
                                              instantiate(lanes.layout, lane_params, v));
                                },
                                affine_stride_params(smem_params, lane_params, all_specs)},
        engine, limits_);
    out["property"] = "conflict-free";
    if (!decided) {
      Outcome o;
      o.engine = engine;
      o.reason = fmt::format("deciding every value needs more than {} instances; bank conflicts over parameters are "
                             "decided one instance at a time, or by residue classes where a parameter stands only in "
                             "the buffer's strides (narrow the ranges or add a multiple)",
                             kMostConflictInstances);
      return o;
    }
    const std::vector<ConflictInstance>* instances = &decided->instances;
    const ConflictInstance* decisive = nullptr;
    for (const ConflictInstance& inst : *instances)
      if (!inst.invalid.empty() || inst.result.verdict != Verdict::Proven) {
        decisive = &inst;
        break;
      }
    const bool every = decisive == nullptr;
    if (every)
      decisive = &*std::max_element(instances->begin(), instances->end(),
                                    [](const auto& a, const auto& b) { return a.result.wavefronts < b.result.wavefronts; });
    json values = json::object();
    std::string label;
    for (size_t i = 0; i < params.specs.size(); ++i) {
      values[params.specs[i].name] = decisive->values[i];
      label += fmt::format("{}{}={}", i ? ", " : "", params.specs[i].name, decisive->values[i]);
    }
    if (!decisive->invalid.empty()) throw InputError(fmt::format("with {}: {}", label, decisive->invalid));
    ConflictResult r = decisive->result;
    describe_conflicts(out, *decisive->access, r);
    if (out.contains("counterexample")) out["counterexample"]["params"] = values;
    r.time_ms = clock.elapsed_ms();
    const std::string scope = fmt::format("{} parameter value{}", decided->value_vectors, decided->value_vectors == 1 ? "" : "s");
    const std::string how = decided->reduction.empty() ? "" : fmt::format(" ({})", decided->reduction);
    r.reason = every ? fmt::format("every one of the {} proven{}; the worst, with {}", scope, how, label)
                     : fmt::format("with {}, the first of the {} in ascending order that is not proven{}{}", label, scope,
                                   how, r.reason.empty() ? "" : ": " + r.reason);
    return r;
  }

  // `--active 0..15,24`: lanes 0..31, single or as ranges.
  hw::LaneMask active_lanes() const {
    if (active_.empty()) return hw::kAllLanes;
    hw::LaneMask mask = 0;
    size_t start = 0;
    while (start <= active_.size()) {
      const size_t comma = std::min(active_.find(',', start), active_.size());
      const std::string item = active_.substr(start, comma - start);
      const size_t dots = item.find("..");
      const int64_t lo = parse_int_option(item.substr(0, dots), "--active");
      const int64_t hi = dots == std::string::npos ? lo : parse_int_option(item.substr(dots + 2), "--active");
      if (lo < 0 || hi >= hw::kWarpLanes || hi < lo)
        throw InputError(fmt::format("--active '{}': expected lanes 0..{}, single or as LO..HI with LO <= HI", item,
                                     hw::kWarpLanes - 1));
      for (int64_t l = lo; l <= hi; ++l) mask |= hw::LaneMask{1} << l;
      start = comma + 1;
    }
    return mask;
  }

  static void describe_conflicts(json& out, const SmemAccess& access, const ConflictResult& r) {
    out["property"] = "conflict-free";
    out["wavefronts"] = r.wavefronts;
    out["ideal"] = r.ideal;
    out["base_alignment"] = access.base_align();
    out["base_residues"] = access.base_residue_count();
    if (r.conflict) {
      const auto& w = *r.conflict;
      out["counterexample"] = {{"lanes", {w.lane_a, w.lane_b}},
                               {"issue", w.issue},
                               {"coordinates", {w.coord_a, w.coord_b}},
                               {"addresses", {w.address_a, w.address_b}},
                               {"bank", w.bank},
                               {"words", w.words},
                               {"base", w.base},
                               {"wavefronts", w.wavefronts},
                               {"ideal", w.ideal}};
    } else if (r.access) {
      json cx = {{"issue", r.access->issue}, {"base", r.access->base}, {"reason", r.access->what}};
      if (r.access->lane) cx["lane"] = *r.access->lane;
      if (!r.access->coord.empty()) cx["coordinate"] = r.access->coord;
      out["counterexample"] = cx;
    }
  }

  int report(const json& out, const Outcome& outcome) {
    json report;  // the contract's key order: property, verdict, engine, time_ms, ...
    report["property"] = out["property"];
    report["verdict"] = verdict_name(outcome.verdict);
    report["engine"] = engine_name(outcome.engine);
    report["time_ms"] = outcome.time_ms;
    if (out.contains("result")) report["result"] = out["result"];
    if (out.contains("wavefronts")) {
      report["wavefronts"] = out["wavefronts"];
      report["ideal"] = out["ideal"];
      report["base_alignment"] = out["base_alignment"];
      report["base_residues"] = out["base_residues"];
    }
    if (!outcome.reason.empty()) report["reason"] = outcome.reason;
    if (out.contains("counterexample")) report["counterexample"] = out["counterexample"];
    if (json_) {
      std::cout << report.dump() << "\n";
    } else {
      std::cout << fmt::format("{}: {} ({} engine, {:.1f} ms)\n", report["property"].get<std::string>(),
                               verdict_name(outcome.verdict), engine_name(outcome.engine), outcome.time_ms);
      if (report.contains("wavefronts"))
        std::cout << fmt::format("  worst instruction: {} wavefronts, ideal {}; every base at {}-byte alignment ({} base "
                                 "residue{})\n",
                                 report["wavefronts"].get<int64_t>(), report["ideal"].get<int64_t>(),
                                 report["base_alignment"].get<int64_t>(), report["base_residues"].get<int64_t>(),
                                 report["base_residues"].get<int64_t>() == 1 ? "" : "s");
      if (!outcome.reason.empty()) std::cout << "  " << outcome.reason << "\n";
      if (report.contains("counterexample")) std::cout << "  counterexample: " << report["counterexample"].dump() << "\n";
    }
    return outcome.verdict == Verdict::Proven ? kOk : kFindings;
  }

  CLI::App *injective_ = nullptr, *covers_ = nullptr, *compose_ = nullptr, *conflict_ = nullptr;
  std::string layout_, second_, notation_, target_, engine_ = "auto";
  std::string smem_, dtype_, lanes_, instr_, arch_{hw::kDefaultArchName};
  int64_t base_align_ = hw::kDefaultBaseAlignment;
  std::string active_;
  std::vector<std::string> param_options_;
  bool json_ = false;
  SolverLimits limits_;
};

}  // namespace

std::unique_ptr<Command> make_prove_command() { return std::make_unique<ProveCommand>(); }

}  // namespace lp::cli
