// The solver's resource limits (docs/security.md): a domain too large to enumerate, Z3's per-query
// timeout and the run's time budget each give Unknown with the reason, never Proven, and never hang.
#include <catch2/catch.hpp>
#include <thread>
#include <chrono>
#include <optional>

#include "analyzer/parse/Parsers.h"
#include "hw/Arch.h"
#include "analyzer/support/Governor.h"
#include "solver/BankConflicts.h"
#include "solver/Engines.h"
#include "solver/Coverage.h"
#include "solver/Injectivity.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

namespace {

using Clock = std::chrono::steady_clock;

// Z3's out-of-memory path leaks what it had built (libz3's own allocations; LeakSanitizer reports
// them in the sanitized build). Only the allocations of the starved queries are exempt.
struct Z3OutOfMemoryLeaksExempt {
#if defined(__SANITIZE_ADDRESS__)
  Z3OutOfMemoryLeaksExempt() { __lsan_disable(); }
  ~Z3OutOfMemoryLeaksExempt() { __lsan_enable(); }
#endif
};

// 2^32 points: far beyond the 2^24 an enumeration may visit.
const char* kHuge = "(_65536,_65536):(_1,_65536)";

}  // namespace

TEST_CASE("limits: enumeration over a domain beyond the limit is unknown, other engines still decide", "[solver][limits]") {
  lp::Layout l = lp::parse_layout_text(kHuge).layout;
  auto start = Clock::now();
  auto e = lp::prove_injective(l, lp::Engine::Enum);
  CHECK(e.verdict == lp::Verdict::Unknown);
  CHECK(e.reason.find("enumeration limit") != std::string::npos);
  // A smaller limit is honoured the same way (the limit is a parameter, not a constant).
  lp::SolverLimits small;
  small.max_enumeration = 1000;
  CHECK(lp::prove_injective(lp::parse_layout_text("(_64,_64):(_1,_64)").layout, lp::Engine::Enum, small).verdict ==
        lp::Verdict::Unknown);
  // Auto never picks enumeration for it: whatever decides it, it is not the enumeration.
  lp::SolverLimits quick;
  quick.timeout_ms = 5000;
  auto a = lp::prove_injective(l, lp::Engine::Auto, quick);
  CHECK(a.verdict != lp::Verdict::Refuted);
  if (a.verdict == lp::Verdict::Proven) CHECK(a.engine != lp::Engine::Enum);
  // Coverage of a 2^32-point layout and its 2^32-point target.
  lp::Layout t = lp::parse_layout_text("S[(65536,65536):(1@TLane,1@TCol)]").layout;
  std::vector<lp::AxisRange> ranges = {{lp::Axis::named("TLane"), 0, 65535}, {lp::Axis::named("TCol"), 0, 65535}};
  auto c = lp::prove_covers(t, ranges, lp::Engine::Enum, {});
  CHECK(c.verdict == lp::Verdict::Unknown);
  auto ca = lp::prove_covers(t, ranges, lp::Engine::Auto, quick);
  if (ca.verdict == lp::Verdict::Proven) CHECK(ca.engine != lp::Engine::Enum);
  // Neither hung: the enumeration refused up front rather than running out the clock.
  CHECK(Clock::now() - start < std::chrono::seconds(60));
}

TEST_CASE("limits: bank conflicts of an access with 2^25 issues are unknown to enumeration", "[solver][limits]") {
  const auto& arch = lp::hw::arch_by_name("sm_90");
  lp::SmemAccess access(lp::parse_layout_text("(_64,_33554432):(_1,_64)").layout, 32,
                        lp::parse_layout_text("(_32,_33554432):(_1@0,_1@1)").layout, lp::hw::smem_instr("ld.shared.b32"),
                        arch, 1024);
  auto e = lp::prove_conflict_free(access, lp::Engine::Enum);
  CHECK(e.verdict == lp::Verdict::Unknown);
  CHECK_FALSE(e.reason.empty());
}

TEST_CASE("limits: a spent time budget turns every proof into unknown at once", "[solver][limits][budget]") {
  lp::Budget spent;
  spent.deadline = Clock::now() - std::chrono::seconds(1);
  spent.deadline_name = "the test's time budget";
  lp::BudgetScope scope(spent);
  CHECK(lp::out_of_time());
  CHECK(lp::time_left_ms() == 0u);
  const std::string reason = "the test's time budget was spent before this proof";
  lp::Layout l = lp::parse_layout_text("(_4,_3):(_1,_4)").layout;  // trivially injective
  for (lp::Engine engine : {lp::Engine::Auto, lp::Engine::Enum, lp::Engine::Z3, lp::Engine::F2}) {
    auto r = lp::prove_injective(l, engine);
    CHECK(r.verdict == lp::Verdict::Unknown);
    CHECK(r.reason == reason);
  }
  lp::Layout t = lp::parse_layout_text("S[(32,4):(1@TLane,1@TCol)] + R[4:32@TLane]").layout;
  auto c = lp::prove_covers(t, {{lp::Axis::named("TLane"), 0, 127}}, lp::Engine::Auto);
  CHECK(c.verdict == lp::Verdict::Unknown);
  CHECK(c.reason == reason);
  const auto& arch = lp::hw::arch_by_name("sm_90");
  lp::SmemAccess access(lp::parse_layout_text("(_32,_32):(_32,_1)").layout, 32,
                        lp::parse_layout_text("(_32,_2):(_1@0,_1@1)").layout, lp::hw::smem_instr("ld.shared.b32"), arch, 128);
  auto b = lp::prove_conflict_free(access, lp::Engine::Auto);
  CHECK(b.verdict == lp::Verdict::Unknown);
  CHECK(b.reason == reason);
}

TEST_CASE("limits: a budget that ends during a proof stops it with unknown, in every engine", "[solver][limits][budget]") {
  // 2^22 points: every engine but F2 needs far more than a millisecond's work, and each one checks
  // the budget as it goes (injectivity of a padded, hence non-linear, layout: F2 does not apply).
  const lp::Layout l = lp::parse_layout_text("(_2048,_2048):(_2049,_1)").layout;
  for (lp::Engine engine : {lp::Engine::Enum, lp::Engine::Z3, lp::Engine::Auto}) {
    lp::Budget soon;
    soon.deadline = Clock::now() + std::chrono::milliseconds(1);
    lp::BudgetScope scope(soon);
    auto r = lp::prove_injective(l, engine);
    INFO(lp::engine_name(engine) << ": " << r.reason);
    CHECK(r.verdict == lp::Verdict::Unknown);
    CHECK(r.reason.find("the run's time budget") != std::string::npos);
  }
}

TEST_CASE("limits: a memory budget stops an enumeration before it allocates past it", "[solver][limits][budget]") {
  // Injectivity of a 2^23-point layout with a replica axis is enumerated point by point into a
  // hash map (hundreds of MiB); a budget of what the process holds now plus 32 MiB stops it.
  const lp::Layout l = lp::parse_layout_text("S[(2048,4096):(4097@m,1@m)] + R[2:1@laneid]").layout;
  lp::Budget tight;
  tight.memory_bytes = lp::resident_bytes() + (uint64_t{32} << 20);
  lp::BudgetScope scope(tight);
  auto r = lp::prove_injective(l, lp::Engine::Enum);
  INFO(r.reason);
  CHECK(r.verdict == lp::Verdict::Unknown);
  CHECK(r.reason.find("the memory budget") != std::string::npos);
  CHECK(lp::resident_bytes() <= *tight.memory_bytes + (uint64_t{64} << 20));
}

TEST_CASE("limits: the Z3 checks of one query share its timeout, and the run's budget cuts it", "[solver][limits][budget]") {
  lp::SolverLimits limits;
  limits.timeout_ms = 200;
  // No query clock, no budget: the full timeout less Z3's stop reserve (a tenth, here 20 ms).
  CHECK(lp::z3_check_timeout_ms(limits) == 180);
  {
    lp::Z3QueryClock clock(limits.timeout_ms);
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    CHECK(lp::z3_check_timeout_ms(limits) <= 50);  // what is left of the query's 200 ms
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    CHECK(lp::z3_check_timeout_ms(limits) == 1);  // spent: the least Z3 takes
  }
  lp::Budget budget;
  budget.deadline = Clock::now() + std::chrono::milliseconds(100);
  lp::BudgetScope scope(budget);
  CHECK(lp::z3_check_timeout_ms(limits) <= 100);
}

TEST_CASE("limits: Z3's per-query timeout gives unknown, never proven, on a query it cannot finish", "[solver][limits]") {
  // A swizzled 2^20-point layout with replicas: Z3 takes far longer than 1 ms on it.
  lp::Layout l = lp::parse_layout_text("Sw<3,4,3> o _0 o (_1024,_1024):(_1024,_1)").layout;
  lp::SolverLimits tiny;
  tiny.timeout_ms = 1;
  auto r = lp::prove_injective(l, lp::Engine::Z3, tiny);
  INFO(r.reason);
  // Proven is allowed only when Z3 really finished (unsat within the time); Refuted would be wrong.
  CHECK(r.verdict != lp::Verdict::Refuted);
  if (r.verdict == lp::Verdict::Unknown) CHECK_FALSE(r.reason.empty());
}

TEST_CASE("limits: past Z3's memory cap a query is unknown, never a crash, and the next query still decides",
          "[solver][limits]") {
  // (128,130):(131,1) is injective (131 > 129): an independent fact, by hand.
  const lp::Layout l = lp::parse_layout_text("(_128,_130):(_131,_1)").layout;
  lp::SolverLimits starved;
  starved.memory_mb = 1;  // below what one Z3 context needs
  std::optional<Z3OutOfMemoryLeaksExempt> exempt(std::in_place);
  for (int i = 0; i < 3; ++i) {  // the cap also holds for the contexts after the first
    auto r = lp::prove_injective(l, lp::Engine::Z3, starved);
    INFO(r.reason);
    CHECK(r.verdict == lp::Verdict::Unknown);
    CHECK(r.reason.find("Z3 gave up: ") == 0);
    CHECK(r.reason.find("memory") != std::string::npos);
  }
  auto cov = lp::prove_covers(lp::parse_layout_text("S[(32,4):(1@TLane,1@TCol)]").layout,
                              {{lp::Axis::named("TLane"), 0, 31}}, lp::Engine::Z3, starved);
  CHECK(cov.verdict == lp::Verdict::Unknown);
  exempt.reset();
  auto ok = lp::prove_injective(l, lp::Engine::Z3, lp::SolverLimits{});
  INFO(ok.reason);
  CHECK(ok.verdict == lp::Verdict::Proven);
}
