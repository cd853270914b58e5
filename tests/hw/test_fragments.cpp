// Every catalog fragment, evaluated over its whole tile, against formulas written directly from
// the PTX ISA fragment figures and CUTLASS's TMEM bit layouts.
#include <catch2/catch.hpp>
#include <functional>
#include <regex>
#include <set>

#include "analyzer/ir/Print.h"
#include "hw/Fragments.h"

using lp::hw::Fragment;
using lp::hw::FragmentSlot;

namespace {

struct Element {
  int64_t row, col;
};
// (warp, lane, reg) -> tile element, as the reference states it.
using Oracle = std::function<Element(int64_t w, int64_t l, int64_t r)>;

struct Reference {
  int64_t warps;  // threads = 32 * warps
  Oracle at;
};

// PTX ISA names: groupID = lane / 4, threadID_in_group = lane % 4.
int64_t g(int64_t l) { return l / 4; }
int64_t t(int64_t l) { return l % 4; }

// mma C/D of m16n8k*: "row = groupID for c0,c1; groupID+8 for c2,c3; col = 2*tig + (i & 1)".
Element mma_c(int64_t, int64_t l, int64_t r) { return {g(l) + (r >= 2 ? 8 : 0), 2 * t(l) + (r & 1)}; }

Reference reference_for(const std::string& name) {
  std::smatch m;
  if (std::regex_match(name, std::regex(R"(mma\.m16n8k(8|16)\.(f16|bf16|tf32|int8)\.C)"))) return {1, mma_c};
  if (std::regex_match(name, std::regex(R"(mma\.m16n8k8\.(f16|bf16)\.A)"))) return {1, mma_c};
  if (std::regex_match(name, std::regex(R"(mma\.m16n8k8\.(f16|bf16)\.B)")))
    return {1, [](int64_t, int64_t l, int64_t r) { return Element{2 * t(l) + r, g(l)}; }};
  if (std::regex_match(name, std::regex(R"(mma\.m16n8k16\.(f16|bf16)\.A)")))
    // a0,a1: (g, 2t+i); a2,a3: (g+8, ..); a4,a5: (g, 2t+i+8); a6,a7: (g+8, ..+8).
    return {1, [](int64_t, int64_t l, int64_t r) {
              return Element{g(l) + ((r == 2 || r == 3 || r == 6 || r == 7) ? 8 : 0), 2 * t(l) + (r & 1) + (r >= 4 ? 8 : 0)};
            }};
  if (std::regex_match(name, std::regex(R"(mma\.m16n8k16\.(f16|bf16)\.B)")))
    return {1, [](int64_t, int64_t l, int64_t r) { return Element{2 * t(l) + (r & 1) + (r >= 2 ? 8 : 0), g(l)}; }};
  if (name == "mma.m16n8k8.tf32.A")
    // a0: (g, t); a1: (g+8, t); a2: (g, t+4); a3: (g+8, t+4).
    return {1, [](int64_t, int64_t l, int64_t r) { return Element{g(l) + (r % 2) * 8, t(l) + (r >= 2 ? 4 : 0)}; }};
  if (name == "mma.m16n8k8.tf32.B")
    return {1, [](int64_t, int64_t l, int64_t r) { return Element{t(l) + 4 * r, g(l)}; }};
  if (name == "mma.m16n8k16.int8.A")
    return {1, [](int64_t, int64_t l, int64_t r) { return Element{g(l) + (r >= 4 ? 8 : 0), 4 * t(l) + (r & 3)}; }};
  if (name == "mma.m16n8k16.int8.B")
    return {1, [](int64_t, int64_t l, int64_t r) { return Element{4 * t(l) + r, g(l)}; }};
  if (std::regex_match(name, std::regex(R"(wgmma\.m64n(\d+)k16\.f32\.C)")))
    // PTX ISA, wgmma accumulator figure: row = 16w + l/4 + 8*((r/2)%2), col = 2*(l%4) + 8*(r/4) + r%2.
    return {4, [](int64_t w, int64_t l, int64_t r) {
              return Element{16 * w + l / 4 + 8 * ((r / 2) % 2), 2 * (l % 4) + 8 * (r / 4) + r % 2};
            }};
  if (std::regex_match(name, std::regex(R"(wgmma\.m64nNk16\.(f16|bf16)\.A)")))
    return {4, [](int64_t w, int64_t l, int64_t r) {
              return Element{16 * w + g(l) + 8 * ((r / 2) % 2), 2 * t(l) + (r & 1) + 8 * (r / 4)};
            }};
  if (std::regex_match(name, m, std::regex(R"((ld|st)matrix\.x(1|2|4))")))
    // Matrix k = r/2: lane l holds row l/4, columns 2*(l%4) and 2*(l%4)+1.
    return {1, [](int64_t, int64_t l, int64_t r) { return Element{8 * (r / 2) + l / 4, 2 * (l % 4) + r % 2}; }};
  if (std::regex_match(name, m, std::regex(R"((ld|st)matrix\.x(1|2|4)\.trans)")))
    return {1, [](int64_t, int64_t l, int64_t r) { return Element{8 * (r / 2) + 2 * (l % 4) + r % 2, l / 4}; }};
  if (name == "tcgen05.ld.32x32b")
    // PTX ISA, tcgen05.ld 32x32b: thread t of the warpgroup reads TMEM lane t.
    return {4, [](int64_t w, int64_t l, int64_t) { return Element{32 * w + l, 0}; }};
  // CUTLASS SM100_TMEM_LOAD_16dp*b1x DstLayout: (thread, value) -> bit of a row-major 16-row tile.
  if (name == "tcgen05.ld.16x64b")
    return {1, [](int64_t, int64_t l, int64_t) {
              const int64_t bit = 512 * (l % 2) + 32 * ((l / 2) % 2) + 64 * (l / 4);
              return Element{bit / 64, bit % 64 / 32};
            }};
  if (name == "tcgen05.ld.16x128b")
    return {1, [](int64_t, int64_t l, int64_t r) {
              const int64_t bit = 32 * (l % 4) + 128 * (l / 4) + 1024 * r;
              return Element{bit / 128, bit % 128 / 32};
            }};
  if (name == "tcgen05.ld.16x256b")
    return {1, [](int64_t, int64_t l, int64_t r) {
              const int64_t bit = 64 * (l % 4) + 256 * (l / 4) + 32 * (r % 2) + 2048 * (r / 2);
              return Element{bit / 256, bit % 256 / 32};
            }};
  FAIL("no reference formula for catalog entry " << name);
  return {};
}

}  // namespace

TEST_CASE("every catalog fragment matches its reference formula over the whole tile", "[hw][fragments]") {
  REQUIRE(lp::hw::fragment_catalog().size() == 68);
  for (const Fragment& f : lp::hw::fragment_catalog()) {
    INFO(f.name << "  " << lp::print_tirx(f.layout).text);
    const Reference ref = reference_for(f.name);
    const int64_t threads = 32 * ref.warps;
    REQUIRE(f.rows * f.cols % threads == 0);
    const int64_t regs = f.rows * f.cols / threads;
    std::set<std::pair<int64_t, int64_t>> covered;
    for (int64_t w = 0; w < ref.warps; ++w)
      for (int64_t l = 0; l < 32; ++l)
        for (int64_t r = 0; r < regs; ++r) {
          const Element e = ref.at(w, l, r);
          INFO("warp " << w << " lane " << l << " reg " << r << " -> (" << e.row << ", " << e.col << ")");
          REQUIRE(e.row >= 0);
          REQUIRE(e.row < f.rows);
          REQUIRE(e.col >= 0);
          REQUIRE(e.col < f.cols);
          REQUIRE(lp::hw::fragment_slot(f, e.row, e.col) == FragmentSlot{w, l, r});
          covered.insert({e.row, e.col});
        }
    // The reference covers the tile exactly once, so the layout is a bijection onto the slots.
    REQUIRE(static_cast<int64_t>(covered.size()) == f.rows * f.cols);
    CHECK(f.layout.replicas().empty());
  }
}

TEST_CASE("wgmma accumulators exist for every N = 8..256 in steps of 8", "[hw][fragments]") {
  for (int n = 8; n <= 256; n += 8) {
    const Fragment* f = lp::hw::find_fragment("wgmma.m64n" + std::to_string(n) + "k16.f32.C");
    REQUIRE(f != nullptr);
    CHECK(f->rows == 64);
    CHECK(f->cols == n);
  }
  CHECK(lp::hw::find_fragment("wgmma.m64n260k16.f32.C") == nullptr);
}

TEST_CASE("worked example: m64n64k16 lane 5 of warp 2", "[hw][fragments]") {
  const Fragment& f = *lp::hw::find_fragment("wgmma.m64n64k16.f32.C");
  // frag_row = 16*2 + 5/4 = 33, frag_col = (5%4)*2 = 2; acc[6] = row+8, col+8.
  CHECK(lp::hw::fragment_slot(f, 33, 2) == FragmentSlot{2, 5, 0});
  CHECK(lp::hw::fragment_slot(f, 41, 10) == FragmentSlot{2, 5, 6});
  CHECK(lp::hw::fragment_slot(f, 41, 59) == FragmentSlot{2, 5, 31});
  CHECK_THROWS(lp::hw::fragment_slot(f, 64, 0));
}

TEST_CASE("close names for a misspelt fragment", "[hw][fragments]") {
  auto near = lp::hw::similar_fragment_names("mma.m16n8k16.f16.a");
  REQUIRE_FALSE(near.empty());
  CHECK(near.front() == "mma.m16n8k16.f16.A");
  CHECK(lp::hw::similar_fragment_names("ldmatrix.x3").front().rfind("ldmatrix.x", 0) == 0);
}
