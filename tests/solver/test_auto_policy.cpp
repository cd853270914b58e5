// The auto engine decides every property by one policy (solver/Engines.h, decide_auto): F2, else
// enumeration when small, else Z3, and enumeration within the query's limits when Z3 is undecided.
// Here Z3 is starved (1 ms per query) on domains above the auto enumeration limit (2^18 points)
// that F2 cannot take (extents that are not powers of two), so only the fallback can decide.
#include <catch2/catch.hpp>

#include "analyzer/parse/Parsers.h"
#include "solver/Composition.h"
#include "solver/Coverage.h"
#include "solver/Injectivity.h"

namespace {

lp::SolverLimits starved_z3() {
  lp::SolverLimits l;
  l.timeout_ms = 1;
  return l;
}

lp::Layout layout(const char* text) { return lp::parse_layout_text(text).layout; }

}  // namespace

TEST_CASE("auto: coverage falls back to enumeration when Z3 is undecided", "[solver][auto]") {
  // (_1000,_600):(_1,_1000) is i + 1000 j over 600,000 points: exactly [0, 600000), by the
  // mixed-radix argument (i < 1000 is the low digit). One more point is not covered.
  const lp::Layout l = layout("(_1000,_600):(_1,_1000)");
  const auto covered = lp::prove_covers(l, {{lp::Axis::memory(), 0, 599999}}, lp::Engine::Auto, starved_z3());
  CHECK(covered.verdict == lp::Verdict::Proven);
  CHECK(covered.engine == lp::Engine::Enum);
  const auto missed = lp::prove_covers(l, {{lp::Axis::memory(), 0, 600000}}, lp::Engine::Auto, starved_z3());
  REQUIRE(missed.verdict == lp::Verdict::Refuted);
  CHECK(missed.witness->uncovered[0] == 600000);
}

TEST_CASE("auto: composition falls back to enumeration when Z3 is undecided", "[solver][auto]") {
  // A = (_1000,_600):(_600,_1) is row-major over 600,000 points; B = _600000:_1 walks A's domain
  // in order, so A o B = A's function: R = (_1000,_600):(_600,_1) (legal), and a result with one
  // stride changed differs at index 1 (R(1) = 601, A(B(1)) = A(1) = 600).
  const lp::Layout a = layout("(_1000,_600):(_600,_1)"), b = layout("_600000:_1");
  const auto legal = lp::prove_composition(a, b, layout("(_1000,_600):(_600,_1)"), lp::Engine::Auto, starved_z3());
  CHECK(legal.verdict == lp::Verdict::Proven);
  CHECK(legal.engine == lp::Engine::Enum);
  const auto wrong = lp::prove_composition(a, b, layout("(_1000,_600):(_601,_1)"), lp::Engine::Auto, starved_z3());
  REQUIRE(wrong.verdict == lp::Verdict::Refuted);
  CHECK(wrong.witness->index == 1);
}

TEST_CASE("auto: injectivity falls back to enumeration when Z3 is undecided", "[solver][auto]") {
  // i + 1001 j over (1000,600) never collides (i < 1001); i + 999 j does: (999,0) and (0,1).
  CHECK(lp::prove_injective(layout("(_1000,_600):(_1,_1001)"), lp::Engine::Auto, starved_z3()).verdict ==
        lp::Verdict::Proven);
  const auto bad = lp::prove_injective(layout("(_1000,_600):(_1,_999)"), lp::Engine::Auto, starved_z3());
  CHECK(bad.verdict == lp::Verdict::Refuted);
}
