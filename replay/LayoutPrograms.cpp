// The replays of LP001 and LP004: every write of a layout, or every point of its target, evaluated
// on the host with LayoutProof's IR and counted on the device.
#include <fmt/format.h>

#include <algorithm>

#include "analyzer/parse/Parsers.h"
#include "replay/ProgramTemplates.h"
#include "replay/Programs.h"

namespace lp::replay {

using detail::c_array;
using detail::fill;
using detail::header;
using detail::kCudaCheckSource;

namespace {

// A C++ string literal of arbitrary text (messages, layouts).
std::string c_string(std::string_view text) {
  std::string s = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') s += '\\';
    if (c == '\n') { s += "\\n"; continue; }
    s += c;
  }
  return s + "\"";
}

constexpr int64_t kMaxTable = int64_t{1} << 18;  // table entries a program's source may carry
constexpr int64_t kMaxPlaces = int64_t{1} << 24;  // device cells a program may allocate

std::string names_list(const std::vector<std::string>& names) {
  std::string s;
  for (size_t k = 0; k < names.size(); ++k) s += (k ? ", " : "") + c_string(names[k]);
  return s;
}

Layout counterexample_layout(const std::string& layout, const std::vector<int64_t>& params) {
  if (!params.empty()) throw ReplayError("the layout has parameters; the replay needs one concrete instance");
  return parse_layout_text(layout, "<counterexample>").layout;
}

}  // namespace

std::string injectivity_program(const FindingSite& finding, const rules::InjectivityCex& cex) {
  const Layout layout = counterexample_layout(cex.layout, cex.params);
  const std::array<int64_t, 2>& pair = cex.indices;
  for (int64_t i : pair)
    if (i < 0 || i >= layout.size())
      throw ReplayError(fmt::format("{} counterexample: index {} is outside the layout's {} elements", finding.rule, i, layout.size()));
  const WriteTable t = layout_writes(layout);
  const int64_t places = t.extent.empty() ? 1 : [&] {
    int64_t n = 1;
    for (int64_t e : t.extent) n = n > kMaxPlaces / e ? kMaxPlaces + 1 : n * e;
    return n;
  }();
  if (static_cast<int64_t>(t.index.size()) > kMaxTable || places > kMaxPlaces)
    throw ReplayError(fmt::format("{} writes onto {} places is more than a replay carries ({} writes, {} places)",
                                  t.index.size(), places, kMaxTable, kMaxPlaces));
  const Point image = layout.images(pair[0]).front();
  const int64_t place = t.place_of(image);
  const int64_t predicted = std::count(t.place.begin(), t.place.end(), place);
  return header(finding) + std::string(kCudaCheckSource) +
         fill(std::string(detail::kInjectivitySource),
              {{"LAYOUT", c_string(cex.layout)},
               {"AXES", std::to_string(t.axes.size())},
               {"AXIS_NAMES", names_list(t.axes)},
               {"LO", c_array(t.lo)},
               {"EXTENT", c_array(t.extent)},
               {"PLACES", std::to_string(places)},
               {"WRITES", std::to_string(t.index.size())},
               {"INDEX_A", std::to_string(pair[0])},
               {"INDEX_B", std::to_string(pair[1])},
               {"PLACE", std::to_string(place)},
               {"PREDICTED", std::to_string(predicted)},
               {"INDEX", c_array(t.index)},
               {"PLACE_OF", c_array(t.place)}});
}

std::string coverage_program(const FindingSite& finding, const rules::CoverageCex& cex) {
  const Layout layout = counterexample_layout(cex.layout, cex.params);
  std::vector<TargetRange> target;
  for (const rules::CoverageCex::Range& r : cex.target) target.push_back({r.axis, r.lo, r.hi});
  const std::vector<int64_t>& witness = cex.uncovered;
  if (target.empty() || witness.size() != target.size())
    throw ReplayError(finding.rule + " counterexample: the uncovered point and the target differ in axes");
  int64_t points = 1, witness_linear = 0;
  std::vector<std::string> names;
  std::vector<int64_t> lo, hi;
  for (size_t a = 0; a < target.size(); ++a) {
    const int64_t n = target[a].hi - target[a].lo + 1;
    if (n < 1 || points > kMaxPlaces / n) throw ReplayError("the target box is empty or larger than a replay carries");
    points *= n;
    witness_linear = witness_linear * n + (witness[a] - target[a].lo);
    names.push_back(target[a].axis);
    lo.push_back(target[a].lo);
    hi.push_back(target[a].hi);
  }
  const CoverTable t = cover_table(layout, target);
  if (static_cast<int64_t>(t.projected.size()) > kMaxTable)
    throw ReplayError(fmt::format("{} projected images is more than a replay carries ({})", t.projected.size(), kMaxTable));
  // The host's own count of uncovered points, from the same table the GPU marks from.
  std::vector<bool> covered(static_cast<size_t>(points));
  for (size_t w = 0; w < t.projected.size(); w += target.size()) {
    int64_t linear = 0;
    bool inside = true;
    for (size_t a = 0; a < target.size(); ++a) {
      const int64_t c = t.projected[w + a];
      inside = inside && c >= lo[a] && c <= hi[a];
      linear = linear * (hi[a] - lo[a] + 1) + (c - lo[a]);
    }
    if (inside) covered[static_cast<size_t>(linear)] = true;
  }
  const int64_t predicted = std::count(covered.begin(), covered.end(), false);
  return header(finding) + std::string(kCudaCheckSource) +
         fill(std::string(detail::kCoverageSource),
              {{"LAYOUT", c_string(cex.layout)},
               {"AXES", std::to_string(target.size())},
               {"AXIS_NAMES", names_list(names)},
               {"LO", c_array(lo)},
               {"HI", c_array(hi)},
               {"POINTS", std::to_string(points)},
               {"IMAGES", std::to_string(t.projected.size() / target.size())},
               {"PREDICTED", std::to_string(predicted)},
               {"WITNESS", std::to_string(witness_linear)},
               {"PROJECTED", c_array(t.projected)}});
}

}  // namespace lp::replay
