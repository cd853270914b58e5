// Accesses whose executing lanes depend on data the kernel loads (tests/data/ptx/data_dependent.cu,
// a sorting network's compare-and-swap): the portfolio against Z3 alone, which encodes the loaded
// values per lane. Alignment and bounds hold for every lane, so the enumeration of every lane
// proves them without a query; conflicts are proven where no subset of lanes conflicts and
// unknown where one does, with Z3's own reason where only per-lane values show the conflict.
#include <catch2/catch.hpp>

#include "frontend/ptx/KernelFacts.h"
#include "rules/CompiledAccess.h"
#include "solver/SymbolicAccess.h"
#include "support/Files.h"

namespace {

const std::string kPtx = std::string(LP_SOURCE_DIR) + "/tests/data/ptx/data_dependent.ptx";

}  // namespace

TEST_CASE("data-dependent lanes: the portfolio's verdicts are Z3's, alignment and bounds without a query",
          "[ptx][data-dependent]") {
  const auto m = lp::ptx::read_compiled_module(kPtx, lp::test::read_file(kPtx), {});
  REQUIRE(m->kernels.size() == 1);
  const lp::ptx::KernelFacts& k = m->kernels.front();
  int stores = 0, unknown_conflicts = 0, per_lane_only = 0;
  for (const lp::ptx::AccessFact& a : k.accesses) {
    INFO(a.what);
    REQUIRE(!a.unknown);
    const lp::SymbolicAccess acc = lp::rules::symbolic_access(*m, k, a);
    const lp::SymbolicResult mine = lp::decide_symbolic_access(acc, lp::Engine::Auto, {});
    lp::SolverLimits limits;
    limits.timeout_ms = 10000;
    const lp::SymbolicResult z3 = lp::decide_symbolic_access(acc, lp::Engine::Z3, limits);
    // Every address is a multiple of 4; outside the copy loops (whose bounds rest on the loop's
    // exit, a condition on which lanes run) every lane is inside the buffer.
    bool in_loop = false;
    for (lp::term::VarId v : lp::access_unknowns(acc)) in_loop = in_loop || acc.pool->var(v).name.rfind("n@", 0) == 0;
    CHECK(mine.alignment.verdict == lp::Verdict::Proven);
    CHECK(mine.alignment.engine == lp::Engine::Enum);
    CHECK(mine.bounds.verdict == lp::Verdict::Proven);
    if (!in_loop) CHECK(mine.bounds.engine == lp::Engine::Enum);
    CHECK(z3.alignment.verdict == lp::Verdict::Proven);
    CHECK(z3.bounds.verdict == lp::Verdict::Proven);
    CHECK(mine.conflicts.verdict == z3.conflicts.verdict);
    if (a.what.rfind("st.", 0) == 0) ++stores;
    if (mine.conflicts.verdict != lp::Verdict::Unknown) continue;
    ++unknown_conflicts;
    // Where one loaded value for every lane shows no conflict, the portfolio settles without Z3,
    // and says what Z3 says.
    if (mine.conflicts.reason.rfind("a conflict is possible when some of the lanes", 0) == 0) {
      ++per_lane_only;
      CHECK(mine.conflicts.reason == z3.conflicts.reason);
    }
  }
  CHECK(stores == 4);  // the copy loop's, and the three compare-and-swap stores
  CHECK(unknown_conflicts == 2);
  CHECK(per_lane_only == 1);
}
