// Bank conflicts over a parameter decided by residue classes (solver/ParametricConflicts.h) against
// deciding every value: random tiles whose row pitch is a term of P (a*P+b), plain, element-swizzled
// or byte-swizzled, read or written by random lane maps with every per-lane width and ldmatrix.
// The oracle knows nothing of parameters or classes: for each value it binds P as a constant in
// the layout text and enumerates the concrete access with the hardware model.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <array>
#include <iterator>
#include <memory>
#include <random>

#include "analyzer/parse/Parsers.h"
#include "hw/Arch.h"
#include "hw/SmemInstr.h"
#include "solver/BankConflicts.h"
#include "solver/ParametricConflicts.h"

namespace {

lp::Layout bound(const std::string& text, const std::string& name, int64_t value) {
  const std::vector<lp::BoundConstant> constants = {{name, value}};
  auto src = std::make_shared<lp::SourceText>(lp::SourceText{"<oracle>", text});
  return lp::parse_layout(src, std::nullopt, {}, lp::Symbols{nullptr, &constants}).layout;
}

struct Access {
  std::string smem, lanes, instr;
  int bits = 32;
  int64_t align = 128;
};

}  // namespace

TEST_CASE("bank conflicts by residue classes agree with deciding every value", "[solver][conflict][params]") {
  std::mt19937_64 rng(2026);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  const auto& arch = lp::hw::default_arch();
  int reduced = 0, failing = 0, holding = 0;
  constexpr int kTrials = 60;  // 1500 pass too (34 s natively)
  for (int trial = 0; trial < kTrials; ++trial) {
    // The instruction and element type: per-lane widths 1..16 bytes and ldmatrix/stmatrix rows.
    struct Kind {
      const char* instr;
      int bits;
      int per_lane;  // elements a lane's address covers
    };
    static const Kind kinds[] = {{"ld.shared.b32", 32, 1},   {"ld.shared.v2.b32", 32, 2}, {"ld.shared.v4.b32", 32, 4},
                                 {"st.shared.b32", 16, 2},   {"ld.shared.v2.b32", 64, 1}, {"ld.shared.u8", 8, 1},
                                 {"ldmatrix.x4", 16, 8},     {"stmatrix.x4", 16, 8},      {"ld.shared.v4.b32", 16, 8}};
    const Kind& k = kinds[trial % std::size(kinds)];
    // Lanes: (X, 32/X) over (rows, column groups), and 2 issues further down the rows; every other
    // trial reads along one row (X = 1), conflict-free at any pitch.
    const bool along_rows = trial % 2 == 0;
    const int64_t x = along_rows ? 1 : int64_t{1} << pick(2, 5), y = 32 / x, row_step = pick(1, 2),
                  group_step = along_rows ? 1 : pick(1, 2);
    const int64_t rows = 2 * x * row_step, cols = y * group_step * k.per_lane;
    Access a;
    a.bits = k.bits;
    a.instr = k.instr;
    a.lanes = x == 1 ? fmt::format("(_32,_2):(_{}@1,_{}@0)", k.per_lane, row_step)
                     : fmt::format("(_{},_{},_2):(_{}@0,_{}@1,_{}@0)", x, y, row_step, group_step * k.per_lane, x * row_step);
    const int64_t coeff = pick(1, 3), offset = pick(0, 9), multiple = std::array<int64_t, 3>{1, 2, 8}[pick(0, 2)];
    const std::string pitch = fmt::format("{}*P+{}", coeff, offset);
    // Row-major at pitch T, column-major at pitch T (T >= rows keeps it a tile), or two row-major
    // stages T apart, the second issue in the second stage.
    std::string core;
    switch (trial % 3) {
      case 0: core = fmt::format("(_{},_{}):({},_1)", rows, cols, pitch); break;
      case 1: core = fmt::format("(_{},_{}):(_1,{})", rows, cols, pitch); break;
      default:
        core = fmt::format("(_{},_{},_2):(_{},_1,{})", rows, cols, cols, pitch);
        a.lanes = x == 1 ? fmt::format("(_32,_2):(_{}@1,_1@2)", k.per_lane)
                         : fmt::format("(_{},_{},_2):(_{}@0,_{}@1,_1@2)", x, y, row_step, group_step * k.per_lane);
        break;
    }
    switch (pick(0, 2)) {
      case 0: break;
      case 1: core = "Sw<2,3,3> o _0 o " + core; break;
      default:
        core = fmt::format("Sw<3,4,3> o smem_ptr[{}b](unset) o {}", k.bits, core);
        a.align = 1024;
        break;
    }
    a.smem = core;
    const int64_t lo = pick(1, 40);
    const lp::ParamSpec spec{"P", lo, lo + multiple * pick(300, 700), multiple};
    INFO(a.instr << " " << a.smem << " lanes " << a.lanes << " P=" << spec.lo << ".." << spec.hi << "%" << spec.multiple);

    // The oracle: every value, ascending.
    std::optional<int64_t> first_failing;
    int64_t worst = 0;
    for (int64_t p = (spec.lo + multiple - 1) / multiple * multiple; p <= spec.hi; p += multiple) {
      bool ok = false;
      try {
        const lp::SmemAccess acc(bound(a.smem, "P", p), a.bits, bound(a.lanes, "P", p), lp::hw::smem_instr(a.instr), arch,
                                 a.align);
        const auto r = lp::prove_conflict_free(acc, lp::Engine::Enum);
        REQUIRE(r.verdict != lp::Verdict::Unknown);
        ok = r.verdict == lp::Verdict::Proven;
        if (ok) worst = std::max(worst, r.wavefronts);
      } catch (const lp::AccessError&) {
      }
      if (!ok) {
        first_failing = p;
        break;
      }
    }

    const std::vector<lp::ParamSpec> specs = {spec};
    const auto smem = lp::parse_layout_text(a.smem, "<smem>", std::nullopt, &specs);
    const lp::Parametric params{specs, smem.param_uses};
    const lp::Layout lanes = lp::parse_layout_text(a.lanes).layout;
    const auto decided = lp::prove_conflict_free_over_values(
        {specs,
         [&](const std::vector<int64_t>& v) {
           return lp::SmemAccess(lp::instantiate(smem.layout, params, v), a.bits, lanes, lp::hw::smem_instr(a.instr), arch,
                                 a.align);
         },
         {true}},
        lp::Engine::Enum);
    REQUIRE(decided);
    INFO(decided->reduction);
    reduced += !decided->reduction.empty();
    std::optional<int64_t> found;
    int64_t found_worst = 0;
    for (const auto& inst : decided->instances) {
      if (!inst.invalid.empty() || inst.result.verdict != lp::Verdict::Proven) {
        found = inst.values[0];
        break;
      }
      found_worst = std::max(found_worst, inst.result.wavefronts);
    }
    CHECK(found.value_or(0) == first_failing.value_or(0));  // the same smallest failing value, or none (0)
    if (!first_failing) CHECK(found_worst == worst);  // every value's cost is some decided value's
    (first_failing ? failing : holding)++;
  }
  CHECK(reduced >= kTrials / 2);
  CHECK(failing >= 5);
  CHECK(holding >= 5);
}
