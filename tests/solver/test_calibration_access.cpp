// The measured sm_90 calibration rows (tests/data/sm90_smem_wavefronts.tsv) re-expressed as
// accesses: a shared-memory layout, a lane map and an instruction. The test first checks that
// the access gives exactly the measured lane addresses, then that the solver's worst-case
// wavefronts equal the hardware's measurement, for the enumeration and Z3 engines.
#include <catch2/catch.hpp>
#include <fstream>
#include <regex>
#include <sstream>

#include "analyzer/parse/Parsers.h"
#include "hw/Arch.h"
#include "solver/BankConflicts.h"

namespace {

struct Row {
  std::string id, instr, description;
  int64_t measured = 0;
  std::vector<int64_t> addresses;
};

std::vector<Row> read_rows() {
  std::ifstream in(LP_REPO_SMEM_TSV);
  REQUIRE(in.good());
  std::vector<Row> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    Row r;
    std::string measured, addrs;
    std::getline(ss, r.id, '\t');
    std::getline(ss, r.instr, '\t');
    std::getline(ss, measured, '\t');
    std::getline(ss, addrs, '\t');
    std::getline(ss, r.description, '\t');
    r.measured = std::stoll(measured);
    std::stringstream as(addrs);
    for (std::string a; std::getline(as, a, ',');) r.addresses.push_back(std::stoll(a));
    rows.push_back(r);
  }
  return rows;
}

// A lanes layout with an offset (the access origin): built through the IR, since CuTe text has
// no offsets on basis coordinates.
lp::Layout lanes_at(const std::string& text, int64_t row, int64_t col) {
  lp::Layout l = lp::parse_layout_text(text).layout;
  lp::LayoutParts p = l.parts();
  for (size_t a = 0; a < p.axes.size(); ++a) {
    if (p.axes[a] == lp::Axis::basis({0})) p.offset[a] = row;
    if (p.axes[a] == lp::Axis::basis({1})) p.offset[a] = col;
  }
  if (!l.axis_index(lp::Axis::basis({1}))) {  // make sure both coordinates exist
    p.axes.push_back(lp::Axis::basis({1}));
    for (auto& m : p.modes) m.stride.push_back(0);
    p.offset.push_back(col);
  }
  return lp::Layout::make(p);
}

struct Case {
  std::string smem, lanes;
  int64_t row = 0, col = 0;
  int bits = 16;
};

// The access a description names, or nullopt for rows outside the families handled here.
std::optional<Case> access_of(const Row& r) {
  std::smatch m;
  static const std::regex swz(R"(fp16 \((\d+),(\d+)\):\((\d+),1\) Swizzle<(\d),(\d),(\d)> (ldmatrix\.x4(\.trans)?|stmatrix\.x4(\.trans)?)( (A|B)-pattern)? at \((\d+),(\d+)\))");
  static const std::regex pitch(R"(fp32 column read, row pitch (\d+) words \(lane l -> row l, col 0\))");
  static const std::regex padded(R"(fp16 rows of (\d+) padded to pitch (\d+) halves, ldmatrix\.x4 A-pattern)");
  if (std::regex_search(r.description, m, swz)) {
    Case c;
    c.smem = "Sw<" + m[4].str() + "," + m[5].str() + "," + m[6].str() + "> o _0 o (_" + m[1].str() + ",_" + m[2].str() +
             "):(_" + m[3].str() + ",_1)";
    // A-pattern (and .trans): lanes 0-15 rows r.., column c; lanes 16-31 column c+8, which
    // the measurement wraps to c-8 at the right edge of the tile.
    // B-pattern: matrices (rows 0-7, c), (rows 0-7, c+8), (rows 8-15, c), (rows 8-15, c+8).
    c.row = std::stoll(m[12].str());
    c.col = std::stoll(m[13].str());
    std::string step = c.col + 8 < std::stoll(m[2].str()) ? "_8" : "_-8";
    c.lanes = m[11].str() == "B" ? "(_8,_2,_2):(_1@0," + step + "@1,_8@0)" : "(_16,_2):(_1@0," + step + "@1)";
    return c;
  }
  if (std::regex_search(r.description, m, pitch)) {
    Case c;
    c.smem = "(_32,_" + m[1].str() + "):(_" + m[1].str() + ",_1)";
    c.lanes = "(_32):(_1@0)";
    c.bits = 32;
    return c;
  }
  if (std::regex_search(r.description, m, padded)) {
    Case c;
    c.smem = "(_32,_" + m[1].str() + "):(_" + m[2].str() + ",_1)";
    c.lanes = "(_16,_2):(_1@0,_8@1)";
    return c;
  }
  return std::nullopt;
}

}  // namespace

TEST_CASE("calibration rows as accesses: addresses and worst-case wavefronts match the H200", "[solver][calibration]") {
  const lp::hw::Arch& arch = lp::hw::arch_by_name("sm_90");
  int checked = 0, with_z3 = 0;
  for (const Row& r : read_rows()) {
    auto c = access_of(r);
    if (!c) continue;
    INFO(r.id << ": " << r.description << "\nsmem " << c->smem << " lanes " << c->lanes);
    lp::SmemAccess access(lp::parse_layout_text(c->smem).layout, c->bits, lanes_at(c->lanes, c->row, c->col),
                          lp::hw::smem_instr(r.instr), arch, 1024);
    // The access is the measured one, lane for lane (ldmatrix: the 8N address lanes).
    auto addr = access.addresses(0, 0);
    for (int lane = 0; lane < 32; ++lane) REQUIRE(addr[static_cast<size_t>(lane)] == r.addresses[static_cast<size_t>(lane)]);
    auto e = lp::prove_conflict_free(access, lp::Engine::Enum);
    CHECK(e.wavefronts == r.measured);
    CHECK((e.verdict == lp::Verdict::Proven) == (r.measured == e.ideal));
    if (checked % 4 == 0) {  // Z3 on a quarter of the rows keeps the suite quick
      // A generous wall-clock limit: a loaded machine must not turn a slow query into an unknown.
      auto z = lp::prove_conflict_free(access, lp::Engine::Z3, lp::SolverLimits{.timeout_ms = 600000});
      CHECK(z.verdict == e.verdict);
      CHECK(z.wavefronts == r.measured);
      CHECK(z.ideal == e.ideal);
      ++with_z3;
    }
    ++checked;
  }
  CHECK(checked >= 79);  // the rows of the families above in the calibration file
  CHECK(with_z3 >= 20);
}

// The same rows through the F2 engine, where the access is exactly GF(2)-affine.
TEST_CASE("bank conflicts: F2 on the F2-linear calibration rows matches the H200", "[solver][calibration][f2]") {
  const lp::hw::Arch& arch = lp::hw::arch_by_name("sm_90");
  int rows = 0, decided = 0;
  for (const Row& r : read_rows()) {
    auto c = access_of(r);
    if (!c) continue;
    ++rows;
    INFO(r.id << ": " << r.description << "\nsmem " << c->smem << " lanes " << c->lanes);
    lp::SmemAccess access(lp::parse_layout_text(c->smem).layout, c->bits, lanes_at(c->lanes, c->row, c->col),
                          lp::hw::smem_instr(r.instr), arch, 1024);
    auto addr = access.addresses(0, 0);
    for (int lane = 0; lane < 32; ++lane) REQUIRE(addr[static_cast<size_t>(lane)] == r.addresses[static_cast<size_t>(lane)]);
    auto f = lp::prove_conflict_free(access, lp::Engine::F2);
    INFO("f2: " << f.reason);
    if (f.verdict == lp::Verdict::Unknown) {
      CHECK(f.reason.find("F2 does not apply") != std::string::npos);
      continue;
    }
    ++decided;
    CHECK(f.wavefronts == r.measured);
    CHECK((f.verdict == lp::Verdict::Proven) == (r.measured == f.ideal));
  }
  CHECK(rows >= 79);
  CHECK(decided >= 40);
}
