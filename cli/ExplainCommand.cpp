// `layoutproof explain FILE[:LINE|:NAME]`: what an annotated access does, lane by lane and phase by
// phase (coordinates, byte addresses, banks and words, the busiest bank), and the picture the HTML
// report draws; for a buffer or a computed layout, its images over a range of coordinates.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <regex>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>

#include "frontend/annotate/AnnotationParser.h"
#include "analyzer/ir/Print.h"
#include "frontend/ptx/KernelFacts.h"
#include "cli/Command.h"
#include "cli/CudaCompile.h"
#include "report/pages/BankView.h"
#include "report/pages/HtmlReport.h"
#include "rules/AlgebraSteps.h"
#include "rules/BufferGraph.h"
#include "rules/CompiledAccess.h"
#include "rules/DeclaredAccess.h"

namespace lp::cli {

namespace {

// "FILE", "FILE:LINE" or "FILE:NAME": the last ':' splits off the selector when what follows is
// a line number or an identifier and what precedes it is a file that exists.
struct Target {
  std::string path;
  std::optional<size_t> line;
  std::optional<std::string> name;
};

Target parse_target(const std::string& text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon + 1 == text.size() || std::filesystem::exists(text)) return {text, {}, {}};
  const std::string head = text.substr(0, colon), tail = text.substr(colon + 1);
  size_t line = 0;
  auto [end, ec] = std::from_chars(tail.data(), tail.data() + tail.size(), line);
  if (ec == std::errc() && end == tail.data() + tail.size()) {
    if (line == 0) throw InputError(fmt::format("'{}': lines count from 1", text));
    return {head, line, {}};
  }
  // NAME, or NAME[D=64,W=2]: one instance of a name declared in a for loop.
  static const std::regex name(R"([A-Za-z_][A-Za-z0-9_]*(\[[A-Za-z_][A-Za-z0-9_]*=-?[0-9]+(,[A-Za-z_][A-Za-z0-9_]*=-?[0-9]+)*\])?)");
  if (!std::regex_match(tail, name))
    throw InputError(fmt::format("'{}': expected FILE, FILE:LINE, FILE:NAME or FILE:NAME[D=64]", text));
  return {head, {}, tail};
}

// "A..B" (inclusive), both >= 0.
std::pair<int64_t, int64_t> range_option(const std::string& text, const char* what) {
  const size_t dots = text.find("..");
  if (dots == std::string::npos) throw InputError(fmt::format("{} '{}': expected A..B", what, text));
  const int64_t lo = parse_int_option(text.substr(0, dots), what), hi = parse_int_option(text.substr(dots + 2), what);
  if (lo < 0 || hi < lo) throw InputError(fmt::format("{} '{}': expected 0 <= A <= B", what, text));
  return {lo, hi};
}

std::string lane_list(const std::vector<int>& lanes) {
  if (lanes.empty()) return "none";
  bool consecutive = true;
  for (size_t k = 1; k < lanes.size(); ++k) consecutive &= lanes[k] == lanes[k - 1] + 1;
  if (consecutive && lanes.size() > 2) return fmt::format("{}-{}", lanes.front(), lanes.back());
  return fmt::format("{}", fmt::join(lanes, ","));
}

class ExplainCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    auto* sub = app.add_subcommand(
        "explain", "Show an annotated access lane by lane and phase by phase, or a layout's images over a range");
    sub->add_option("target", target_,
                    "FILE, FILE:LINE or FILE:NAME (an access, a buffer, or a compose/divide result; in a for loop, every "
                    "instance, or one: NAME[D=64])")
        ->required();
    sub->add_option("--issue", issue_, "The issued instruction to show (default 0)");
    sub->add_option("--base", base_, "The buffer's base offset in bytes, a multiple of its alignment (default 0)");
    sub->add_option("--rows", rows_, "Layouts: the range of mode 0 to show, A..B (default the first 16)");
    sub->add_option("--cols", cols_, "Layouts: the range of mode 1 to show, A..B (default the first 16)");
    sub->add_option("--html", html_, "Accesses: also write the HTML picture of the issue to this file");
    sub->add_flag("--cuda", cuda_,
                  "Compiled code: FILE.cu:LINE is compiled with nvcc (-O3 -lineinfo --ptx) and the shared-memory "
                  "instructions placed at that line are shown");
    sub->add_option("--ptx", ptx_, "Compiled code: FILE.cu:LINE names a line of this PTX's source (compiled already)");
    sub->add_option("--arch", arch_, "With --cuda: the architecture compiled for (default " + std::string(hw::kDefaultArchName) + ")");
    sub->add_option("--set", set_,
                    "Compiled code: a uniform unknown's value, NAME=VALUE (warp=1, ntid.x=128, a parameter's name; repeat "
                    "for more); the others take their counterexample's value, or the lowest of their domain");
    return sub;
  }

  int run() override {
    const Target t = parse_target(target_);
    if (cuda_ || !ptx_.empty() || std::filesystem::path(t.path).extension() == ".ptx") return explain_compiled(t);
    annotate::ParseResult file = annotate::parse_annotations(t.path, read_input(t.path));
    if (file.skipped) throw InputError(fmt::format("{} is not a file LayoutProof reads annotations from", t.path));
    if (file.has_errors()) {
      for (const Diagnostic& d : file.diagnostics) std::cerr << d.render();
      return kBadInput;
    }
    rules::BufferGraph graph(file);
    rules::AlgebraSteps algebra(file, graph, Engine::Auto, SolverLimits{});
    std::vector<const annotate::Statement*> chosen;
    for (const annotate::Statement& s : file.statements) {
      if (t.line && line_of(s) != *t.line) continue;
      // A name declared in a loop matches in every instance (`ldK` is `ldK[D=64]`, `ldK[D=128]`, ...).
      if (t.name && name_of(s) != *t.name && !(s.instance && name_of(s) == fmt::format("{}[{}]", *t.name, s.instance->label)))
        continue;
      if (!t.line && !t.name && !std::holds_alternative<annotate::AccessDecl>(s.body)) continue;
      if (!name_of(s).empty() || std::holds_alternative<annotate::AccessDecl>(s.body)) chosen.push_back(&s);
    }
    if (chosen.empty())
      throw InputError(t.line   ? fmt::format("{}:{}: no access, buffer or computed layout starts on this line", t.path, *t.line)
                       : t.name ? fmt::format("{}: nothing is named '{}'", t.path, *t.name)
                                : fmt::format("{}: no access to explain", t.path));
    std::string out;
    for (const annotate::Statement* s : chosen) {
      out += fmt::format("{}:{}: ", t.path, line_of(*s));
      if (auto* acc = std::get_if<annotate::AccessDecl>(&s->body)) out += explain_access(graph, *acc);
      else out += explain_layout(graph, algebra, name_of(*s));
    }
    std::cout << out;
    return kOk;
  }

 private:
  // ---- compiled code: the shared-memory instructions at a PTX line, or placed at a source line ----
  int explain_compiled(const Target& t) {
    if (!t.line) throw InputError(fmt::format("'{}': compiled code is explained at a line: FILE.ptx:LINE or FILE.cu:LINE", target_));
    if (cuda_ && !ptx_.empty()) throw InputError("--cuda compiles FILE.cu, --ptx names its PTX: give one");
    const bool at_ptx_line = !cuda_ && ptx_.empty();
    std::string ptx_path = at_ptx_line ? t.path : ptx_;
    std::string scratch;
    ptx::FrontEndInputs inputs;
    if (!at_ptx_line) inputs.extra_sources.insert(t.path);
    if (cuda_) {
      try {
        scratch = make_scratch_dir();
        ptx_path = (std::filesystem::path(scratch) / (std::filesystem::path(t.path).filename().string() + ".ptx")).string();
        const CompiledPtx c = compile_cuda_to_ptx(PtxCompileJob{t.path, "", {}, {}, arch_, ptx_path, scratch});
        inputs.host_launches = c.host_launches;
        inputs.disassemble = disassemble_ptx;
        inputs.disassembler_key = disassembler_key();
      } catch (const CudaCompileError& e) {
        std::error_code ec;
        if (!scratch.empty()) std::filesystem::remove_all(scratch, ec);
        std::cerr << e.output << "error: " << e.what() << "\n";
        return kBadInput;
      }
    }
    auto src = std::make_shared<SourceText>();
    src->name = ptx_path;
    src->text = read_input(ptx_path);
    if (cuda_) {
      std::error_code ec;
      std::filesystem::remove_all(scratch, ec);
      src->name = fmt::format("<PTX of {} for {}>", t.path, arch_);
      inputs.ptx_path = ptx_path;
    }
    const auto m = ptx::read_compiled_module(src, inputs);
    if (m->read_error) {
      std::cerr << m->read_error->render();
      return kBadInput;
    }
    std::map<std::string, int64_t> values;
    for (const std::string& s : set_) {
      const size_t eq = s.rfind('=');
      if (eq == std::string::npos || eq == 0) throw InputError(fmt::format("--set '{}': expected NAME=VALUE", s));
      values[s.substr(0, eq)] = parse_int_option(s.substr(eq + 1), "--set");
    }
    std::error_code ec;
    const auto wanted = std::filesystem::weakly_canonical(t.path, ec);
    std::string out;
    for (const ptx::KernelFacts& k : m->kernels)
      for (const ptx::AccessFact& a : k.accesses) {
        const bool here = at_ptx_line ? a.at.ptx_line == static_cast<int>(*t.line)
                                      : a.at.loc.source && line_col_of(*a.at.loc.source, a.at.loc.offset).first == *t.line &&
                                            std::filesystem::weakly_canonical(a.at.loc.source->name, ec) == wanted;
        if (here) out += explain_instruction(*m, k, a, values);
      }
    if (out.empty())
      throw InputError(fmt::format("{}:{}: no shared-memory instruction with per-lane addresses {}", t.path, *t.line,
                                   at_ptx_line ? "on this PTX line" : "is placed at this line"));
    std::cout << out;
    return kOk;
  }

  // One instruction's warp: at --set's values, over the counterexample of its conflict (or
  // alignment, bounds) when it has one, else over each unknown's lowest value.
  std::string explain_instruction(const ptx::CompiledModule& m, const ptx::KernelFacts& k, const ptx::AccessFact& a,
                                  const std::map<std::string, int64_t>& values) const {
    const auto [line, column] = line_col_of(*a.at.loc.source, a.at.loc.offset);  // a placement always has a source
    std::string s = fmt::format("{}:{}:{}: {} in {}\n", a.at.loc.source->name, line, column, a.what, k.name);
    if (a.unknown) return s + fmt::format("  not modelled: {}\n", *a.unknown);
    SymbolicAccess acc = rules::symbolic_access(m, k, a);
    if (a.cost_unknown) {
      acc.instr = nullptr;
      s += fmt::format("  its bank cost is not modelled: {}\n", *a.cost_unknown);
    }
    SymbolicWitness w;
    std::string from = "the lowest value of each unknown";
    try {
      // --set names an unknown as findings show it (or by its PTX name); its value wins.
      const SymbolicWitness lowest = warp_at(acc, {});
      std::map<std::string, int64_t> chosen;
      for (const auto& [name, v] : values) {
        auto it = std::find_if(lowest.uniforms.begin(), lowest.uniforms.end(),
                               [&](const auto& u) { return u.first == name || k.shown_uniform(u.first) == name; });
        if (it == lowest.uniforms.end()) {
          std::vector<std::string> names;
          for (const auto& u : lowest.uniforms) names.push_back(k.shown_uniform(u.first));
          throw InputError(fmt::format("{} in {}: --set {}: the access does not depend on it (its unknowns: {})", a.what, k.name,
                                       name, names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "))));
        }
        chosen[it->first] = v;
      }
      if (acc.instr) {
        const SymbolicResult r = decide_symbolic_access(acc, Engine::Auto, SolverLimits{});
        const SymbolicProperty* refuted = nullptr;
        for (const SymbolicProperty* p : {&r.conflicts, &r.alignment, &r.bounds})
          if (!refuted && p->witness) refuted = p;
        if (refuted) {
          for (const auto& [name, v] : refuted->witness->uniforms) chosen.emplace(name, v);
          from = "the counterexample's values";
        } else if (r.conflicts.verdict == Verdict::Proven) {
          from += " (proven conflict-free for all)";
        }
      }
      w = warp_at(acc, chosen);
    } catch (const std::invalid_argument& e) {
      throw InputError(fmt::format("{} in {}: {}", a.what, k.name, e.what()));
    }
    std::vector<std::string> shown;
    for (const auto& [name, v] : w.uniforms) shown.push_back(fmt::format("{} = {}", k.shown_uniform(name), v));
    s += fmt::format("  at {}: {}\n", set_.empty() ? from : "--set and " + from, shown.empty() ? "(no unknowns)" : fmt::format("{}", fmt::join(shown, ", ")));
    if (!acc.instr) return s + "  no bank model for this instruction: lanes and addresses only\n" +
                           lane_rows(w, acc.bytes);
    rules::BankConflictCex cex;
    cex.instruction = acc.instr->name;
    cex.arch = m.arch->name;
    cex.lane_addresses = w.addresses;
    if (w.active != hw::kAllLanes) cex.active_lanes = w.active;
    std::optional<report::BankView> v;
    try {
      v = report::bank_view(cex);
    } catch (const std::exception& e) {
      return s + fmt::format("  the hardware model refuses this warp: {}\n", e.what()) + lane_rows(w, acc.bytes);
    }
    s += fmt::format("  as {} on {}: {} wavefront{}, ideal {}{}\n", acc.instr->name, m.arch->name, v->cost.wavefronts,
                     v->cost.wavefronts == 1 ? "" : "s", v->cost.ideal, v->cost.merged ? " (merged)" : "");
    if (!w.active) s += "  no lane executes the instruction at these values (a warp outside the block, a guard that is false)\n";
    s += phase_rows(*v, [](int) { return std::string("-"); });
    if (!html_.empty()) write_picture(cex, fmt::format("{} in {}", a.what, k.name), s);
    return s;
  }

  // Lanes and addresses without banks.
  static std::string lane_rows(const SymbolicWitness& w, int bytes) {
    std::string s = "    lane   byte  bytes\n";
    for (int lane = 0; lane < hw::kWarpLanes; ++lane)
      s += (w.active >> lane) & 1 ? fmt::format("    {:>4}  {:>5}  {}\n", lane, w.addresses[static_cast<size_t>(lane)], bytes)
                                  : fmt::format("    {:>4}  (inactive)\n", lane);
    return s;
  }

  // Each phase of `v`: its lanes, wavefronts, busiest bank and words, then one row per lane.
  static std::string phase_rows(const report::BankView& v, const std::function<std::string(int)>& coordinate) {
    std::string s;
    for (size_t k = 0; k < v.cost.phases.size(); ++k) {
      const hw::PhaseCost& ph = v.cost.phases[k];
      if (ph.words.empty()) {  // every lane of the phase is inactive
        s += fmt::format("  phase {} (lanes {}): no active lane; {} wavefront\n", k, lane_list(ph.lanes), ph.wavefronts);
        continue;
      }
      s += fmt::format("  phase {} (lanes {}): {} wavefront{}; busiest bank {} delivers {} word{}: {}\n", k, lane_list(ph.lanes),
                       ph.wavefronts, ph.wavefronts == 1 ? "" : "s", ph.bank, ph.words.size(), ph.words.size() == 1 ? "" : "s",
                       fmt::join(ph.words, ", "));
      s += "    lane  coordinate        byte  banks          words\n";
      for (int lane : ph.lanes) {
        if (!v.is_active(lane)) {
          s += fmt::format("    {:>4}  (inactive: does not execute the instruction)\n", lane);
          continue;
        }
        const int64_t a = v.addresses[static_cast<size_t>(lane)];
        const std::vector<int64_t> words = hw::words_of(*v.arch, *v.instr, a);
        const std::vector<int> banks = v.banks_of(lane);
        const bool busiest = ph.wavefronts > 1 && std::find(banks.begin(), banks.end(), ph.bank) != banks.end();
        s += fmt::format("    {:>4}  {:<16}  {:>5}  {:<13}  {}{}\n", lane, coordinate(lane), a, fmt::format("{}", fmt::join(banks, ",")),
                         fmt::join(words, ","), busiest ? "  <- busiest bank" : "");
      }
    }
    return s;
  }

  // --html: the picture of one warp, as the HTML report draws a counterexample.
  void write_picture(const rules::BankConflictCex& cex, const std::string& message, std::string& s) const {
    rules::Finding f;
    f.rule_id = "LP002";
    f.severity = Severity::Note;
    f.message = message;
    f.counterexample = cex;
    report::FindingsDoc doc;
    doc.findings.push_back(report::ReportedFinding{std::move(f), std::nullopt});
    write_output(report::render_html_report(doc), html_, "HTML picture");
    s += fmt::format("  picture: {}\n", html_);
  }

  static size_t line_of(const annotate::Statement& s) { return line_col_of(*s.loc.source, s.loc.offset).first; }

  static std::string name_of(const annotate::Statement& s) {
    if (auto* acc = std::get_if<annotate::AccessDecl>(&s.body)) return acc->name ? acc->name->text : "";
    if (auto* b = std::get_if<annotate::BufferDecl>(&s.body)) return b->name.text;
    if (auto* c = std::get_if<annotate::ComposeDecl>(&s.body)) return c->name.text;
    if (auto* d = std::get_if<annotate::DivideDecl>(&s.body)) return d->name.text;
    if (auto* p = std::get_if<annotate::ProductDecl>(&s.body)) return p->name.text;
    return "";
  }

  std::string explain_access(const rules::BufferGraph& graph, const annotate::AccessDecl& acc) const {
    std::optional<SmemAccess> access;
    try {
      access = rules::declared_access(graph, acc);
    } catch (const AccessError& e) {
      throw InputError(fmt::format("the access cannot be modelled: {}", e.what()));
    }
    if (!access) throw InputError(fmt::format("buffer '{}' has no layout or element type", acc.buffer.text));
    const annotate::BufferDecl& buf = *graph.buffer(acc.buffer.text);
    if (issue_ < 0 || issue_ >= access->issue_count())
      throw InputError(fmt::format("--issue {}: the access issues {} instructions (0..{})", issue_, access->issue_count(),
                                   access->issue_count() - 1));
    if (base_ < 0 || base_ % access->base_align() != 0)
      throw InputError(fmt::format("--base {}: the base is a non-negative multiple of the buffer's {}-byte alignment", base_,
                                   access->base_align()));
    std::vector<int64_t> addresses;
    try {
      addresses = access->addresses(issue_, base_);
    } catch (const AccessError& e) {
      throw InputError(fmt::format("issue {} at base {}: {}", issue_, base_, e.what()));
    }
    rules::BankConflictCex cex;
    cex.issue = issue_;
    cex.base = base_;
    cex.instruction = acc.instr->name;
    cex.arch = access->arch().name;
    cex.lane_addresses = addresses;
    cex.smem_layout = buf.layout->instance_text();
    cex.lanes_layout = acc.lanes.instance_text();
    cex.dtype = buf.dtype->name;
    if (access->active() != hw::kAllLanes) cex.active_lanes = access->active();
    const report::BankView v = report::bank_view(cex);
    std::string s = fmt::format("{} on '{}' ({} {}, align {}), issued instruction {} of {} at base {}: {} wavefronts, ideal {}\n",
                                acc.instr->name, acc.buffer.text, buf.dtype->name, buf.layout->instance_text(), access->base_align(),
                                issue_, access->issue_count(), base_, v.cost.wavefronts, v.cost.ideal);
    s += phase_rows(v, [&](int lane) { return fmt::format("({})", fmt::join(access->coordinate(lane, issue_), ",")); });
    if (!html_.empty())
      write_picture(cex, fmt::format("{} on '{}', issued instruction {} at base {}", acc.instr->name, acc.buffer.text, issue_, base_), s);
    return s;
  }

  std::string explain_layout(const rules::BufferGraph& graph, const rules::AlgebraSteps& algebra, const std::string& name) const {
    std::optional<Layout> layout;
    if (auto named = graph.layout_of(name)) layout = named->layout;
    else if (const rules::AlgebraStep* step = algebra.step(name); step && step->result) layout = *step->result;
    if (!layout) throw InputError(fmt::format("'{}' has no layout to show", name));
    if (!layout->has_domain()) throw InputError(fmt::format("'{}' is a bare descriptor: it has no domain to show", name));
    const auto& modes = layout->modes();
    std::string s = fmt::format("'{}' = {} ({} elements{})\n", name, print_cute_or_tirx(*layout), layout->size(),
                                layout->replicas().empty() ? "" : fmt::format(", {} replicas each", layout->replica_count()));
    auto range = [&](const std::string& text, size_t mode) -> std::pair<int64_t, int64_t> {
      const int64_t extent = mode < modes.size() ? modes[mode].extent.count() : 1;
      if (text.empty()) return {0, std::min<int64_t>(extent, 16) - 1};
      auto r = range_option(text, mode == 0 ? "--rows" : "--cols");
      if (r.second >= extent) throw InputError(fmt::format("the range {} passes mode {}'s extent {}", text, mode, extent));
      return r;
    };
    // The first mode is the rows, the second the columns, the rest fixed at 0 (modes counted as
    // `eval --at` counts them: the leaves, in order).
    const size_t top = modes.size();
    const auto [r0, r1] = range(rows_, 0);
    const auto [c0, c1] = top > 1 ? range(cols_, 1) : std::pair<int64_t, int64_t>{0, 0};
    std::vector<std::string> head{"", ""};
    std::vector<std::vector<std::string>> cells;
    for (int64_t r = r0; r <= r1; ++r) {
      std::vector<std::string> row{std::to_string(r)};
      for (int64_t c = c0; c <= c1; ++c) {
        std::vector<int64_t> coord(top, 0);
        coord[0] = r;
        if (top > 1) coord[1] = c;
        std::string images;
        for (const Point& p : layout->images(layout->index_of(coord)))
          images += (images.empty() ? "" : "|") + point_text(*layout, p);
        row.push_back(images);
      }
      cells.push_back(std::move(row));
    }
    size_t width = 0;
    for (const auto& row : cells)
      for (size_t k = 1; k < row.size(); ++k) width = std::max(width, row[k].size());
    s += fmt::format("  {:>5}", top > 1 ? "r\\c" : "i");
    for (int64_t c = c0; c <= c1; ++c) s += fmt::format("  {:>{}}", top > 1 ? std::to_string(c) : "", width);
    s += "\n";
    for (const auto& row : cells) {
      s += fmt::format("  {:>5}", row[0]);
      for (size_t k = 1; k < row.size(); ++k) s += fmt::format("  {:>{}}", row[k], width);
      s += "\n";
    }
    return s;
  }

  static std::string point_text(const Layout& l, const Point& p) {
    if (l.is_scalar()) return std::to_string(p[0]);
    std::string s;
    for (size_t k = 0; k < p.size(); ++k) s += fmt::format("{}{}={}", k ? "," : "", l.axes()[k].spelling(), p[k]);
    return s;
  }

  std::string target_, rows_, cols_, html_, ptx_, arch_{hw::kDefaultArchName};
  std::vector<std::string> set_;
  bool cuda_ = false;
  int64_t issue_ = 0, base_ = 0;
};

}  // namespace

std::unique_ptr<Command> make_explain_command() { return std::make_unique<ExplainCommand>(); }

}  // namespace lp::cli
