// Every measured sm_90 row (tests/data/sm90_smem_wavefronts.tsv, a copy of
// ../shared/hw/sm90_smem_wavefronts.tsv) must be predicted exactly.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

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

}  // namespace

TEST_CASE("every row of the in-repo sm_90 calibration file is predicted exactly", "[hw][calibration]") {
  auto rows = read_rows(LP_REPO_SMEM_TSV);
  REQUIRE(rows.size() == 170);
  check_all(rows);
}

TEST_CASE("every cp.async case measured with scripts/gpu is predicted exactly", "[hw][calibration]") {
  auto rows = read_rows(LP_CP_ASYNC_TSV);
  REQUIRE(rows.size() == 11);
  check_all(rows);
}

TEST_CASE("the shared calibration file, when present beside the repo, matches the in-repo copy", "[hw][calibration]") {
  auto repo = read_rows(LP_REPO_SMEM_TSV);
  if (std::filesystem::exists(LP_SHARED_SMEM_TSV)) {
    auto shared = read_rows(LP_SHARED_SMEM_TSV);
    REQUIRE(shared.size() == repo.size());
    for (size_t k = 0; k < repo.size(); ++k) {
      CHECK(shared[k].id == repo[k].id);
      CHECK(shared[k].wavefronts == repo[k].wavefronts);
      CHECK(shared[k].addresses == repo[k].addresses);
    }
    check_all(shared);
  } else {
    WARN("../shared/hw/sm90_smem_wavefronts.tsv is absent; only the in-repo copy was checked");
    check_all(repo);
  }
}
