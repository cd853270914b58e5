// The parametric set of `layoutproof bench` (bench/ParametricSet.cpp, where each case's truth over
// its whole parameter range is argued). Here every case is also decided by brute force over its
// small ranges, by an oracle that knows nothing of parameters: it binds the values as constants in
// the layout text (as a `for` loop does), then enumerates the concrete layout's offsets
// (injectivity, coverage) or runs the hardware model's enumeration over the concrete access
// (bank conflicts). The tool must agree there with every engine that decides, and over the whole
// range must give the argued truth with the smallest failing values (those brute force finds).
#include <catch2/catch.hpp>

#include <memory>
#include <optional>
#include <set>

#include "analyzer/parse/Parsers.h"
#include "bench/ParametricSet.h"
#include "hw/Arch.h"
#include "hw/SmemInstr.h"
#include "solver/BankConflicts.h"

namespace {

using lp::bench::ParametricCase;
using lp::bench::ParametricProperty;

lp::Layout with_constants(const std::string& text, const std::vector<lp::ParamSpec>& specs, const std::vector<int64_t>& values) {
  std::vector<lp::BoundConstant> constants;
  for (size_t i = 0; i < specs.size(); ++i) constants.push_back({specs[i].name, values[i]});
  auto src = std::make_shared<lp::SourceText>(lp::SourceText{"<oracle>", text});
  return lp::parse_layout(src, std::nullopt, {}, lp::Symbols{nullptr, &constants}).layout;
}

bool oracle_holds(const ParametricCase& c, const std::vector<int64_t>& values) {
  const lp::Layout l = with_constants(c.layout, c.small, values);
  switch (c.property) {
    case ParametricProperty::Injective: {
      std::set<int64_t> seen;
      for (int64_t i = 0; i < l.size(); ++i)
        if (!seen.insert(l.offset_at(i)).second) return false;
      return true;
    }
    case ParametricProperty::Covers: {
      std::set<int64_t> seen;
      for (int64_t i = 0; i < l.size(); ++i) seen.insert(l.offset_at(i));
      for (int64_t m = 0; m <= c.covers_to; ++m)
        if (!seen.count(m)) return false;
      return true;
    }
    case ParametricProperty::ConflictFree: break;
  }
  try {
    const lp::SmemAccess a(l, lp::dtype_bits(c.dtype), with_constants(c.lanes, c.small, values), lp::hw::smem_instr(c.instr),
                           lp::hw::default_arch(), c.base_align);
    const auto r = lp::prove_conflict_free(a, lp::Engine::Enum);
    REQUIRE(r.verdict != lp::Verdict::Unknown);
    return r.verdict == lp::Verdict::Proven;
  } catch (const lp::AccessError&) {
    return false;
  }
}

// The first value vector of the small ranges (ascending, the first parameter most significant)
// where the oracle fails.
std::optional<std::vector<int64_t>> first_failing(const ParametricCase& c) {
  std::optional<std::vector<int64_t>> out;
  lp::visit_param_values(lp::Parametric{c.small, {}}, int64_t{1} << 20, [&](const std::vector<int64_t>& v) {
    if (!oracle_holds(c, v)) out = v;
    return out.has_value();
  });
  return out;
}

}  // namespace

TEST_CASE("parametric set: every case's truth, by brute force over small values and by the tool over every value",
          "[bench][params]") {
  const auto& cases = lp::bench::parametric_cases();
  CHECK(cases.size() >= 40);
  int holding = 0, failing = 0;
  for (const ParametricCase& c : cases) {
    INFO(c.name << ": " << c.layout);
    REQUIRE(c.small.size() == c.params.size());
    for (size_t i = 0; i < c.small.size(); ++i) {
      CHECK(c.small[i].name == c.params[i].name);
      CHECK(c.small[i].lo == c.params[i].lo);  // so the smallest failing values are the same
      CHECK(c.small[i].multiple == c.params[i].multiple);
    }
    int64_t vectors = 1;
    for (const lp::ParamSpec& p : c.small) vectors *= lp::param_value_count(p);
    CHECK(vectors > 1);
    const auto failing_small = first_failing(c);
    // Brute force over the small ranges agrees with the argued truth: a case that holds holds
    // there, and a case that fails fails there first.
    CHECK(failing_small.has_value() == !c.holds);
    (c.holds ? holding : failing)++;
    for (lp::Engine e : {lp::Engine::Auto, lp::Engine::Enum, lp::Engine::Z3}) {
      // Z3 on each instance of an access takes seconds (the engines are compared on accesses in
      // tests/solver/test_engines.cpp).
      if (e == lp::Engine::Z3 && c.property == ParametricProperty::ConflictFree) continue;
      INFO("small ranges, " << lp::engine_name(e));
      const auto d = lp::bench::decide_case(c, c.small, e);
      if (e == lp::Engine::Z3 && d.outcome.verdict == lp::Verdict::Unknown) continue;  // Z3 may time out; never wrong
      CHECK(d.outcome.verdict == (failing_small ? lp::Verdict::Refuted : lp::Verdict::Proven));
      if (failing_small) CHECK(d.failing_values == *failing_small);
    }
    const auto full = lp::bench::decide_case(c, c.params, lp::Engine::Auto);
    INFO("whole ranges: " << full.outcome.reason);
    CHECK(full.outcome.verdict == (c.holds ? lp::Verdict::Proven : lp::Verdict::Refuted));
    if (!c.holds && failing_small) CHECK(full.failing_values == *failing_small);
  }
  CHECK(holding >= 15);
  CHECK(failing >= 15);
}
