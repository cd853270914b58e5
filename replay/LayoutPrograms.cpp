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
using detail::kCommonHost;

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

constexpr std::string_view kInjectivityTemplate = R"cu(
#include <string>

namespace {

constexpr const char* kLayout = @LAYOUT@;
constexpr int kAxes = @AXES@;
constexpr const char* kAxisNames[kAxes] = {@AXIS_NAMES@};
// Places are images linearised row-major over their bounding box [kLo, kLo + kExtent).
constexpr long long kLo[kAxes] = {@LO@};
constexpr long long kExtent[kAxes] = {@EXTENT@};
constexpr long long kPlaces = @PLACES@;
constexpr long long kWrites = @WRITES@;
constexpr long long kIndexA = @INDEX_A@, kIndexB = @INDEX_B@;  // the counterexample's colliding indices
constexpr long long kPlace = @PLACE@;        // the place both reach, by the host's evaluation of the layout
constexpr long long kPredicted = @PREDICTED@;  // writes that land on kPlace, by the same evaluation
constexpr unsigned kKeep = 4;                // writers remembered per place
// Write w stores element index kIndex[w] at place kPlaceOf[w] (one write per index and image),
// computed on the host with LayoutProof's IR (lp::parse_layout_text, Layout::images).
const long long kIndex[kWrites] = {@INDEX@};
const long long kPlaceOf[kWrites] = {@PLACE_OF@};

__global__ void write_through_layout(const long long* index, const long long* place, unsigned* count,
                                     long long* writers, long long* cell) {
  for (long long w = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; w < kWrites;
       w += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long p = place[w];
    const unsigned slot = atomicAdd(&count[p], 1u);
    if (slot < kKeep) writers[p * kKeep + slot] = index[w];
    cell[p] = index[w];  // each element writes itself at its physical place
  }
}

std::string coordinate(long long place) {
  std::string s;
  for (int a = kAxes - 1; a >= 0; --a) {
    s = std::string(kAxisNames[a]) + "=" + std::to_string(kLo[a] + place % kExtent[a]) + (s.empty() ? "" : ", ") + s;
    place /= kExtent[a];
  }
  return "(" + s + ")";
}

}  // namespace

int main() {
  std::printf("layout %s: %lld writes onto %lld places\n", kLayout, kWrites, kPlaces);
  long long *index = nullptr, *place = nullptr, *writers = nullptr, *cell = nullptr;
  unsigned* count = nullptr;
  check(cudaMalloc(&index, sizeof kIndex), "cudaMalloc");
  check(cudaMalloc(&place, sizeof kPlaceOf), "cudaMalloc");
  check(cudaMalloc(&count, kPlaces * sizeof(unsigned)), "cudaMalloc");
  check(cudaMalloc(&writers, kPlaces * kKeep * sizeof(long long)), "cudaMalloc");
  check(cudaMalloc(&cell, kPlaces * sizeof(long long)), "cudaMalloc");
  check(cudaMemcpy(index, kIndex, sizeof kIndex, cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cudaMemcpy(place, kPlaceOf, sizeof kPlaceOf, cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cudaMemset(count, 0, kPlaces * sizeof(unsigned)), "cudaMemset");
  const int blocks = static_cast<int>(std::min<long long>((kWrites + 255) / 256, 1024));
  write_through_layout<<<blocks, 256>>>(index, place, count, writers, cell);
  check(cudaDeviceSynchronize(), "write_through_layout");
  std::vector<unsigned> hcount(kPlaces);
  std::vector<long long> hwriters(kPlaces * kKeep), hcell(kPlaces);
  check(cudaMemcpy(hcount.data(), count, kPlaces * sizeof(unsigned), cudaMemcpyDeviceToHost), "cudaMemcpy");
  check(cudaMemcpy(hwriters.data(), writers, kPlaces * kKeep * sizeof(long long), cudaMemcpyDeviceToHost), "cudaMemcpy");
  check(cudaMemcpy(hcell.data(), cell, kPlaces * sizeof(long long), cudaMemcpyDeviceToHost), "cudaMemcpy");
  long long collided = 0;
  for (long long p = 0; p < kPlaces; ++p) {
    if (hcount[p] < 2) continue;
    if (++collided > 8 && p != kPlace) continue;
    std::printf("place %lld %s written %u times, by indices", p, coordinate(p).c_str(), hcount[p]);
    for (unsigned k = 0; k < std::min(hcount[p], kKeep); ++k) std::printf(" %lld", hwriters[p * kKeep + k]);
    std::printf("%s; it holds %lld\n", hcount[p] > kKeep ? " ..." : "", hcell[p]);
  }
  bool a = false, b = false;
  for (unsigned k = 0; k < std::min(hcount[kPlace], kKeep); ++k) {
    a |= hwriters[kPlace * kKeep + k] == kIndexA;
    b |= hwriters[kPlace * kKeep + k] == kIndexB;
  }
  std::printf("%lld places written more than once; indices %lld and %lld both wrote place %s: %s\n", collided,
              kIndexA, kIndexB, coordinate(kPlace).c_str(), a && b ? "yes" : "no");
  std::printf("LP_REPLAY method=exact predicted %lld, measured %u\n", kPredicted, hcount[kPlace]);
  return 0;
}
)cu";

constexpr std::string_view kCoverageTemplate = R"cu(
#include <string>

namespace {

constexpr const char* kLayout = @LAYOUT@;
constexpr int kAxes = @AXES@;
constexpr const char* kAxisNames[kAxes] = {@AXIS_NAMES@};
constexpr long long kLo[kAxes] = {@LO@};  // the target box, inclusive
constexpr long long kHi[kAxes] = {@HI@};
constexpr long long kPoints = @POINTS@;
constexpr long long kImages = @IMAGES@;
constexpr long long kPredicted = @PREDICTED@;  // uncovered target points, by the host's evaluation
constexpr long long kWitness = @WITNESS@;      // the counterexample's uncovered point (row-major in the box)
// Every image of every element index (all replicas), projected onto the target axes, computed on
// the host with LayoutProof's IR (lp::parse_layout_text, Layout::images).
const long long kProjected[kImages * kAxes] = {@PROJECTED@};

// The box travels as a kernel argument: host constexpr arrays are not visible to device code.
struct Box {
  long long lo[kAxes], hi[kAxes];
};

__global__ void mark_covered(const long long* projected, Box box, unsigned char* covered) {
  for (long long w = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; w < kImages;
       w += static_cast<long long>(gridDim.x) * blockDim.x) {
    long long linear = 0;
    bool inside = true;
    for (int a = 0; a < kAxes; ++a) {
      const long long c = projected[w * kAxes + a];
      inside &= c >= box.lo[a] && c <= box.hi[a];
      linear = linear * (box.hi[a] - box.lo[a] + 1) + (c - box.lo[a]);
    }
    if (inside) covered[linear] = 1;
  }
}

std::string coordinate(long long point) {
  std::string s;
  for (int a = kAxes - 1; a >= 0; --a) {
    const long long n = kHi[a] - kLo[a] + 1;
    s = std::string(kAxisNames[a]) + "=" + std::to_string(kLo[a] + point % n) + (s.empty() ? "" : ", ") + s;
    point /= n;
  }
  return "(" + s + ")";
}

}  // namespace

int main() {
  std::printf("layout %s: %lld images over a target of %lld points\n", kLayout, kImages, kPoints);
  long long* projected = nullptr;
  unsigned char* covered = nullptr;
  check(cudaMalloc(&projected, sizeof kProjected), "cudaMalloc");
  check(cudaMalloc(&covered, kPoints), "cudaMalloc");
  check(cudaMemcpy(projected, kProjected, sizeof kProjected, cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cudaMemset(covered, 0, kPoints), "cudaMemset");
  const int blocks = static_cast<int>(std::min<long long>((kImages + 255) / 256, 1024));
  Box box;
  for (int a = 0; a < kAxes; ++a) {
    box.lo[a] = kLo[a];
    box.hi[a] = kHi[a];
  }
  mark_covered<<<blocks, 256>>>(projected, box, covered);
  check(cudaDeviceSynchronize(), "mark_covered");
  std::vector<unsigned char> host(kPoints);
  check(cudaMemcpy(host.data(), covered, kPoints, cudaMemcpyDeviceToHost), "cudaMemcpy");
  long long missing = 0;
  for (long long p = 0; p < kPoints; ++p) {
    if (host[p]) continue;
    if (++missing <= 16) std::printf("missing %s\n", coordinate(p).c_str());
  }
  if (missing > 16) std::printf("... %lld missing in all\n", missing);
  std::printf("the counterexample's point %s is %s\n", coordinate(kWitness).c_str(), host[kWitness] ? "covered" : "missing");
  std::printf("LP_REPLAY method=exact predicted %lld, measured %lld\n", kPredicted, missing);
  return 0;
}
)cu";

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
  return header(finding) + std::string(kCommonHost) +
         fill(std::string(kInjectivityTemplate),
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
  return header(finding) + std::string(kCommonHost) +
         fill(std::string(kCoverageTemplate),
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
