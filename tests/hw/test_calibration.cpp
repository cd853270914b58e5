// Every measured sm_90 row (tests/data/sm90_smem_wavefronts.tsv and
// tests/data/sm90_cp_async_wavefronts.tsv) must be reproduced exactly.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "hw/AsyncCopy.h"
#include "hw/BankModel.h"

namespace {

struct MeasuredRow {
  std::string id, instruction;
  int64_t wavefronts = 0;
  std::vector<int64_t> addresses;
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, sep);) out.push_back(item);
  return out;
}

std::vector<MeasuredRow> read_rows(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::vector<MeasuredRow> rows;
  std::string line;
  std::getline(in, line);
  REQUIRE(line.rfind("id\tinstruction\tmeasured_wavefronts\tlane_byte_offsets", 0) == 0);
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto cols = split(line, '\t');
    REQUIRE(cols.size() >= 4);
    MeasuredRow r{cols[0], cols[1], std::stoll(cols[2]), {}};
    for (const auto& a : split(cols[3], ',')) r.addresses.push_back(std::stoll(a));
    rows.push_back(std::move(r));
  }
  return rows;
}

void check_all(const std::vector<MeasuredRow>& rows) {
  const lp::hw::Arch& sm90 = lp::hw::arch_by_name("sm_90");
  for (const MeasuredRow& r : rows) {
    INFO(r.id << " " << r.instruction);
    REQUIRE(r.addresses.size() == 32);
    const auto cost = lp::hw::smem_access_cost(sm90, lp::hw::smem_instr(r.instruction), r.addresses);
    CHECK(cost.wavefronts == r.wavefronts);
  }
}

// tests/data/sm90_cp_async_wavefronts.tsv: one launch of one warp per row (scripts/gpu/cp_async_probe.cu,
// an H100, ncu 2025.3.1): the launch's raw l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,
// l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum and l1tex__m_xbar2l1tex_read_sectors.sum,
// for `repeat` copies back to back (copy k at shared + k * shared_step, global + k * global_step).
struct AsyncRow {
  std::string id, instruction;
  int64_t launch_wavefronts = 0, bank_conflicts = 0, l2_sectors = 0;
  int repeat = 1;
  int64_t shared_step = 0, global_step = 0;
  std::vector<int64_t> shared, global;
};

std::vector<AsyncRow> read_async_rows(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::string line;
  std::getline(in, line);
  std::map<std::string, size_t> col;
  for (const std::string& name : split(line, '\t')) col.emplace(name, col.size());
  for (const char* name : {"id", "instruction", "launch_wavefronts", "ldgsts_bank_conflicts", "launch_l2_sectors", "repeat",
                           "shared_step", "global_step", "shared_byte_offsets", "global_byte_offsets"})
    REQUIRE(col.count(name) == 1);
  std::vector<AsyncRow> rows;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto cols = split(line, '\t');
    REQUIRE(cols.size() == col.size());
    auto at = [&](const char* name) { return cols[col.at(name)]; };
    AsyncRow r{at("id"), at("instruction"), std::stoll(at("launch_wavefronts")), std::stoll(at("ldgsts_bank_conflicts")),
               std::stoll(at("launch_l2_sectors")), std::stoi(at("repeat")), std::stoll(at("shared_step")),
               std::stoll(at("global_step")), {}, {}};
    for (const auto& a : split(at("shared_byte_offsets"), ',')) r.shared.push_back(std::stoll(a));
    for (const auto& a : split(at("global_byte_offsets"), ',')) r.global.push_back(std::stoll(a));
    rows.push_back(std::move(r));
  }
  return rows;
}

std::vector<int64_t> shifted(const std::vector<int64_t>& v, int64_t by) {
  std::vector<int64_t> out = v;
  for (int64_t& a : out) a += by;
  return out;
}

// The probe's `.L2::128B` rows use the catalog's form without the prefetch hint.
std::string catalog_name(const std::string& instruction) { return instruction.substr(0, instruction.find(".L2::")); }

}  // namespace

TEST_CASE("every row of the in-repo sm_90 calibration file is predicted exactly", "[hw][calibration]") {
  auto rows = read_rows(LP_REPO_SMEM_TSV);
  REQUIRE(rows.size() == 170);
  check_all(rows);
}

TEST_CASE("every cp.async launch measured on sm_90 is reproduced: .ca wavefronts, .cg L2-to-SM sectors",
          "[hw][calibration]") {
  const auto rows = read_async_rows(LP_CP_ASYNC_TSV);
  REQUIRE(rows.size() == 159);
  const lp::hw::Arch& sm90 = lp::hw::arch_by_name("sm_90");
  // Every launch also counts what is not the copies': the .cg launches, whose shared writes the
  // wavefront counter never sees, all read the same number of wavefronts, and it is that number in
  // every .ca launch; likewise every .cg launch moves the same number of sectors beyond its copies'.
  std::optional<int64_t> wavefront_base, sector_base;
  size_t ca = 0, cg = 0;
  for (const AsyncRow& r : rows) {
    const lp::hw::SmemInstr& instr = lp::hw::smem_instr(catalog_name(r.instruction));
    if (instr.async != lp::hw::AsyncCopy::CacheGlobal) continue;
    INFO(r.id);
    int64_t sectors = 0;
    for (int k = 0; k < r.repeat; ++k)
      sectors += lp::hw::bypass_sectors(sm90, instr, shifted(r.shared, k * r.shared_step), shifted(r.global, k * r.global_step))
                     .sectors;
    if (!wavefront_base) {
      wavefront_base = r.launch_wavefronts;
      sector_base = r.l2_sectors - sectors;
    }
    CHECK(r.launch_wavefronts == *wavefront_base);
    CHECK(r.bank_conflicts == 0);
    CHECK(r.l2_sectors == *sector_base + sectors);
    ++cg;
  }
  REQUIRE(wavefront_base);
  CHECK(*wavefront_base == 4);
  CHECK(*sector_base == 8);
  for (const AsyncRow& r : rows) {
    const lp::hw::SmemInstr& instr = lp::hw::smem_instr(catalog_name(r.instruction));
    if (instr.async != lp::hw::AsyncCopy::CacheAll) continue;
    INFO(r.id << " " << r.instruction);
    REQUIRE(r.shared.size() == 32);
    int64_t wavefronts = 0, conflicts = 0;
    for (int k = 0; k < r.repeat; ++k) {
      const auto cost = lp::hw::smem_access_cost(sm90, instr, shifted(r.shared, k * r.shared_step),
                                                 shifted(r.global, k * r.global_step));
      wavefronts += cost.wavefronts;
      conflicts += cost.wavefronts - cost.ideal;
    }
    CHECK(*wavefront_base + wavefronts == r.launch_wavefronts);
    CHECK(conflicts == r.bank_conflicts);
    ++ca;
  }
  CHECK(ca == 116);
  CHECK(cg == 43);
}

TEST_CASE("the cp.async.cg fills the model flags are exactly those measured 1.5x slower or more", "[hw][calibration]") {
  // docs/data/cp_async_fill_bw_h100.tsv: scripts/gpu/cp_async_bw.cu's fill loop, two runs. Its
  // patterns, as that file defines them (lane t's shared byte offset):
  const std::map<std::string, std::function<int64_t(int64_t)>> patterns = {
      {"consec", [](int64_t t) { return 16 * t; }},
      {"swz128", [](int64_t t) { return 128 * (t / 8) + 16 * ((t % 8) ^ (t / 8)); }},
      {"rows144", [](int64_t t) { return 144 * (t / 8) + 16 * (t % 8); }},
      {"rows160", [](int64_t t) { return 160 * (t / 8) + 16 * (t % 8); }},
      {"rows192", [](int64_t t) { return 192 * (t / 8) + 16 * (t % 8); }},
      {"rows256", [](int64_t t) { return 256 * (t / 8) + 16 * (t % 8); }},
      {"off16", [](int64_t t) { return 16 + 16 * t; }},
      {"off32", [](int64_t t) { return 32 + 16 * t; }},
      {"stride32", [](int64_t t) { return 32 * t; }},
      {"pairs", [](int64_t t) { return 16 * (t / 2); }},
      {"stride64", [](int64_t t) { return 64 * t; }},
      {"stride128", [](int64_t t) { return 128 * t; }},
      {"sectors64", [](int64_t t) { return 64 * (t / 2) + 16 * (t % 2); }},
      {"sectors128", [](int64_t t) { return 128 * (t / 2) + 16 * (t % 2); }},
      {"sectors256", [](int64_t t) { return 256 * (t / 2) + 16 * (t % 2); }},
      {"halves_swapped", [](int64_t t) { return 16 * (t ^ 1); }},
  };
  const lp::hw::Arch& sm90 = lp::hw::arch_by_name("sm_90");
  const lp::hw::SmemInstr& cg = lp::hw::smem_instr("cp.async.cg.16");
  std::ifstream in(LP_CP_ASYNC_BW_TSV);
  REQUIRE(in.good());
  size_t rows = 0, flagged = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line.rfind("run\t", 0) == 0) continue;
    auto cols = split(line, '\t');  // run, form, pattern, span, best_us, median_us, relative_to_consec
    REQUIRE(cols.size() == 7);
    if (cols[1] != "cp.async.cg.16") continue;
    INFO("run " << cols[0] << " " << cols[2] << " " << cols[6]);
    REQUIRE(patterns.count(cols[2]) == 1);
    std::vector<int64_t> shared;
    for (int64_t t = 0; t < 32; ++t) shared.push_back(patterns.at(cols[2])(t));
    // LP002's phases (bank conflicts without broadcast) or LP009's sectors.
    const auto banks = lp::hw::smem_access_cost(sm90, cg, shared);
    const auto sectors = lp::hw::bypass_sectors(sm90, cg, shared);
    const bool flags = !banks.conflict_free || sectors.sectors > sectors.ideal;
    CHECK(flags == (std::stod(cols[6]) >= 1.5));
    flagged += flags;
    ++rows;
  }
  CHECK(rows == 28);  // 12 patterns in the first run, 16 in the second
  CHECK(flagged == 15);  // 6 + 9: every pattern at 1.58x or more, none of those at 1.10x or less
}

// tests/data/sm90_smem_partial_warps.tsv: partial warps of ld/st.shared .b32, .v2 and .v4 (a
// guard predicate leaves `active_lanes` executing), measured on an H100 by the replay programs of
// `layoutproof replay` under ncu (scripts/gpu/replay-findings.sh scripts/gpu/partial_warps.json):
// a phase without an active lane costs nothing, and merging looks at the active lanes only.
TEST_CASE("every measured partial warp is reproduced exactly", "[hw][calibration][mask]") {
  std::ifstream in(LP_REPO_PARTIAL_WARPS_TSV);
  REQUIRE(in.good());
  std::string line;
  std::getline(in, line);
  REQUIRE(line.rfind("id\tinstruction\tactive_lanes\tmeasured_wavefronts\tlane_byte_offsets", 0) == 0);
  const lp::hw::Arch& sm90 = lp::hw::arch_by_name("sm_90");
  int rows = 0, merged = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto cols = split(line, '\t');
    REQUIRE(cols.size() >= 5);
    INFO(cols[0] << " " << cols[1] << " active " << cols[2]);
    const auto active = static_cast<lp::hw::LaneMask>(std::stoul(cols[2], nullptr, 16));
    std::vector<int64_t> addresses;
    for (const auto& a : split(cols[4], ',')) addresses.push_back(std::stoll(a));
    REQUIRE(addresses.size() == 32);
    const auto cost = lp::hw::smem_access_cost(sm90, lp::hw::smem_instr(cols[1]), addresses, active);
    CHECK(cost.wavefronts == std::stoll(cols[3]));
    merged += cost.merged;
    ++rows;
  }
  CHECK(rows == 29);
  CHECK(merged >= 8);  // the partial-warp merges the table was measured for
}

// Zero-filling cp.async on an H200 (Nsight Compute 2025.3.1's per-instruction source counters):
// tests/data/sm90_cp_async_zfill.tsv, one row per form of scripts/gpu/zfill_probe.cu (4 warps,
// lane t writes dst_stride * t), and tests/data/sm90_cp_async_zfill_masks.tsv, one row per launch of
// scripts/gpu/zfill_masks.cu (a 16-byte copy whose source size is 16 or 0 by a mask bit per lane).
// A .ca copy whose lanes each copy all of their bytes or none (a per-lane mask, the ignore-src
// predicate) costs exactly what the plain copy of the same destinations costs: the zero-filled lanes
// write shared memory as the others do. That is the model (docs/ptx.md); .cg copies with such
// masks cost more than the plain copy in one probe and the same in the other, so they are not.
namespace {

std::vector<std::map<std::string, std::string>> read_tsv(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::string line;
  std::getline(in, line);
  const auto names = split(line, '\t');
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto cols = split(line, '\t');
    REQUIRE(cols.size() == names.size());
    std::map<std::string, std::string> row;
    for (size_t k = 0; k < cols.size(); ++k) row[names[k]] = cols[k];
    rows.push_back(std::move(row));
  }
  return rows;
}

// Wavefronts per warp the model gives the plain copy of `bytes` to lane t at stride * t.
int64_t plain_copy_wavefronts(int bytes, int64_t stride) {
  std::vector<int64_t> addresses;
  for (int t = 0; t < lp::hw::kWarpLanes; ++t) addresses.push_back(stride * t);
  const auto& instr = lp::hw::smem_instr("cp.async.ca." + std::to_string(bytes));
  return lp::hw::smem_access_cost(lp::hw::arch_by_name("sm_90"), instr, addresses).wavefronts;
}

}  // namespace

TEST_CASE("a .ca cp.async that copies all or none of each lane's bytes costs the plain copy's wavefronts (H200)",
          "[hw][calibration]") {
  const std::set<std::string> all_or_none = {"Plain", "Full", "Zero", "ColMask", "RowMask", "Alternate", "Scatter", "Ignore"};
  int checked = 0;
  for (const auto& r : read_tsv(LP_CP_ASYNC_ZFILL_TSV)) {
    if (r.at("cache") != "ca" || !all_or_none.count(r.at("source_size"))) continue;
    INFO(r.at("bytes") << " " << r.at("source_size") << " stride " << r.at("dst_stride"));
    CHECK(std::stoll(r.at("wavefronts")) == 4 * plain_copy_wavefronts(std::stoi(r.at("bytes")), std::stoll(r.at("dst_stride"))));
    ++checked;
  }
  for (const auto& r : read_tsv(LP_CP_ASYNC_ZFILL_MASKS_TSV)) {
    if (r.at("cache") != "ca") continue;
    INFO("mask " << r.at("mask") << " stride " << r.at("dst_stride") << " warps " << r.at("warps"));
    CHECK(std::stoll(r.at("wavefronts")) == std::stoll(r.at("warps")) * plain_copy_wavefronts(16, std::stoll(r.at("dst_stride"))));
    ++checked;
  }
  CHECK(checked == 11 + 136);
  // The .cg rows that keep these masks from the model: the same mask costs more than the plain copy
  // in the form probe (ColMask: 32 wavefronts where the plain copy takes 16).
  bool cg_above_plain = false;
  for (const auto& r : read_tsv(LP_CP_ASYNC_ZFILL_TSV))
    if (r.at("cache") == "cg" && r.at("source_size") == "ColMask" && r.at("dst_stride") == "16")
      cg_above_plain = std::stoll(r.at("wavefronts")) > 16;
  CHECK(cg_above_plain);
}
