#include "replay/Replay.h"

#include <fmt/format.h>

#include <fstream>
#include <regex>

#include "replay/Programs.h"
#include "findings/Finding.h"

namespace lp::replay {

using nlohmann::json;

int64_t WriteTable::place_of(const Point& p) const {
  int64_t linear = 0;
  for (size_t a = 0; a < extent.size(); ++a) linear = linear * extent[a] + (p[a] - lo[a]);
  return linear;
}

WriteTable layout_writes(const Layout& layout) {
  WriteTable t;
  for (const Axis& a : layout.axes()) t.axes.push_back(a.spelling());
  std::vector<std::vector<Point>> images;
  const int64_t size = layout.size();
  if (size * layout.replica_count() > kMaxEnumeration)
    throw ReplayError(fmt::format("the layout has {} images; a replay enumerates at most {}", size * layout.replica_count(), kMaxEnumeration));
  std::vector<int64_t> hi;
  for (int64_t i = 0; i < size; ++i) {
    images.push_back(layout.images(i));
    for (const Point& p : images.back()) {
      if (t.lo.empty()) t.lo = hi = p;
      for (size_t a = 0; a < p.size(); ++a) {
        t.lo[a] = std::min(t.lo[a], p[a]);
        hi[a] = std::max(hi[a], p[a]);
      }
    }
  }
  for (size_t a = 0; a < t.lo.size(); ++a) t.extent.push_back(hi[a] - t.lo[a] + 1);
  for (int64_t i = 0; i < size; ++i)
    for (const Point& p : images[static_cast<size_t>(i)]) {
      t.index.push_back(i);
      t.place.push_back(t.place_of(p));
    }
  return t;
}

CoverTable cover_table(const Layout& layout, const std::vector<TargetRange>& target) {
  CoverTable t{target, {}};
  std::vector<size_t> column;
  for (const TargetRange& r : target) {
    std::optional<size_t> k = layout.axis_index(Axis::named(r.axis));
    if (!k) throw ReplayError("the layout has no axis '" + r.axis + "' to cover");
    column.push_back(*k);
  }
  const int64_t size = layout.size();
  if (size * layout.replica_count() > kMaxEnumeration)
    throw ReplayError(fmt::format("the layout has {} images; a replay enumerates at most {}", size * layout.replica_count(), kMaxEnumeration));
  for (int64_t i = 0; i < size; ++i)
    for (const Point& p : layout.images(i))
      for (size_t k : column) t.projected.push_back(p[k]);
  return t;
}

std::optional<Outcome> parse_outcome(std::string_view output) {
  static const std::regex kLine(R"(LP_REPLAY method=(\w+) predicted (-?\d+), measured (-?\d+))");
  std::match_results<std::string_view::const_iterator> m;
  std::optional<Outcome> last;
  for (auto it = output.begin(); std::regex_search(it, output.end(), m, kLine); it = m[0].second) {
    Outcome o;
    o.method = m[1].str();
    o.predicted = std::stoll(m[2].str());
    o.measured = std::stoll(m[3].str());
    // ncu and exact replays must equal the prediction; a clock64 or timing estimate agrees within a
    // quarter (docs/replay.md); an unmeasured replay (no ncu, no calibrated timing) never agrees.
    const bool estimate = o.method == "clock64" || o.method == "timing";
    o.agrees = o.method == "unmeasured" ? false
               : estimate ? std::abs(o.measured - o.predicted) <= std::max<int64_t>(1, o.predicted / 4)
                                       : o.measured == o.predicted;
    last = o;
  }
  return last;
}

namespace {

// The program of each kind of counterexample a GPU can show, or why there is none.
struct ProgramFor {
  const FindingSite& site;
  Replay& replay;

  void operator()(const rules::BankConflictCex& c) const {
    replay.source = bank_program(site, c);
    replay.profiled = true;
    if (hw::smem_instr(c.instruction).min_sm >= 90) replay.min_sm = 90;
  }
  void operator()(const rules::AsyncSectorCex& c) const { replay.source = async_sector_program(site, c); }
  void operator()(const rules::InjectivityCex& c) const { replay.source = injectivity_program(site, c); }
  void operator()(const rules::CoverageCex& c) const { replay.source = coverage_program(site, c); }
  void operator()(std::monostate) const { replay.why_not = "no counterexample to replay"; }
  void operator()(const rules::AccessErrorCex&) const {
    replay.why_not = "an access outside the buffer or misaligned: the hardware faults or reads elsewhere, nothing to count";
  }
  void operator()(const rules::AlgebraCex&) const {
    replay.why_not = "layout algebra: the witness is arithmetic on the host, nothing for a GPU to show";
  }
  void operator()(const rules::SwizzleMismatchCex&) const {
    replay.why_not = "swizzle mismatch between a layout and a TMA/descriptor mode: no per-lane access to replay";
  }
  void operator()(const rules::ByteSwizzleCex&) const {
    replay.why_not = "byte-vs-element swizzle spelling: a naming finding, no access to replay";
  }
  void operator()(const rules::BaseAlignmentCex&) const {
    replay.why_not = "base alignment: depends on the allocation, not on an access a warp makes";
  }
  void operator()(const rules::TmaBoxCex&) const {
    replay.why_not = "TMA box: a host-side tensor-map property, no shared-memory access of a warp to replay";
  }
  void operator()(const rules::CuteDriftCex&) const {
    replay.why_not = "CuTe drift: two layouts compared on the host, nothing for a GPU to show";
  }
  // A kind added in findings/Counterexample.h replays nothing until it has an overload here: adding a
  // rule and its kind needs no change outside rules/.
  template <class Cex>
  void operator()(const Cex& c) const {
    replay.why_not = fmt::format("no replay program for {} counterexamples", rules::counterexample_kind(rules::Counterexample(c)));
  }
};

}  // namespace

std::vector<Replay> generate_replays(const json& doc) {
  if (!doc.is_object() || !doc.contains("findings") || !doc.at("findings").is_array())
    throw ReplayError("not a findings document: expected {\"findings\": [...]} from `layoutproof check --format json`");
  std::vector<Replay> out;
  const json& findings = doc.at("findings");
  for (size_t k = 0; k < findings.size(); ++k) {
    Replay r;
    r.finding = k;
    rules::Finding f;
    try {
      f = rules::finding_from_json(findings[k]);
    } catch (const rules::FindingJsonError& e) {  // the others still replay
      r.rule = "unreadable";
      r.name = fmt::format("f{:02}_unreadable", k);
      r.why_not = std::string("cannot replay: ") + e.what();
      out.push_back(std::move(r));
      continue;
    }
    r.rule = f.rule_id;
    const auto [line, column] = f.loc.source ? line_col_of(*f.loc.source, f.loc.offset) : std::pair<size_t, size_t>{0, 0};
    r.site = FindingSite{f.rule_id, rules::file_of(f.loc), f.message, static_cast<int64_t>(line), static_cast<int64_t>(column)};
    r.name = fmt::format("f{:02}_{}_line{}", k, r.rule, r.site.line);
    if (f.kind != rules::FindingKind::Violation) {
      r.why_not = fmt::format("no counterexample to replay ({})", rules::kind_name(f.kind));
    } else {
      try {
        std::visit(ProgramFor{r.site, r}, f.counterexample);
      } catch (const std::exception& e) {
        r.why_not = std::string("cannot replay: ") + e.what();
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

void write_replays(const std::vector<Replay>& replays, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream out(dir / name, std::ios::binary);
    out << text;
    if (!out) throw ReplayError("cannot write " + (dir / name).string());
  };
  std::string cmake =
      "# Builds every replay program of this directory (layoutproof replay; docs/replay.md).\n"
      "# cmake -S . -B build && cmake --build build; then run build/<program>.\n"
      "cmake_minimum_required(VERSION 3.24)\nproject(layoutproof_replays LANGUAGES CXX CUDA)\n"
      "set(CMAKE_CUDA_STANDARD 17)\nset(CMAKE_CUDA_STANDARD_REQUIRED ON)\n";
  std::string index = "# Replays\n\nOne line per finding: its CUDA program, or why it has none. Build with CMakeLists.txt "
                      "(sm_80 and sm_90a), or run them all with `layoutproof replay FINDINGS.json --out DIR --run`.\n\n";
  for (const Replay& r : replays) {
    const std::string where = r.site.file.empty() ? "no location" : fmt::format("{}:{}", r.site.file, r.site.line);
    if (r.source.empty()) {
      index += fmt::format("- {} {} ({}): not replayed: {}\n", r.name, r.rule, where, r.why_not);
      continue;
    }
    write(r.name + ".cu", r.source);
    // stmatrix exists from sm_90 on: its replays build for sm_90a only.
    cmake += fmt::format("add_executable({0} {0}.cu)\nset_target_properties({0} PROPERTIES CUDA_ARCHITECTURES \"{1}\")\n",
                         r.name, r.min_sm >= 90 ? "90a-real" : "80-real;90a-real");
    index += fmt::format("- {} {} ({}): replayed by {}.cu: {}\n", r.name, r.rule, where, r.name, r.site.message);
  }
  write("CMakeLists.txt", cmake);
  write("README.md", index);
}

}  // namespace lp::replay
