// TMA/WGMMA swizzles, box limits and descriptor encodings against the PTX ISA's bit formulas and
// hand-computed descriptor words.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "hw/HwError.h"
#include "hw/TmaSwizzle.h"

using namespace lp::hw;

namespace {

// PTX ISA (tensor swizzle modes): 128B: bits[6:4] ^= bits[9:7]; 64B: bits[5:4] ^= bits[8:7]; 32B: bit 4 ^= bit 7.
int64_t facts_swizzle(int bits, int64_t a) {
  const int64_t mask = (1 << bits) - 1;
  const int64_t low = ((a >> 4) & mask) ^ ((a >> 7) & mask);
  return (a & ~(mask << 4)) | (low << 4);
}

}  // namespace

TEST_CASE("TMA swizzles are the PTX ISA's bit maps and CuTe's byte Swizzle<B,4,3>", "[hw][tma]") {
  for (SmemSwizzle m : {SmemSwizzle::None, SmemSwizzle::B32, SmemSwizzle::B64, SmemSwizzle::B128})
    for (int64_t a = 0; a < 8192; ++a) {
      INFO(swizzle_name(m) << " address " << a);
      REQUIRE(swizzle_byte_address(m, a) == facts_swizzle(swizzle_bits(m), a));
      REQUIRE(cute_byte_swizzle(m).apply(a) == swizzle_byte_address(m, a));
    }
  CHECK(swizzle_byte_address(SmemSwizzle::B128, 0x80) == 0x90);
  CHECK(swizzle_byte_address(SmemSwizzle::B128, 0x380) == 0x3F0);
  CHECK(swizzle_byte_address(SmemSwizzle::B64, 0x180) == 0x1B0);
  CHECK(swizzle_byte_address(SmemSwizzle::B32, 0x80) == 0x90);
  CHECK(swizzle_byte_address(SmemSwizzle::B32, 0x100) == 0x100);
  CHECK(swizzle_period_bytes(SmemSwizzle::B128) == 1024);
  CHECK(swizzle_span_bytes(SmemSwizzle::B64) == 64);
  CHECK_THROWS_AS(swizzle_byte_address(SmemSwizzle::B32, -1), HwError);
}

TEST_CASE("tcgen05's 128B swizzle with 32-byte atoms XORs 32-byte chunks with the row in 4 rows", "[hw][tma]") {
  const auto s = cute_byte_swizzle(SmemSwizzle::B128, true);
  for (int64_t a = 0; a < 4096; ++a) {
    const int64_t chunk = (a >> 5) & 3, row = (a >> 7) & 3;
    REQUIRE(s.apply(a) == ((a & ~int64_t{0x60}) | ((chunk ^ row) << 5)));
  }
  CHECK_THROWS_AS(cute_byte_swizzle(SmemSwizzle::B64, true), HwError);
}

TEST_CASE("byte Swizzle<3,4,3> equals element Swizzle<3,3,3> on 16-bit, <3,2,3> on 32-bit", "[hw][tma]") {
  const auto bytes = cute_byte_swizzle(SmemSwizzle::B128);
  for (int64_t e = 0; e < 4096; ++e) {
    REQUIRE(bytes.apply(2 * e) / 2 == lp::Swizzle(3, 3, 3).apply(e));
    REQUIRE(bytes.apply(4 * e) / 4 == lp::Swizzle(3, 2, 3).apply(e));
    REQUIRE(bytes.apply(8 * e) / 8 == lp::Swizzle(3, 1, 3).apply(e));
  }
}

TEST_CASE("TMA box limits", "[hw][tma]") {
  CHECK(check_tma_box({SmemSwizzle::B128, 2, {64, 64}, 0}).ok());
  CHECK_FALSE(check_tma_box({SmemSwizzle::B128, 2, {64, 64}, 0}).pattern_shifted);
  auto wide = check_tma_box({SmemSwizzle::B128, 2, {128, 64}, 0});
  REQUIRE(wide.violations.size() == 1);
  CHECK_THAT(wide.violations[0], Catch::Contains("256 bytes") && Catch::Contains("at most 128"));
  CHECK_FALSE(check_tma_box({SmemSwizzle::B64, 2, {64, 8}, 0}).ok());
  CHECK(check_tma_box({SmemSwizzle::B64, 2, {32, 8}, 0}).ok());
  CHECK(check_tma_box({SmemSwizzle::None, 4, {256, 256}, 0}).ok());
  CHECK_FALSE(check_tma_box({SmemSwizzle::None, 2, {4}, 0}).ok());          // 8-byte inner box
  CHECK_FALSE(check_tma_box({SmemSwizzle::None, 1, {16, 257}, 0}).ok());    // extent > 256
  CHECK_FALSE(check_tma_box({SmemSwizzle::None, 2, {8, 1, 1, 1, 1, 1}, 0}).ok());  // 6 dims
  CHECK_FALSE(check_tma_box({SmemSwizzle::B32, 2, {16}, 64}).ok());          // not 128-aligned
  auto shifted = check_tma_box({SmemSwizzle::B128, 2, {64, 8}, 128});
  CHECK(shifted.ok());
  CHECK(shifted.pattern_shifted);
  CHECK_FALSE(check_tma_box({SmemSwizzle::B32, 2, {16, 8}, 256}).pattern_shifted);
}

TEST_CASE("descriptor swizzle fields per architecture", "[hw][descriptor]") {
  CHECK(wgmma_layout_field(SmemSwizzle::None) == 0);
  CHECK(wgmma_layout_field(SmemSwizzle::B128) == 1);
  CHECK(wgmma_layout_field(SmemSwizzle::B64) == 2);
  CHECK(wgmma_layout_field(SmemSwizzle::B32) == 3);
  CHECK(wgmma_swizzle_from_field(2) == SmemSwizzle::B64);
  CHECK_THROWS_AS(wgmma_swizzle_from_field(4), HwError);
  CHECK(tcgen05_swizzle_field(SmemSwizzle::None) == 0);
  CHECK(tcgen05_swizzle_field(SmemSwizzle::B128, true) == 1);
  CHECK(tcgen05_swizzle_field(SmemSwizzle::B128) == 2);
  CHECK(tcgen05_swizzle_field(SmemSwizzle::B64) == 4);
  CHECK(tcgen05_swizzle_field(SmemSwizzle::B32) == 6);
  CHECK_THROWS_AS(tcgen05_swizzle_field(SmemSwizzle::B64, true), HwError);
  CHECK(tcgen05_swizzle_from_field(1).atom_32b);
  CHECK(tcgen05_swizzle_from_field(6).mode == SmemSwizzle::B32);
  for (uint64_t bad : {3u, 5u, 7u, 8u}) CHECK_THROWS_AS(tcgen05_swizzle_from_field(bad), HwError);
}

TEST_CASE("descriptor offsets and whole descriptor words", "[hw][descriptor]") {
  CHECK(encode_descriptor_offset(0x3FFF0, "SBO") == 0x3FFF);
  CHECK(encode_descriptor_offset(1024, "SBO") == 64);
  CHECK_THROWS_WITH(encode_descriptor_offset(0x40000, "SBO"), Catch::Contains("18-bit"));
  CHECK_THROWS_WITH(encode_descriptor_offset(8, "LBO"), Catch::Contains("multiple of 16"));
  CHECK_THROWS_AS(encode_descriptor_offset(-16, "start address"), HwError);
  CHECK(descriptor_base_offset(SmemSwizzle::B128, 1024 + 128) == 1);
  CHECK(descriptor_base_offset(SmemSwizzle::B128, 0x380) == 7);
  CHECK(descriptor_base_offset(SmemSwizzle::B64, 0x380) == 3);
  CHECK(descriptor_base_offset(SmemSwizzle::B32, 0x380) == 1);
  CHECK(descriptor_base_offset(SmemSwizzle::None, 0x380) == 0);
  // start 1024 -> 0x40, LBO 16 -> 1 << 16, SBO 1024 -> 0x40 << 32, 128B -> 1 << 62.
  const MatrixDescriptor d{1024, 16, 1024, SmemSwizzle::B128, false};
  CHECK(encode_wgmma_descriptor(d) == 0x4000004000010040ull);
  // tcgen05: same offsets, fixed 0b001 at bit 46, 128B = 2 at bits 63-61.
  CHECK(encode_tcgen05_descriptor(d) == 0x4000404000010040ull);
  const MatrixDescriptor shifted{1024 + 256, 16, 1024, SmemSwizzle::B128, false};
  CHECK((encode_wgmma_descriptor(shifted) >> 49 & 7) == 2);
}

TEST_CASE("TMA box placement is what an H100 measured for every swizzle mode and inner width", "[hw][tma]") {
  // tests/data/sm90_tma_box_placement.tsv (scripts/gpu/tma_probe.cu): for each 16-bit box, whether
  // every element landed where the dense model (rows inner-extent bytes apart) or the padded model
  // (rows a swizzle span apart) puts it, the mode's swizzle then acting on the address.
  std::ifstream in(LP_TMA_PLACEMENT_TSV);
  REQUIRE(in);
  std::string line;
  int cases = 0, padded_only = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("mode", 0) == 0) continue;
    std::istringstream row(line);
    std::string mode, dense, padded;
    int64_t e0 = 0, e1 = 0, row_bytes = 0;
    row >> mode >> e0 >> e1 >> row_bytes >> dense >> padded;
    INFO(line);
    const SmemSwizzle m = mode == "none" ? SmemSwizzle::None
                          : mode == "32B" ? SmemSwizzle::B32
                          : mode == "64B" ? SmemSwizzle::B64
                                          : SmemSwizzle::B128;
    REQUIRE(swizzle_name(m) == std::string(mode == "none" ? "none" : mode));
    REQUIRE((dense == "yes" || padded == "yes"));  // the hardware followed one of the two models
    const int64_t span = int64_t{16} << swizzle_bits(m), pitch = padded == "yes" ? span : row_bytes;
    padded_only += dense == "no";
    const TmaBox box{m, 2, {e0, e1}, 0};
    for (int64_t y = 0; y < e1; ++y)
      for (int64_t x = 0; x < e0; ++x) {
        const int64_t measured = m == SmemSwizzle::None ? y * row_bytes + 2 * x : facts_swizzle(swizzle_bits(m), y * pitch + 2 * x);
        REQUIRE(tma_box_byte_offset(box, {x, y}) == measured);
      }
    ++cases;
  }
  CHECK(cases == 28);
  CHECK(padded_only == 12);  // every swizzled box narrower than its span (2 + 4 + 6): rows padded to it
  // A third dimension continues the rows: (x, y, z) is row y + E1 * z.
  const TmaBox cube{SmemSwizzle::B128, 2, {64, 8, 2}, 0};
  CHECK(tma_box_byte_offset(cube, {3, 1, 1}) == facts_swizzle(3, (1 + 8) * 128 + 6));
}
