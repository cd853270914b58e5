// The reserved shared-memory region the model gives sm_90 (hw::Arch::reserved_smem_bytes,
// hw::kReservedSmemOffsetAlignment) against what an H200 reports for the PTX ISA's reserved-region
// registers (tests/data/sm90_reserved_smem.tsv, scripts/gpu/reserved_smem.cu): begin 0, cap the
// region's size, end and both offsets inside it, the offsets aligned as the model assumes.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "hw/Arch.h"

TEST_CASE("reserved shared memory: sm_90's region is the one an H200 reports", "[hw][reserved]") {
  std::ifstream in(LP_RESERVED_SMEM_TSV);
  REQUIRE(in);
  const lp::hw::Arch& sm90 = lp::hw::arch_by_name("sm_90");
  const int64_t size = sm90.reserved_smem_bytes;
  REQUIRE(size > 0);
  int rows = 0;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("kernel", 0) == 0) continue;
    std::istringstream fields(line);
    std::string kernel;
    int64_t begin = -1, end = -1, cap = -1, offset0 = -1, offset1 = -1;
    REQUIRE(static_cast<bool>(fields >> kernel >> begin >> end >> cap >> offset0 >> offset1));
    INFO(kernel);
    CHECK(begin == 0);      // the model's %reserved_smem_offset_begin
    CHECK(cap == size);     // and _cap
    CHECK(end <= size);     // _end inside [0, size]
    for (int64_t offset : {offset0, offset1}) {
      CHECK(offset + lp::hw::kReservedSmemOffsetAlignment <= size);  // inside [0, size - alignment]
      CHECK(offset % lp::hw::kReservedSmemOffsetAlignment == 0);
    }
    ++rows;
  }
  CHECK(rows == 3);
  // Other architectures: the region was not measured, and its registers stay unbounded.
  CHECK(lp::hw::arch_by_name("sm_80").reserved_smem_bytes == 0);
  CHECK(lp::hw::arch_by_name("sm_100").reserved_smem_bytes == 0);
}
