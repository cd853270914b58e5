#include "hw/Fragments.h"

#include <algorithm>
#include <fmt/format.h>


namespace lp::hw {

namespace {

constexpr const char* kPtxMma = "PTX ISA, mma.sync matrix fragments (sec. \"Matrix Fragments for mma.m16n8k*\")";
constexpr const char* kPtxWgmma = "PTX ISA, wgmma.mma_async register fragments (the accumulator and A-operand figures)";
constexpr const char* kPtxLdmatrix = "PTX ISA, ldmatrix/stmatrix (the fragment figure of each matrix shape)";
constexpr const char* kTcgen05 =
    "PTX ISA, tcgen05 matrix fragments (tcgen05.ld/st shapes); CUTLASS copy_traits_sm100.hpp SM100_TMEM_LOAD_*";

// One mode of a TIRx shard S[(extents):(stride@axis, ...)].
struct ShardMode {
  int64_t extent;
  int64_t stride;
  const char* axis;
};

// TIRx's S[(e0,e1,...):(s0@a0,s1@a1,...)]: the modes flattened row-major (TIRx's order), each moving
// along one named axis.
lp::Layout shard(const std::vector<ShardMode>& modes) {
  LayoutParts p;
  p.order = IndexOrder::RowMajor;
  for (const ShardMode& m : modes)
    if (std::find(p.axes.begin(), p.axes.end(), Axis::named(m.axis)) == p.axes.end()) p.axes.push_back(Axis::named(m.axis));
  for (const ShardMode& m : modes) {
    Point stride(p.axes.size(), 0);
    stride[static_cast<size_t>(std::find(p.axes.begin(), p.axes.end(), Axis::named(m.axis)) - p.axes.begin())] = m.stride;
    p.modes.push_back(Mode{m.extent, std::move(stride)});
  }
  p.nest = Nest::flat(modes.size());
  return lp::Layout::make(std::move(p));
}

Fragment make(std::string name, std::string summary, std::string row_name, std::string col_name, int64_t rows,
              int64_t cols, lp::Layout layout, std::string source) {
  if (layout.size() != rows * cols)
    throw LayoutError(fmt::format("fragment {}: layout size {} is not {}x{}", name, layout.size(), rows, cols));
  return Fragment{std::move(name), std::move(summary), std::move(row_name), std::move(col_name), rows, cols,
                  std::move(source), std::move(layout)};
}

// Shared element orders (derivations in docs/hardware.md):
// C of every m16n8 mma, A of m16n8k8 f16: row = g + 8*(r/2), col = 2t + r%2 (g = lane/4, t = lane%4).
const std::vector<ShardMode> kM16N8Accum = {{2, 2, "reg"}, {8, 4, "laneid"}, {4, 1, "laneid"}, {2, 1, "reg"}};
// A of m16n8k16 f16/bf16: row = g + 8*((r/2)%2), col = 2t + r%2 + 8*(r/4).
const std::vector<ShardMode> kM16K16HalfA = {{2, 2, "reg"}, {8, 4, "laneid"}, {2, 4, "reg"}, {4, 1, "laneid"}, {2, 1, "reg"}};

void add_mma(std::vector<Fragment>& out) {
  for (const char* t : {"f16", "bf16"}) {
    const std::string k8 = fmt::format("mma.m16n8k8.{}", t);
    out.push_back(make(k8 + ".A", "A (16x8, row-major) of mma.m16n8k8", "m", "k", 16, 8, shard(kM16N8Accum), kPtxMma));
    out.push_back(make(k8 + ".B", "B (8x8, column-major) of mma.m16n8k8", "k", "n", 8, 8,
                       shard({{4, 1, "laneid"}, {2, 1, "reg"}, {8, 4, "laneid"}}), kPtxMma));
    out.push_back(make(k8 + ".C", "C/D (16x8, f32 or f16) of mma.m16n8k8", "m", "n", 16, 8, shard(kM16N8Accum), kPtxMma));
    const std::string k16 = fmt::format("mma.m16n8k16.{}", t);
    out.push_back(make(k16 + ".A", "A (16x16, row-major) of mma.m16n8k16", "m", "k", 16, 16, shard(kM16K16HalfA), kPtxMma));
    out.push_back(make(k16 + ".B", "B (16x8, column-major) of mma.m16n8k16", "k", "n", 16, 8,
                       shard({{2, 2, "reg"}, {4, 1, "laneid"}, {2, 1, "reg"}, {8, 4, "laneid"}}), kPtxMma));
    out.push_back(make(k16 + ".C", "C/D (16x8, f32 or f16) of mma.m16n8k16", "m", "n", 16, 8, shard(kM16N8Accum), kPtxMma));
  }
  out.push_back(make("mma.m16n8k8.tf32.A", "A (16x8) of mma.m16n8k8 tf32: row = g + 8*(r%2), col = t + 4*(r/2)", "m",
                     "k", 16, 8, shard({{2, 1, "reg"}, {8, 4, "laneid"}, {2, 2, "reg"}, {4, 1, "laneid"}}), kPtxMma));
  out.push_back(make("mma.m16n8k8.tf32.B", "B (8x8) of mma.m16n8k8 tf32: k = t + 4r, n = g", "k", "n", 8, 8,
                     shard({{2, 1, "reg"}, {4, 1, "laneid"}, {8, 4, "laneid"}}), kPtxMma));
  out.push_back(make("mma.m16n8k8.tf32.C", "C/D (16x8, f32) of mma.m16n8k8 tf32", "m", "n", 16, 8, shard(kM16N8Accum), kPtxMma));
  out.push_back(make("mma.m16n8k16.int8.A", "A (16x16 s8/u8) of mma.m16n8k16: row = g + 8*(r/4), col = 4t + r%4", "m",
                     "k", 16, 16, shard({{2, 4, "reg"}, {8, 4, "laneid"}, {4, 1, "laneid"}, {4, 1, "reg"}}), kPtxMma));
  out.push_back(make("mma.m16n8k16.int8.B", "B (16x8 s8/u8) of mma.m16n8k16: k = 4t + r, n = g", "k", "n", 16, 8,
                     shard({{4, 1, "laneid"}, {4, 1, "reg"}, {8, 4, "laneid"}}), kPtxMma));
  out.push_back(make("mma.m16n8k16.int8.C", "C/D (16x8 s32) of mma.m16n8k16 s8/u8", "m", "n", 16, 8, shard(kM16N8Accum),
                     kPtxMma));
}

void add_wgmma(std::vector<Fragment>& out) {
  for (int64_t n = 8; n <= 256; n += 8)
    out.push_back(make(fmt::format("wgmma.m64n{}k16.f32.C", n),
                       fmt::format("accumulator D (64x{}, f32; f16 packs the same order) of wgmma.m64n{}k16", n, n),
                       "m", "n", 64, n,
                       shard({{4, 1, "warpid"}, {2, 2, "reg"}, {8, 4, "laneid"}, {n / 8, 4, "reg"}, {4, 1, "laneid"}, {2, 1, "reg"}}),
                       kPtxWgmma));
  for (const char* t : {"f16", "bf16"})
    out.push_back(make(fmt::format("wgmma.m64nNk16.{}.A", t),
                       "A (64x16) from registers of wgmma.m64nNk16 (any N): warp w holds rows 16w..16w+15 as mma.m16n8k16 A",
                       "m", "k", 64, 16, shard({{4, 1, "warpid"}, {2, 2, "reg"}, {8, 4, "laneid"}, {2, 4, "reg"}, {4, 1, "laneid"}, {2, 1, "reg"}}), kPtxWgmma));
}

void add_matrix_loads(std::vector<Fragment>& out) {
  for (const char* op : {"ldmatrix", "stmatrix"})
    for (int64_t x : {1, 2, 4}) {
      const int64_t rows = 8 * x;
      out.push_back(make(fmt::format("{}.x{}", op, x),
                         fmt::format("{} 8x8 b16 matrices stacked (row = 8*matrix + row in matrix): "
                                     "lane l holds row l/4, columns 2*(l%4)+{{0,1}} of each matrix",
                                     x),
                         "8*matrix + row", "col", rows, 8,
                         shard({{x, 2, "reg"}, {8, 4, "laneid"}, {4, 1, "laneid"}, {2, 1, "reg"}}), kPtxLdmatrix));
      out.push_back(make(fmt::format("{}.x{}.trans", op, x),
                         fmt::format("{} 8x8 b16 matrices, transposed: lane l holds column l/4, "
                                     "rows 2*(l%4)+{{0,1}} of each matrix as stored",
                                     x),
                         "8*matrix + row", "col", rows, 8,
                         shard({{x, 2, "reg"}, {4, 1, "laneid"}, {2, 1, "reg"}, {8, 4, "laneid"}}), kPtxLdmatrix));
    }
}

void add_tcgen05(std::vector<Fragment>& out) {
  out.push_back(make("tcgen05.ld.32x32b", "tcgen05.ld.32x32b.x1 over a warpgroup: thread 32w+l reads TMEM lane 32w+l",
                     "TMEM lane", "32-bit column", 128, 1, shard({{4, 1, "warpid"}, {32, 1, "laneid"}}), kTcgen05));
  out.push_back(make("tcgen05.ld.16x64b",
                     "tcgen05.ld.16x64b.x1, one warp, rows relative to its TMEM lane base: "
                     "lane l reads row l/4 + 8*(l%2), column (l/2)%2",
                     "TMEM lane", "32-bit column", 16, 2, shard({{2, 1, "laneid"}, {8, 4, "laneid"}, {2, 2, "laneid"}}), kTcgen05));
  out.push_back(make("tcgen05.ld.16x128b",
                     "tcgen05.ld.16x128b.x1, one warp: lane l reads rows l/4 + 8r, column l%4", "TMEM lane",
                     "32-bit column", 16, 4, shard({{2, 1, "reg"}, {8, 4, "laneid"}, {4, 1, "laneid"}}), kTcgen05));
  out.push_back(make("tcgen05.ld.16x256b",
                     "tcgen05.ld.16x256b.x1, one warp: lane l reads rows l/4 + 8*(r/2), columns 2*(l%4) + r%2",
                     "TMEM lane", "32-bit column", 16, 8, shard(kM16N8Accum), kTcgen05));
}

std::vector<Fragment> build_catalog() {
  std::vector<Fragment> out;
  add_mma(out);
  add_wgmma(out);
  add_matrix_loads(out);
  add_tcgen05(out);
  return out;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

int64_t coordinate(const Layout& layout, const Point& p, const char* axis) {
  auto a = layout.axis_index(Axis::named(axis));
  return a ? p[*a] : 0;
}

}  // namespace

const std::vector<Fragment>& fragment_catalog() {
  static const std::vector<Fragment> kCatalog = build_catalog();
  return kCatalog;
}

const Fragment* find_fragment(std::string_view name) {
  for (const Fragment& f : fragment_catalog())
    if (f.name == name) return &f;
  return nullptr;
}

std::vector<std::string> similar_fragment_names(std::string_view name, size_t limit) {
  std::vector<std::pair<size_t, std::string>> scored;
  for (const Fragment& f : fragment_catalog()) {
    size_t common = 0;
    while (common < name.size() && common < f.name.size() && name[common] == f.name[common]) ++common;
    // Rank by edit distance, breaking ties by the longer shared prefix.
    scored.emplace_back(edit_distance(name, f.name) * 1000 + (1000 - std::min<size_t>(common, 999)), f.name);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (size_t k = 0; k < scored.size() && k < limit; ++k) out.push_back(scored[k].second);
  return out;
}

FragmentSlot fragment_slot(const Fragment& fragment, int64_t row, int64_t col) {
  if (row < 0 || row >= fragment.rows || col < 0 || col >= fragment.cols)
    throw LayoutError(fmt::format("({}, {}) is outside the {}x{} tile of {}", row, col, fragment.rows, fragment.cols,
                                  fragment.name));
  const Point p = fragment.layout.images(row * fragment.cols + col).front();
  return {coordinate(fragment.layout, p, "warpid"), coordinate(fragment.layout, p, "laneid"),
          coordinate(fragment.layout, p, "reg")};
}

}  // namespace lp::hw
