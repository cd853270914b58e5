// The three engines against brute force computed here, on generated layouts: verdicts agree,
// counterexamples are real, and "proven" only where brute force finds no violation.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <map>
#include <random>
#include <set>

#include "analyzer/parse/Parsers.h"
#include "solver/Coverage.h"
#include "solver/Injectivity.h"

namespace {

// Z3's time limit is wall-clock: on a loaded machine (sanitizers, parallel tests) the default could
// turn a slow query into an unknown, which would test the machine rather than the engines'
// agreement. The tests' own timeouts still bound them.
const lp::SolverLimits kPatient{.timeout_ms = 600000};

using Rng = std::mt19937_64;
int64_t pick(Rng& rng, int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); }

// Random layouts, biased toward power-of-two shapes (so F2 often applies) and near-injective
// strides (so both verdicts occur).
std::string random_layout(Rng& rng) {
  int kind = static_cast<int>(pick(rng, 0, 2));
  int n = static_cast<int>(pick(rng, 1, 3));
  std::vector<int64_t> ext, str;
  int64_t run = 1;
  for (int k = 0; k < n; ++k) {
    int64_t e = pick(rng, 0, 3) ? (int64_t{1} << pick(rng, 0, 3)) : pick(rng, 1, 6);
    ext.push_back(e);
    int64_t s = pick(rng, 0, 2) ? run : pick(rng, 0, 12);
    if (pick(rng, 0, 5) == 0) s = -s;
    str.push_back(s);
    run *= e;
  }
  auto tuple = [](const std::vector<int64_t>& v, const char* prefix, const std::string& suffix = "") {
    std::string s = "(";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::string(prefix) + std::to_string(v[i]) + suffix;
    return s + ")";
  };
  if (kind == 0) {
    std::string l = tuple(ext, "_") + ":" + tuple(str, "_");
    if (pick(rng, 0, 1)) {
      int b = static_cast<int>(pick(rng, 1, 3)), m = static_cast<int>(pick(rng, 0, 3));
      l = "Sw<" + std::to_string(b) + "," + std::to_string(m) + "," + std::to_string(b + pick(rng, 0, 1)) + "> o _0 o " + l;
    }
    return l;
  }
  // TIRx with thread axes and replicas.
  static const char* axes[] = {"m", "laneid", "warpid"};
  std::string s = "S[(", t;
  for (int k = 0; k < n; ++k) {
    s += (k ? "," : "") + std::to_string(ext[static_cast<size_t>(k)]);
    t += (k ? "," : "") + std::to_string(std::abs(str[static_cast<size_t>(k)])) + "@" + axes[pick(rng, 0, 2)];
  }
  s += "):(" + t + ")]";
  if (kind == 2) s += " + R[" + std::to_string(int64_t{1} << pick(rng, 0, 2)) + ":" + std::to_string(pick(rng, 1, 8)) + "@" + axes[pick(rng, 0, 2)] + "]";
  if (pick(rng, 0, 3) == 0) s += " + " + std::to_string(pick(rng, 1, 4)) + "@warpid";
  return s;
}

bool brute_injective(const lp::Layout& l) {
  std::map<lp::Point, int64_t> owner;
  for (int64_t i = 0; i < l.size(); ++i)
    for (const lp::Point& p : l.images(i)) {
      auto [it, fresh] = owner.emplace(p, i);
      if (!fresh && it->second != i) return false;
    }
  return true;
}

}  // namespace

TEST_CASE("injectivity: enum, f2 and z3 agree with brute force", "[solver][injective]") {
  Rng rng(11);
  int refuted = 0, proven = 0, f2_decided = 0;
  for (int trial = 0; trial < 1500; ++trial) {
    std::string text = random_layout(rng);
    INFO(text);
    lp::Layout l = lp::parse_layout_text(text).layout;
    bool truth = brute_injective(l);
    (truth ? proven : refuted)++;
    std::vector<lp::Engine> engines = {lp::Engine::Enum, lp::Engine::F2, lp::Engine::Auto};
    if (trial % 3 == 0) engines.push_back(lp::Engine::Z3);  // Z3 is the slow one; a third of the cases
    for (lp::Engine e : engines) {
      auto r = lp::prove_injective(l, e, kPatient);
      INFO(lp::engine_name(e) << ": " << r.reason);
      if (e == lp::Engine::F2 && r.verdict == lp::Verdict::Unknown) continue;  // F2 does not apply
      if (e == lp::Engine::F2) ++f2_decided;
      REQUIRE(r.verdict == (truth ? lp::Verdict::Proven : lp::Verdict::Refuted));
      if (!truth) {
        // The witness is two distinct indices sharing a point, checked here independently.
        const auto& w = *r.witness;
        REQUIRE(w.index_a != w.index_b);
        auto a = l.images(w.index_a), b = l.images(w.index_b);
        REQUIRE(std::find(a.begin(), a.end(), w.image) != a.end());
        REQUIRE(std::find(b.begin(), b.end(), w.image) != b.end());
      }
    }
  }
  CHECK(refuted > 100);
  CHECK(proven > 100);
  CHECK(f2_decided > 300);
}

namespace {

// A layout composed with a layout, A o O o Sw o _0 o B (CuTe's ComposedLayout), with its values
// computed here from the definitions: B's strides, the swizzle's XOR, the offset, then A as CuTe
// evaluates an integer (cute/layout.hpp idx2crd: truncating % per mode, the last mode takes the rest).
struct ComposedCase {
  std::vector<int64_t> b_ext, b_str, a_ext, a_str;
  int64_t offset = 0;
  int sw_bits = 0, sw_base = 0, sw_shift = 0;

  std::string text() const {
    auto layout = [](const std::vector<int64_t>& e, const std::vector<int64_t>& st) {
      std::string x = "(", y = "(";
      for (size_t k = 0; k < e.size(); ++k) {
        x += fmt::format("{}_{}", k ? "," : "", e[k]);
        y += fmt::format("{}_{}", k ? "," : "", st[k]);
      }
      return x + "):" + y + ")";
    };
    std::string inner = layout(b_ext, b_str);
    if (sw_bits) inner = fmt::format("Sw<{},{},{}> o _0 o {}", sw_bits, sw_base, sw_shift, inner);
    return fmt::format("{} o _{} o {}", layout(a_ext, a_str), offset, inner);
  }
  int64_t size() const {
    int64_t n = 1;
    for (int64_t e : b_ext) n *= e;
    return n;
  }
  int64_t value(int64_t i) const {
    int64_t j = 0;
    for (size_t k = 0; k < b_ext.size(); ++k) {
      j += (i % b_ext[k]) * b_str[k];
      i /= b_ext[k];
    }
    if (sw_bits) {
      const int64_t mask = ((int64_t{1} << sw_bits) - 1) << (sw_base + sw_shift);
      j ^= (j & mask) >> sw_shift;
    }
    j += offset;
    int64_t v = 0;
    for (size_t k = 0; k < a_ext.size(); ++k) {
      const bool last = k + 1 == a_ext.size();
      v += (last ? j : j % a_ext[k]) * a_str[k];
      if (!last) j /= a_ext[k];
    }
    return v;
  }
};

ComposedCase random_composed(Rng& rng) {
  ComposedCase c;
  int64_t run = 1;
  for (int k = 0, n = static_cast<int>(pick(rng, 1, 3)); k < n; ++k) {
    c.b_ext.push_back(pick(rng, 0, 4) ? int64_t{1} << pick(rng, 1, 3) : pick(rng, 2, 5));
    c.b_str.push_back(pick(rng, 0, 2) ? run * (pick(rng, 0, 3) ? 1 : 2) : pick(rng, 0, 9) * (pick(rng, 0, 6) ? 1 : -1));
    run *= c.b_ext.back();
  }
  if (pick(rng, 0, 1)) {
    c.sw_bits = static_cast<int>(pick(rng, 1, 3));
    c.sw_base = static_cast<int>(pick(rng, 0, 3));
    c.sw_shift = c.sw_bits + static_cast<int>(pick(rng, 0, 1));
  }
  c.offset = pick(rng, 0, 2) ? 0 : pick(rng, -3, 8);
  run = 1;
  for (int k = 0, n = static_cast<int>(pick(rng, 1, 3)); k < n; ++k) {
    c.a_ext.push_back(pick(rng, 0, 4) ? int64_t{1} << pick(rng, 1, 3) : pick(rng, 2, 5));
    c.a_str.push_back(pick(rng, 0, 2) ? run : pick(rng, 0, 12));
    run *= c.a_ext.back();
  }
  return c;
}

}  // namespace

TEST_CASE("layouts composed with layouts (A o O o Sw o B): evaluation and every engine against the definition",
          "[solver][injective][composed]") {
  Rng rng(21);
  int refuted = 0, proven = 0, f2_decided = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const ComposedCase c = random_composed(rng);
    INFO(c.text());
    const lp::Layout l = lp::parse_layout_text(c.text()).layout;
    REQUIRE(l.size() == c.size());
    std::set<int64_t> seen;
    bool truth = true;
    for (int64_t i = 0; i < c.size(); ++i) {
      REQUIRE(l.offset_at(i) == c.value(i));
      truth &= seen.insert(c.value(i)).second;
    }
    (truth ? proven : refuted)++;
    for (lp::Engine e : {lp::Engine::Enum, lp::Engine::F2, lp::Engine::Z3, lp::Engine::Auto}) {
      const auto r = lp::prove_injective(l, e, kPatient);
      INFO(lp::engine_name(e) << ": " << r.reason);
      if (e == lp::Engine::F2 && r.verdict == lp::Verdict::Unknown) continue;  // F2 does not apply
      if (e == lp::Engine::F2) ++f2_decided;
      REQUIRE(r.verdict == (truth ? lp::Verdict::Proven : lp::Verdict::Refuted));
      if (!truth) {
        REQUIRE(r.witness->index_a != r.witness->index_b);
        CHECK(c.value(r.witness->index_a) == c.value(r.witness->index_b));
      }
    }
  }
  CHECK(refuted > 50);
  CHECK(proven > 50);
  CHECK(f2_decided > 50);
}

TEST_CASE("coverage: enum, f2 and z3 agree with brute force", "[solver][covers]") {
  Rng rng(12);
  int refuted = 0, proven = 0;
  for (int trial = 0; trial < 900; ++trial) {
    // Replicated TMEM-like layouts: rows over TLane, a replica across lane windows.
    int64_t rows = int64_t{1} << pick(rng, 2, 5), cols = pick(rng, 1, 4);
    int64_t reps = pick(rng, 1, 4), rstride = rows * pick(rng, 1, 2) / (pick(rng, 0, 3) ? 1 : 2);
    std::string text = "S[(" + std::to_string(rows) + "," + std::to_string(cols) + "):(1@TLane,1@TCol)] + R[" +
                       std::to_string(reps) + ":" + std::to_string(std::max<int64_t>(1, rstride)) + "@TLane]";
    int64_t lanes = rows * (int64_t{1} << pick(rng, 0, 2));
    std::string target = "TLane=0.." + std::to_string(lanes - 1);
    INFO(text << " target " << target);
    lp::Layout l = lp::parse_layout_text(text).layout;
    std::set<int64_t> reached;
    size_t lane_axis = *l.axis_index(lp::Axis::named("TLane"));
    for (int64_t i = 0; i < l.size(); ++i)
      for (const auto& p : l.images(i)) reached.insert(p[lane_axis]);
    bool truth = true;
    for (int64_t t = 0; t < lanes; ++t) truth &= reached.count(t) > 0;
    (truth ? proven : refuted)++;
    std::vector<lp::AxisRange> ranges = {{lp::Axis::named("TLane"), 0, lanes - 1}};
    std::vector<lp::Engine> engines = {lp::Engine::Enum, lp::Engine::F2, lp::Engine::Auto};
    if (trial % 3 == 0) engines.push_back(lp::Engine::Z3);
    for (lp::Engine e : engines) {
      auto r = lp::prove_covers(l, ranges, e, kPatient);
      INFO(lp::engine_name(e) << ": " << r.reason);
      if (e == lp::Engine::F2 && r.verdict == lp::Verdict::Unknown) continue;
      REQUIRE(r.verdict == (truth ? lp::Verdict::Proven : lp::Verdict::Refuted));
      if (!truth) REQUIRE(reached.count(r.witness->uncovered[0]) == 0);
    }
  }
  CHECK(refuted > 100);
  CHECK(proven > 100);
}

TEST_CASE("design-example layouts: injectivity and coverage verdicts", "[solver]") {
  using lp::Verdict;
  // The large proofs take seconds; a loaded CI machine (sanitizers, parallel tests) must not turn
  // them into a timeout, which would test the machine rather than the verdict.
  lp::SolverLimits patient;
  patient.timeout_ms = 300000;
  auto inj = [](const char* t) { return lp::prove_injective(lp::parse_layout_text(t).layout, lp::Engine::Auto).verdict; };
  // The register tile of docs/notations.md: every element on two warps, all copies distinct.
  CHECK(inj("S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid") == Verdict::Proven);
  // The replica lands on a warp the shard already uses: a replica of one element meets another.
  CHECK(inj("S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:1@warpid]") == Verdict::Refuted);
  // i + 7j over 6x6 never collides (|i - i'| <= 5 < 7); i + 5j does: (5,0) and (0,1).
  CHECK(inj("(_6,_6):(_1,_7)") == Verdict::Proven);
  CHECK(inj("(_6,_6):(_1,_5)") == Verdict::Refuted);
  CHECK(inj("Sw<3,3,3> o _0 o (_8,_64):(_64,_1)") == Verdict::Proven);
  // Large domains go to Z3 or F2 and still decide.
  auto big = lp::prove_injective(lp::parse_layout_text("Sw<3,4,3> o smem_ptr[16b](unset) o (_4096,_4096):(_4096,_1)").layout,
                                 lp::Engine::Auto, patient);
  CHECK(big.verdict == Verdict::Proven);
  auto big_z3 = lp::prove_injective(lp::parse_layout_text("(_3000,_3000):(_3001,_1)").layout, lp::Engine::Z3, patient);
  CHECK(big_z3.verdict == Verdict::Proven);
  auto big_bad = lp::prove_injective(lp::parse_layout_text("(_3000,_3000):(_2999,_1)").layout, lp::Engine::Auto, patient);
  CHECK(big_bad.verdict == Verdict::Refuted);
  // TMEM scale factors: warpx4 covers TLane 0..127; three replicas miss a window.
  auto cov = [](const char* t, int64_t hi) {
    return lp::prove_covers(lp::parse_layout_text(t).layout, {{lp::Axis::named("TLane"), 0, hi}}, lp::Engine::Auto);
  };
  CHECK(cov("S[(32,4):(1@TLane,1@TCol)] + R[4:32@TLane]", 127).verdict == Verdict::Proven);
  auto miss = cov("S[(32,4):(1@TLane,1@TCol)] + R[3:32@TLane]", 127);
  REQUIRE(miss.verdict == Verdict::Refuted);
  CHECK(miss.witness->uncovered[0] >= 96);
  CHECK_THROWS_AS(cov("S[8:1@laneid]", 7), std::invalid_argument);
}

#include "analyzer/algebra/Operations.h"
#include "solver/AlgebraClaims.h"
#include "hw/Arch.h"
#include "solver/BankConflicts.h"
#include "solver/ParametricConflicts.h"
#include "solver/Composition.h"

namespace {

// Brute force of the composition obligation, written here: B(i) in [0, size A) and
// R(i) == A(B(i)) for every i, with R's domain equal to B's.
bool brute_composition(const lp::Layout& a, const lp::Layout& b, const lp::Layout& r) {
  if (r.size() != b.size()) return false;
  for (int64_t i = 0; i < b.size(); ++i) {
    int64_t x = b.offset_at(i);
    if (x < 0 || x >= a.size() || a.offset_at(x) != r.offset_at(i)) return false;
  }
  return true;
}

std::string scalar_layout(Rng& rng, int64_t max_size) {
  int n = static_cast<int>(pick(rng, 1, 2));
  std::string e = "(", s = "(";
  int64_t size = 1;
  for (int k = 0; k < n; ++k) {
    int64_t ext = pick(rng, 0, 2) ? (int64_t{1} << pick(rng, 0, 3)) : pick(rng, 2, 6);
    if (size * ext > max_size) ext = 1;
    size *= ext;
    e += (k ? "," : "") + std::string("_") + std::to_string(ext);
    s += (k ? "," : "") + std::string("_") + std::to_string(pick(rng, 0, 3) ? (int64_t{1} << pick(rng, 0, 4)) : pick(rng, 0, 9));
  }
  return e + "):" + s + ")";
}

}  // namespace

TEST_CASE("composition: engines agree with brute force on CuTe's results and on wrong results", "[solver][compose]") {
  Rng rng(21);
  int legal = 0, illegal = 0;
  for (int trial = 0; trial < 600; ++trial) {
    std::string at = scalar_layout(rng, 64), bt = scalar_layout(rng, 16);
    lp::Layout a = lp::parse_layout_text(at).layout, b = lp::parse_layout_text(bt).layout;
    // The stated result: CuTe's (when it computes one) or a random layout of B's size.
    std::optional<lp::Layout> r;
    if (trial % 2 == 0) {
      auto cute = lp::algebra::op_compose(a, b);  // CuTe's result only
      if (cute.text) r = lp::parse_layout_text(*cute.text).layout;
    }
    if (!r) r = lp::parse_layout_text("(_" + std::to_string(b.size()) + "):(_" + std::to_string(pick(rng, 0, 8)) + ")").layout;
    INFO(at << " o " << bt << " stated " << lp::print_cute(*r).text);
    bool truth = brute_composition(a, b, *r);
    (truth ? legal : illegal)++;
    std::vector<lp::Engine> engines = {lp::Engine::Enum, lp::Engine::F2, lp::Engine::Auto};
    if (trial % 4 == 0) engines.push_back(lp::Engine::Z3);
    for (lp::Engine e : engines) {
      auto res = lp::prove_composition(a, b, r, e, kPatient);
      INFO(lp::engine_name(e) << ": " << res.reason);
      if (e == lp::Engine::F2 && res.verdict == lp::Verdict::Unknown) continue;
      REQUIRE(res.verdict == (truth ? lp::Verdict::Proven : lp::Verdict::Refuted));
      if (!truth) {
        const auto& w = *res.witness;
        int64_t x = b.offset_at(w.index);
        bool out = x < 0 || x >= a.size();
        bool bad = w.index >= r->size() || out || a.offset_at(x) != r->offset_at(w.index);
        REQUIRE(bad);
      }
    }
  }
  CHECK(legal > 50);
  CHECK(illegal > 50);
}

TEST_CASE("composition: prove compose decides B inside A's domain and R == A o B, LP003 decides CuTe's contract (A "
          "extended), leaving A's domain a note, both count what brute force counts", "[solver][compose]") {
  Rng rng(23);
  int legal = 0, illegal = 0, past = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const std::string at = scalar_layout(rng, 64), bt = scalar_layout(rng, 16);
    const lp::Layout a = lp::parse_layout_text(at).layout, b = lp::parse_layout_text(bt).layout;
    const lp::algebra::Outcome cute = lp::algebra::op_compose(a, b);
    if (!cute.layout) continue;
    const lp::Layout r = lp::algebra::to_ir(*cute.layout);
    INFO(at << " o " << bt << " = " << *cute.text);
    // Brute force, written here: how many of B's points CuTe's result gets wrong (R and, for
    // CuTe's contract, A evaluated past their domains as CuTe does), and whether B leaves A's domain.
    bool leaves = false;
    int64_t wrong = 0, wrong_extended = 0;
    const lp::algebra::Evaluator er(r), ea(a);
    for (int64_t i = 0; i < b.size(); ++i) {
      const int64_t x = b.offset_at(i);
      if (x < 0 || x >= a.size()) leaves = true;
      else if (er.at_extended(i) != lp::algebra::integer_value(a.offset_at(x))) ++wrong;
      if (er.at_extended(i) != ea.at_extended(x)) ++wrong_extended;
    }
    const bool strict = !leaves && wrong == 0 && r.size() == b.size();
    const bool contract = wrong_extended == 0 && r.size() == b.size();
    (contract ? legal : illegal)++;
    past += contract && leaves;
    for (lp::Engine e : {lp::Engine::Enum, lp::Engine::Z3, lp::Engine::Auto}) {
      const lp::algebra::Check algebra = lp::decide_claims(cute, e).check;
      const auto prove = lp::prove_composition(a, b, r, e, kPatient);
      INFO(lp::engine_name(e) << ": " << algebra.reason << " / " << prove.reason);
      REQUIRE(algebra.verdict == (contract ? lp::algebra::Verdict::Legal : lp::algebra::Verdict::Illegal));
      REQUIRE(prove.verdict == (strict ? lp::Verdict::Proven : lp::Verdict::Refuted));
      if (!strict && !leaves) {
        REQUIRE(prove.wrong_points);
        CHECK(*prove.wrong_points == wrong);
      }
      if (!contract && r.size() == b.size())
        CHECK_THAT(algebra.reason, Catch::Contains(fmt::format("wrong at {} of {} points", wrong_extended, b.size())));
      const bool noted = std::any_of(algebra.notes.begin(), algebra.notes.end(), [](const lp::algebra::ContractNote& n) {
        return n.kind == lp::algebra::ContractNote::Kind::PastDomain;
      });
      if (contract) CHECK(noted == leaves);
      if (leaves && contract) CHECK_THAT(algebra.notes.front().message, Catch::Contains("leaves A's domain"));
    }
  }
  // Most random B that break the strict obligation only leave A's domain; a few break the contract.
  CHECK(legal > 30);
  CHECK(illegal > 2);
  CHECK(past > 10);
}

TEST_CASE("bank conflicts: Z3 and enumeration agree on verdict, worst wavefronts and ideal", "[solver][conflict]") {
  Rng rng(31);
  const auto& arch = lp::hw::arch_by_name("sm_90");
  struct Shape {
    const char* instr;
    int bits;
    const char* lanes;
  };
  // Lane maps over a (rows, cols) tile: ldmatrix rows, vector row reads, column reads.
  const Shape shapes[] = {{"ldmatrix.x4", 16, "(_16,_2,_2):(_1@0,_8@1,_16@0)"},
                          {"ldmatrix.x2.trans", 16, "(_16,_2,_2):(_1@0,_0@1,_16@1)"},
                          {"stmatrix.x4", 16, "(_8,_2,_2,_2):(_1@0,_8@0,_8@1,_16@1)"},
                          {"ld.shared.v4.b32", 32, "(_2,_16,_2):(_4@1,_1@0,_16@0)"},
                          {"ld.shared.v2.b32", 32, "(_4,_8,_2):(_2@1,_1@0,_8@0)"},
                          {"ld.shared.b32", 32, "(_32,_2):(_1@0,_1@1)"},
                          {"st.shared.u16", 16, "(_32,_2):(_1@0,_1@1)"},
                          {"ld.shared.v4.b32", 32, "(_2,_16):(_0@0,_1@0)"}};
  int conflicted = 0, clean = 0;
  for (int trial = 0; trial < 48; ++trial) {
    const Shape& sh = shapes[trial % 8];
    int64_t cols = sh.bits == 16 ? 64 : 32;
    int b = static_cast<int>(pick(rng, 0, 3));
    std::string smem = "Sw<" + std::to_string(b) + "," + std::to_string(sh.bits == 16 ? 3 : 2) + ",3> o _0 o (_32,_" +
                       std::to_string(cols) + "):(_" + std::to_string(cols + (pick(rng, 0, 3) == 0 ? 8 : 0)) + ",_1)";
    if (trial % 5 == 4) smem = "Sw<3,4,3> o smem_ptr[" + std::to_string(sh.bits) + "b](unset) o (_32,_" + std::to_string(cols) + "):(_" + std::to_string(cols) + ",_1)";
    INFO(smem << " | " << sh.lanes << " | " << sh.instr);
    lp::SmemAccess access(lp::parse_layout_text(smem).layout, sh.bits, lp::parse_layout_text(sh.lanes).layout,
                          lp::hw::smem_instr(sh.instr), arch, trial % 3 == 0 ? 128 : 1024);
    auto e = lp::prove_conflict_free(access, lp::Engine::Enum);
    auto z = lp::prove_conflict_free(access, lp::Engine::Z3, kPatient);
    INFO("enum: " << e.reason << "\nz3: " << z.reason);
    REQUIRE(e.verdict != lp::Verdict::Unknown);
    REQUIRE(z.verdict == e.verdict);
    if (!e.access) {
      REQUIRE(z.wavefronts == e.wavefronts);
      REQUIRE(z.ideal == e.ideal);
    }
    (e.verdict == lp::Verdict::Proven ? clean : conflicted)++;
  }
  CHECK(conflicted > 5);
  CHECK(clean > 5);
}

TEST_CASE("bank conflicts with a partial warp: every engine equals the hardware model over the active lanes",
          "[solver][conflict][mask]") {
  Rng rng(47);
  const auto& arch = lp::hw::arch_by_name("sm_90");
  // Per-lane instructions (ldmatrix/stmatrix are .aligned: every lane executes them), over an
  // (rows, cols) f16 or f32 tile with a random padding; lane maps of 32 lanes and 2 issues.
  struct Shape {
    const char* instr;
    int bits;
    const char* lanes;
  };
  const Shape shapes[] = {{"ld.shared.v4.b32", 16, "(_16,_2,_2):(_1@0,_8@1,_16@0)"},
                          {"st.shared.v2.b32", 32, "(_4,_8,_2):(_2@1,_1@0,_8@0)"},
                          {"ld.shared.b32", 32, "(_32,_2):(_1@0,_1@1)"},
                          {"st.shared.u16", 16, "(_32,_2):(_1@0,_1@1)"},
                          {"ld.shared.v2.b32", 32, "(_2,_16,_2):(_2@1,_1@0,_4@1)"}};
  int conflicted = 0, clean = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const Shape& sh = shapes[trial % 5];
    const int64_t cols = sh.bits == 16 ? 64 : 32, pitch = cols + 8 * pick(rng, 0, 2);
    const std::string smem = "(_32,_" + std::to_string(cols) + "):(_" + std::to_string(pitch) + ",_1)";
    // A random non-empty set of lanes: a prefix (threadIdx.x < n), a parity, or random bits.
    lp::hw::LaneMask mask = 0;
    switch (trial % 3) {
      case 0: mask = static_cast<lp::hw::LaneMask>((uint64_t{1} << pick(rng, 1, 31)) - 1); break;
      case 1: mask = 0x55555555u << pick(rng, 0, 1); break;
      default: mask = static_cast<lp::hw::LaneMask>(pick(rng, 1, 0xffffffffLL)); break;
    }
    INFO(smem << " | " << sh.lanes << " | " << sh.instr << " | active " << mask);
    const lp::Layout smem_layout = lp::parse_layout_text(smem).layout, lanes = lp::parse_layout_text(sh.lanes).layout;
    const int64_t base_align = 128;
    lp::SmemAccess access(smem_layout, sh.bits, lanes, lp::hw::smem_instr(sh.instr), arch, base_align, mask);
    // Brute force, written here: the byte address of every active lane from the two layouts'
    // values (row-major tile: offset = row * pitch + col), then the hardware model with the mask.
    int64_t worst = 0, ideal = 0;
    for (int64_t issue = 0; issue < lanes.size() / 32; ++issue)
      for (int64_t base = 0; base < 128; base += base_align) {
        std::vector<int64_t> addr(32, 0);
        int first = -1;
        for (int lane = 0; lane < 32; ++lane) {
          if (!((mask >> lane) & 1)) continue;
          const lp::Point c = lanes.images(lane + 32 * issue)[0];  // (row, col) in the basis axes' order
          const auto row = lanes.axis_index(lp::Axis::basis({0})), col = lanes.axis_index(lp::Axis::basis({1}));
          const int64_t r = row ? c[*row] : 0, k = col ? c[*col] : 0;
          addr[static_cast<size_t>(lane)] = base + (r * pitch + k) * (sh.bits / 8);
          if (first < 0) first = lane;
        }
        for (int lane = 0; lane < 32; ++lane)
          if (!((mask >> lane) & 1)) addr[static_cast<size_t>(lane)] = addr[static_cast<size_t>(first)];
        const auto cost = lp::hw::smem_access_cost(arch, lp::hw::smem_instr(sh.instr), addr, mask);
        if (cost.wavefronts > worst) worst = cost.wavefronts, ideal = cost.ideal;
      }
    for (lp::Engine e : {lp::Engine::Enum, lp::Engine::Z3, lp::Engine::Auto}) {
      const auto r = lp::prove_conflict_free(access, e, kPatient);
      INFO(lp::engine_name(e) << ": " << r.reason);
      REQUIRE(r.verdict == (worst > ideal ? lp::Verdict::Refuted : lp::Verdict::Proven));
      CHECK(r.wavefronts == worst);
      CHECK(r.ideal == ideal);
      if (r.conflict) {
        CHECK(((mask >> r.conflict->lane_a) & 1));
        CHECK(((mask >> r.conflict->lane_b) & 1));
      }
    }
    const bool partial = mask != lp::hw::kAllLanes;
    if (partial) CHECK(lp::prove_conflict_free(access, lp::Engine::F2).verdict == lp::Verdict::Unknown);
    (worst > ideal ? conflicted : clean)++;
  }
  CHECK(conflicted > 5);
  CHECK(clean > 5);
}

TEST_CASE("a partial warp's inactive lanes are never evaluated: they may point outside the buffer", "[solver][mask]") {
  // Lanes 16..31 would address rows 16..31 of a 16-row tile: only lanes 0..15 execute.
  const auto& arch = lp::hw::arch_by_name("sm_90");
  const lp::Layout smem = lp::parse_layout_text("(_16,_8):(_8,_1)").layout, lanes = lp::parse_layout_text("(_32):(_1@0)").layout;
  const auto& instr = lp::hw::smem_instr("ld.shared.v4.b32");
  lp::SmemAccess half(smem, 16, lanes, instr, arch, 128, 0x0000ffffu);
  for (lp::Engine e : {lp::Engine::Enum, lp::Engine::Z3, lp::Engine::Auto}) {
    INFO(lp::engine_name(e));
    const auto r = lp::prove_conflict_free(half, e, kPatient);
    CHECK(r.verdict == lp::Verdict::Proven);
    CHECK(r.wavefronts == 2);  // 16 rows of 16 bytes: two conflict-free phases; the two idle ones cost nothing
  }
  lp::SmemAccess full(smem, 16, lanes, instr, arch, 128);
  CHECK(lp::prove_conflict_free(full, lp::Engine::Enum).access);
  CHECK_THROWS_AS(lp::SmemAccess(smem, 16, lanes, instr, arch, 128, 0), lp::AccessError);
}

TEST_CASE("bank conflicts: lane maps that give smem indices, with a vector along mode 1", "[solver][conflict]") {
  // Regression: the vector check used to index the coordinate of an index-valued lane map by mode.
  const auto& arch = lp::hw::arch_by_name("sm_90");
  auto access = [&](const char* smem) {
    return lp::SmemAccess(lp::parse_layout_text(smem).layout, 16, lp::parse_layout_text("(_32):(_8)").layout,
                          lp::hw::smem_instr("ld.shared.v4.b32"), arch, 1024);
  };
  for (lp::Engine e : {lp::Engine::Enum, lp::Engine::Z3, lp::Engine::F2}) {
    INFO(lp::engine_name(e));
    // Row-major (8,64): colexicographic index 8 is coordinate (0,1), offset 1: misaligned.
    auto row = lp::prove_conflict_free(access("(_8,_64):(_64,_1)"), e, kPatient);
    CHECK(row.verdict == lp::Verdict::Refuted);
    REQUIRE(row.access);
    CHECK(row.access->what.find("not aligned to 16 bytes") != std::string::npos);
    // Column-major (64,8): index 8*lane is offset 8*lane: 16-byte vectors, 4 conflict-free phases.
    auto col = lp::prove_conflict_free(access("(_64,_8):(_1,_64)"), e, kPatient);
    CHECK(col.verdict == lp::Verdict::Proven);
    CHECK(col.wavefronts == 4);
  }
}

TEST_CASE("bank conflicts with element offsets: every engine equals the hardware model on the offsets' addresses",
          "[solver][conflict][offsets]") {
  Rng rng(53);
  const auto& arch = lp::hw::arch_by_name("sm_90");
  // A padded row-major f16 tile, read by lane maps that give element offsets: a row stride (the
  // pitch, or a wrong one), a 16-byte chunk stride, sometimes a swizzled buffer (whose layout the
  // offsets bypass). The oracle: base + 2 * offset per lane, then the hardware model.
  const char* instrs[] = {"ld.shared.v4.b32", "ld.shared.v2.b32", "ld.shared.b32", "ldmatrix.x4"};
  int conflicted = 0, clean = 0, outside = 0;
  for (int trial = 0; trial < 80; ++trial) {
    const char* instr = instrs[trial % 4];
    const int64_t pitch = 64 + 8 * pick(rng, 0, 3);
    const std::string smem = trial % 5 == 4 ? "Sw<3,3,3> o _0 o (_64,_64):(_64,_1)"
                                            : "(_64,_64):(_" + std::to_string(pitch) + ",_1)";
    const int64_t row = pick(rng, 0, 2) ? pitch : pick(rng, 1, 96), chunk = 8 * pick(rng, 1, 2);
    const int64_t rows = int64_t{1} << pick(rng, 2, 4);  // lanes per column of chunks
    const std::string lanes = fmt::format("({},{},_2):({},{},{})", rows, 32 / rows, row, chunk, 16 * row);
    INFO(smem << " | offsets " << lanes << " | " << instr);
    const lp::Layout smem_layout = lp::parse_layout_text(smem).layout, lane_map = lp::parse_layout_text(lanes).layout;
    const auto& ins = lp::hw::smem_instr(instr);
    lp::SmemAccess access(smem_layout, 16, lane_map, ins, arch, 128, lp::hw::kAllLanes, lp::LaneValues::ElementOffsets);
    // The offsets the buffer reaches end at 63 * pitch + 64: the last row's padding is not its.
    const int64_t span = 64 * (trial % 5 == 4 ? 64 : pitch);
    int64_t worst = 0, ideal = 0;
    bool out_of_bounds = false;
    for (int64_t issue = 0; issue < 2; ++issue) {
      std::vector<int64_t> addr(32);
      for (int lane = 0; lane < 32; ++lane) {
        const int64_t off = lane % rows * row + lane / rows * chunk + issue * 16 * row;
        // An address lane past the buffer's last element, or off its access size, is invalid.
        if (lane < lp::hw::address_lane_count(ins) &&
            (off + ins.bytes / 2 > span - (trial % 5 == 4 ? 0 : pitch - 64) || (2 * off) % ins.bytes != 0))
          out_of_bounds = true;
        addr[static_cast<size_t>(lane)] = 2 * off;
      }
      if (!out_of_bounds) {
        const auto cost = lp::hw::smem_access_cost(arch, ins, addr);
        if (cost.wavefronts > worst) worst = cost.wavefronts, ideal = cost.ideal;
      }
    }
    for (lp::Engine e : {lp::Engine::Enum, lp::Engine::Z3, lp::Engine::F2, lp::Engine::Auto}) {
      // Z3 on every third trial (every instruction and layout kind still meets it): its queries
      // took 4 of the 5 minutes this test ran.
      if (e == lp::Engine::Z3 && trial % 3 != 0) continue;
      const auto r = lp::prove_conflict_free(access, e, kPatient);
      INFO(lp::engine_name(e) << ": " << r.reason);
      if (out_of_bounds) {
        if (r.verdict != lp::Verdict::Unknown) CHECK(r.access);  // F2 may decline
        continue;
      }
      if (r.verdict == lp::Verdict::Unknown && e == lp::Engine::F2) continue;  // F2 needs power-of-two strides
      REQUIRE(r.verdict == (worst > ideal ? lp::Verdict::Refuted : lp::Verdict::Proven));
      CHECK(r.wavefronts == worst);
      CHECK(r.ideal == ideal);
    }
    (out_of_bounds ? outside : worst > ideal ? conflicted : clean)++;
  }
  CHECK(conflicted > 5);
  CHECK(clean > 5);
  CHECK(outside > 2);
}

TEST_CASE("bank conflicts for every parameter value: each instance equals the hardware model at its pitch",
          "[solver][conflict][params]") {
  // A row-major f16 tile at pitch P, read by ldmatrix.x4 (8 rows a phase) or ld.shared.v4.b32
  // (8 rows of a column chunk a phase): the oracle computes each lane's address at each pitch.
  const auto& arch = lp::hw::arch_by_name("sm_90");
  const std::vector<lp::ParamSpec> specs = {{"P", 64, 136, 8}};
  const auto parsed = lp::parse_layout_text("(_16,_64):(P,_1)", "<smem>", std::nullopt, &specs);
  const lp::Parametric params{specs, parsed.param_uses};
  for (const char* instr : {"ldmatrix.x4", "ld.shared.v4.b32"}) {
    const lp::Layout lanes = lp::parse_layout_text("(_8,_4,_2):(_1@0,_8@1,_8@0)").layout;
    const auto& ins = lp::hw::smem_instr(instr);
    auto make = [&](const std::vector<int64_t>& v) {
      return lp::SmemAccess(lp::instantiate(parsed.layout, params, v), 16, lanes, ins, arch, 128);
    };
    // Every value decided one by one (no parameter is marked affine: no residue classes).
    const auto decided = lp::prove_conflict_free_over_values({specs, make, {false}}, lp::Engine::Auto);
    REQUIRE(decided);
    CHECK(decided->reduction.empty());
    const auto* instances = &decided->instances;
    REQUIRE(instances->size() == 10);  // 64, 72, ..., 136: every one decided (none refuted stops it)
    for (const auto& inst : *instances) {
      const int64_t pitch = inst.values[0];
      INFO(instr << " P=" << pitch);
      int64_t worst = 0, ideal = 0;
      for (int64_t issue = 0; issue < 2; ++issue) {
        std::vector<int64_t> addr(32);
        for (int lane = 0; lane < 32; ++lane) addr[static_cast<size_t>(lane)] = 2 * ((lane % 8 + 8 * issue) * pitch + 8 * (lane / 8));
        const auto cost = lp::hw::smem_access_cost(arch, ins, addr);
        if (cost.wavefronts > worst) worst = cost.wavefronts, ideal = cost.ideal;
      }
      CHECK(inst.result.verdict == (worst > ideal ? lp::Verdict::Refuted : lp::Verdict::Proven));
      CHECK(inst.result.wavefronts == worst);
    }
  }
  // More value vectors than kMostConflictInstances are counted, never built.
  const std::vector<lp::ParamSpec> huge = {{"M", 1, 1 << 20, 1}};
  CHECK(!lp::prove_conflict_free_over_values(
      {huge, [](const std::vector<int64_t>&) -> lp::SmemAccess { throw lp::AccessError("not built"); }, {false}},
      lp::Engine::Auto));
  // An instance that cannot be modelled stops the decision, with the reason.
  const auto stopped = lp::prove_conflict_free_over_values(
      {specs, [](const std::vector<int64_t>& v) -> lp::SmemAccess { throw lp::AccessError("P=" + std::to_string(v[0])); },
       {true}},
      lp::Engine::Auto);
  REQUIRE(stopped);
  REQUIRE(stopped->instances.size() == 1);
  CHECK(stopped->instances.front().invalid == "P=64");
}

TEST_CASE("F2-linear stages (Triton's linear layouts): every engine against brute force", "[solver][f2stage]") {
  Rng rng(53);
  const auto& arch = lp::hw::arch_by_name("sm_90");
  int injective = 0, not_injective = 0, conflicted = 0, clean = 0;
  for (int trial = 0; trial < 36; ++trial) {
    // A random map of a 32x32 tile's 10 offset bits: a permutation with row bits XORed into
    // higher ones (bijective), or with a repeated column (not injective).
    std::vector<int64_t> cols;
    for (int k = 0; k < 10; ++k) cols.push_back(int64_t{1} << k);
    if (trial % 3 == 0) {
      std::shuffle(cols.begin(), cols.end(), rng);
    } else {  // the column bits among themselves, the row bits among themselves
      std::shuffle(cols.begin(), cols.begin() + 5, rng);
      std::shuffle(cols.begin() + 5, cols.end(), rng);
    }
    for (int k = 5; k < 10; ++k)
      if (pick(rng, 0, 1)) cols[static_cast<size_t>(k)] ^= cols[static_cast<size_t>(pick(rng, 0, 4))];
    if (trial % 4 == 3) cols[9] = cols[static_cast<size_t>(pick(rng, 0, 8))];
    std::string text = "F2[";
    for (size_t k = 0; k < cols.size(); ++k) text += (k ? "," : "") + std::to_string(cols[k]);
    text += "] o _0 o (_32,_32):(_32,_1)";
    INFO(text);
    const lp::Layout l = lp::parse_layout_text(text).layout;
    const bool truth = brute_injective(l);
    (truth ? injective : not_injective)++;
    for (lp::Engine e : {lp::Engine::Enum, lp::Engine::F2, lp::Engine::Z3}) {
      auto r = lp::prove_injective(l, e, kPatient);
      INFO(lp::engine_name(e) << ": " << r.reason);
      REQUIRE(r.verdict == (truth ? lp::Verdict::Proven : lp::Verdict::Refuted));
    }
    if (!truth) continue;
    // Row reads of 32-bit words: Z3 and enumeration agree on the verdict and the wavefronts.
    lp::SmemAccess access(l, 32, lp::parse_layout_text("(_32,_2):(_1@1,_1@0)").layout,
                          lp::hw::smem_instr("ld.shared.b32"), arch, 128);
    auto en = lp::prove_conflict_free(access, lp::Engine::Enum);
    auto z = lp::prove_conflict_free(access, lp::Engine::Z3, kPatient);
    INFO("enum: " << en.reason << "\nz3: " << z.reason);
    REQUIRE(en.verdict != lp::Verdict::Unknown);
    REQUIRE(z.verdict == en.verdict);
    REQUIRE(z.wavefronts == en.wavefronts);
    // The worst issue's wavefronts, counted here: distinct 4-byte words per bank over the warp.
    int64_t worst = 0;
    for (int64_t row = 0; row < 2; ++row) {
      std::map<int64_t, std::set<int64_t>> words;
      for (int64_t lane = 0; lane < 32; ++lane) {
        const int64_t word = l.images(row + 32 * lane)[0][0];  // coordinate (row, lane), colexicographic
        words[word % 32].insert(word);
      }
      for (const auto& [bank, w] : words) worst = std::max<int64_t>(worst, static_cast<int64_t>(w.size()));
    }
    REQUIRE(en.wavefronts == worst);
    (en.verdict == lp::Verdict::Proven ? clean : conflicted)++;
  }
  CHECK(injective > 12);
  CHECK(not_injective > 4);
  CHECK(conflicted > 3);
  CHECK(clean > 3);
}
