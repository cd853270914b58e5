// The auto engine decides every property by one policy (solver/Obligation.h, decide): F2, else
// enumeration when small, else Z3, and enumeration within the query's limits when Z3 is undecided.
// Here Z3 is starved (1 ms per query) on domains above the auto enumeration limit (2^18 points)
// that F2 cannot take (extents that are not powers of two), so only the fallback can decide.
#include <catch2/catch.hpp>

#include "analyzer/parse/Parsers.h"
#include "solver/Composition.h"
#include "solver/Coverage.h"
#include "solver/Injectivity.h"
#include "solver/Obligation.h"

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

// ---- the portfolio itself (solver/Obligation.h), on obligations whose engines are stand-ins ----

namespace {

// A stand-in result with a witness: the "counterexample" is a number the re-check accepts when even.
struct Toy : lp::Outcome {
  std::optional<int> witness;
};

Toy answer(lp::Engine e, lp::Verdict v, std::optional<int> w = std::nullopt) {
  Toy t;
  t.engine = e;
  t.verdict = v;
  t.witness = w;
  return t;
}

lp::Obligation<Toy> even_witnesses() {
  lp::Obligation<Toy> o;
  o.confirm = [](Toy& t) -> std::optional<std::string> {
    if (*t.witness % 2 == 0) return std::nullopt;
    return "witness " + std::to_string(*t.witness) + " is odd";
  };
  o.describe = [](Toy& t) { t.reason = t.witness ? "witness " + std::to_string(*t.witness) : "none"; };
  return o;
}

}  // namespace

TEST_CASE("portfolio: a refutation that fails its re-check is unknown, never reported", "[solver][obligation]") {
  lp::Obligation<Toy> o = even_witnesses();
  o.by_enum = [] { return answer(lp::Engine::Enum, lp::Verdict::Refuted, 3); };
  const Toy r = lp::decide(o, lp::Engine::Enum, {});
  CHECK(r.verdict == lp::Verdict::Unknown);
  CHECK(!r.witness);
  CHECK(r.reason == "internal error: the enum engine's counterexample failed the concrete re-check: witness 3 is odd");
  o.by_enum = [] { return answer(lp::Engine::Enum, lp::Verdict::Refuted, 4); };
  const Toy ok = lp::decide(o, lp::Engine::Enum, {});
  CHECK(ok.verdict == lp::Verdict::Refuted);
  CHECK(ok.reason == "witness 4");
}

TEST_CASE("portfolio: an engine without a form answers unknown with its reason", "[solver][obligation]") {
  lp::Obligation<Toy> o = even_witnesses();
  o.no_f2 = "the F2 engine does not take parameters";
  const Toy r = lp::decide(o, lp::Engine::F2, {});
  CHECK(r.verdict == lp::Verdict::Unknown);
  CHECK(r.engine == lp::Engine::F2);
  CHECK(r.reason == "the F2 engine does not take parameters");
}

TEST_CASE("portfolio: the auto policy's order", "[solver][obligation]") {
  std::vector<std::string> asked;
  lp::Obligation<Toy> o = even_witnesses();
  auto engine = [&](const char* name, lp::Engine e, lp::Verdict v, std::optional<int> w = std::nullopt) {
    return [&asked, name, e, v, w] {
      asked.push_back(name);
      return answer(e, v, w);
    };
  };
  o.by_f2 = engine("f2", lp::Engine::F2, lp::Verdict::Unknown);
  o.by_enum = engine("enum", lp::Engine::Enum, lp::Verdict::Proven);
  o.by_z3 = engine("z3", lp::Engine::Z3, lp::Verdict::Unknown);
  SECTION("small: F2, then enumeration") {
    o.small = [] { return true; };
    CHECK(lp::decide(o, lp::Engine::Auto, {}).engine == lp::Engine::Enum);
    CHECK(asked == std::vector<std::string>{"f2", "enum"});
  }
  SECTION("large: F2, the search (its proof is not kept), Z3, then enumeration when Z3 is undecided") {
    o.search = engine("search", lp::Engine::Enum, lp::Verdict::Proven);
    const Toy r = lp::decide(o, lp::Engine::Auto, {});
    CHECK(asked == std::vector<std::string>{"f2", "search", "z3", "enum"});
    CHECK(r.verdict == lp::Verdict::Proven);
  }
  SECTION("large: a refutation the search finds is the answer, re-checked") {
    o.search = engine("search", lp::Engine::Enum, lp::Verdict::Refuted, 8);
    const Toy r = lp::decide(o, lp::Engine::Auto, {});
    CHECK(asked == std::vector<std::string>{"f2", "search"});
    CHECK(r.verdict == lp::Verdict::Refuted);
    CHECK(r.witness == 8);
  }
  SECTION("F2 decides first") {
    o.by_f2 = engine("f2", lp::Engine::F2, lp::Verdict::Proven);
    CHECK(lp::decide(o, lp::Engine::Auto, {}).engine == lp::Engine::F2);
    CHECK(asked == std::vector<std::string>{"f2"});
  }
}

TEST_CASE("portfolio: an engine that overflows or runs out of budget is unknown with the reason", "[solver][obligation]") {
  lp::Obligation<Toy> o = even_witnesses();
  o.by_enum = []() -> Toy { throw lp::OverflowError("offset overflows"); };
  const Toy r = lp::decide(o, lp::Engine::Enum, {});
  CHECK(r.verdict == lp::Verdict::Unknown);
  CHECK(r.reason.find("evaluation overflowed: ") == 0);
  CHECK(r.reason.find("offset overflows") != std::string::npos);
}
