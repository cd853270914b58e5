// Symbolic parameters: parsing records every use, and a proof for all values agrees with
// brute force over each value (instances made here by writing the number into the text).
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <functional>
#include <limits>
#include <map>
#include <random>
#include <regex>
#include <set>

#include "analyzer/parse/Parsers.h"
#include "solver/Coverage.h"
#include "analyzer/support/Governor.h"
#include "solver/Injectivity.h"
#include "analyzer/ir/Parametric.h"

namespace {

lp::ParsedLayout parse_with(const std::string& text, const std::vector<lp::ParamSpec>& specs) {
  return lp::parse_layout_text(text, "<layout>", std::nullopt, &specs);
}

// The layout with each parameter name replaced by its value, parsed as plain text.
lp::Layout substituted(std::string text, const std::vector<lp::ParamSpec>& specs, const std::vector<int64_t>& values) {
  for (size_t i = 0; i < specs.size(); ++i)
    text = std::regex_replace(text, std::regex("\\b" + specs[i].name + "\\b"), std::to_string(values[i]));
  return lp::parse_layout_text(text).layout;
}

bool brute_injective(const lp::Layout& l) {
  std::map<lp::Point, int64_t> owner;
  for (int64_t i = 0; i < l.size(); ++i)
    for (const auto& p : l.images(i)) {
      auto [it, fresh] = owner.emplace(p, i);
      if (!fresh && it->second != i) return false;
    }
  return true;
}

}  // namespace

TEST_CASE("parameters: uses are recorded where the text puts them", "[params]") {
  std::vector<lp::ParamSpec> specs = {{"M", 64, 1024, 64}, {"N", 1, 4, 1}};
  auto cute = parse_with("(M,_64):(_64,2*M)", specs);
  REQUIRE(cute.param_uses.size() == 2);
  CHECK(cute.param_uses[0].field == lp::ParamUse::Field::Extent);
  CHECK(cute.param_uses[1].field == lp::ParamUse::Field::Stride);
  CHECK(cute.param_uses[1].term.coeff == 2);
  CHECK(cute.layout.modes()[0].extent == 1024);  // the instance at the largest value
  auto tirx = parse_with("S[(M,64):(64,1)] + R[N:M*32@warpid]", specs);
  REQUIRE(tirx.param_uses.size() == 3);
  CHECK(tirx.param_uses[1].field == lp::ParamUse::Field::ReplicaExtent);
  CHECK(tirx.param_uses[2].field == lp::ParamUse::Field::ReplicaStride);
  CHECK(tirx.param_uses[2].term.coeff == 32);
  // Names that are not declared are still not numbers; parameters elsewhere are refused.
  CHECK_THROWS_AS(parse_with("(K,_64):(_64,_1)", specs), lp::DiagnosticError);
  CHECK_THROWS_AS(parse_with("S[(8,64):(64,1)] + M", specs), lp::DiagnosticError);
  CHECK_THROWS_AS(parse_with("Sw<3,3,3> o M o _8:_1", specs), lp::DiagnosticError);
  CHECK_THROWS_AS(parse_with("(0*M):(_1)", specs), lp::DiagnosticError);
}

TEST_CASE("parameters: the issue's dynamic extent M % 64 == 0, M <= 2^20 is proven for every M", "[params]") {
  std::vector<lp::ParamSpec> specs = {{"M", 64, 1 << 20, 64}};
  auto p = parse_with("(M,64):(64,1)", specs);
  lp::Parametric params{specs, p.param_uses};
  auto r = lp::prove_injective(p.layout, lp::Engine::Z3, {}, &params);
  CHECK(r.verdict == lp::Verdict::Proven);
  // A pitch of 48 for 64 columns overlaps rows, for every M >= 2: refuted with a value.
  auto bad = parse_with("(M,64):(48,1)", specs);
  lp::Parametric bad_params{specs, bad.param_uses};
  auto rb = lp::prove_injective(bad.layout, lp::Engine::Z3, {}, &bad_params);
  REQUIRE(rb.verdict == lp::Verdict::Refuted);
  lp::Layout inst = substituted("(M,64):(48,1)", specs, rb.witness->params);
  CHECK(rb.witness->params[0] % 64 == 0);
  CHECK(inst.offset_at(rb.witness->index_a) == inst.offset_at(rb.witness->index_b));
}

TEST_CASE("parameters: Z3 and enumeration agree with brute force over every value", "[params]") {
  std::mt19937_64 rng(77);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  int proven = 0, refuted = 0;
  for (int trial = 0; trial < 120; ++trial) {
    std::vector<lp::ParamSpec> specs = {{"M", 1, pick(2, 9), 1}};
    std::string text;
    switch (trial % 4) {
      case 0: text = "(M," + std::to_string(pick(1, 4)) + "):(" + std::to_string(pick(1, 4)) + ",M)"; break;
      case 1: text = "(" + std::to_string(pick(1, 4)) + ",M):(M," + std::to_string(pick(1, 5)) + ")"; break;
      case 2: text = "S[(M," + std::to_string(pick(1, 4)) + "):(" + std::to_string(pick(1, 6)) + "@laneid,1)] + R[2:" +
                     std::to_string(pick(1, 8)) + "@laneid]"; break;
      default: text = "S[(4,M):(M,1)] + R[M:" + std::to_string(pick(3, 9)) + "@warpid]"; break;
    }
    INFO(text << " M=1.." << specs[0].hi);
    auto parsed = parse_with(text, specs);
    lp::Parametric params{specs, parsed.param_uses};
    bool truth = true;
    for (int64_t m = 1; m <= specs[0].hi; ++m) truth &= brute_injective(substituted(text, specs, {m}));
    (truth ? proven : refuted)++;
    for (lp::Engine e : {lp::Engine::Enum, lp::Engine::Z3}) {
      auto r = lp::prove_injective(parsed.layout, e, {}, &params);
      INFO(lp::engine_name(e) << ": " << r.reason);
      REQUIRE(r.verdict == (truth ? lp::Verdict::Proven : lp::Verdict::Refuted));
      if (!truth) {
        lp::Layout inst = substituted(text, specs, r.witness->params);
        auto a = inst.images(r.witness->index_a), b = inst.images(r.witness->index_b);
        REQUIRE(r.witness->index_a != r.witness->index_b);
        REQUIRE(std::find(a.begin(), a.end(), r.witness->image) != a.end());
        REQUIRE(std::find(b.begin(), b.end(), r.witness->image) != b.end());
      }
    }
  }
  CHECK(proven > 15);
  CHECK(refuted > 15);
}

TEST_CASE("parameters: replica coverage for every replica count", "[params]") {
  std::vector<lp::ParamSpec> specs = {{"N", 1, 6, 1}};
  for (const char* text : {"S[(32,4):(1@TLane,1@TCol)] + R[N:32@TLane]", "S[(16,2):(1@TLane,1@TCol)] + R[N:16@TLane]"}) {
    for (int64_t lo : {1, 4}) {
      specs[0].lo = lo;
      auto parsed = parse_with(text, specs);
      lp::Parametric params{specs, parsed.param_uses};
      int64_t lanes = std::string(text).find("(32") != std::string::npos ? 128 : 64;
      bool truth = true;
      for (int64_t n = lo; n <= 6; ++n) {
        std::set<int64_t> hit;
        lp::Layout inst = substituted(text, specs, {n});
        size_t lane = *inst.axis_index(lp::Axis::named("TLane"));
        for (int64_t i = 0; i < inst.size(); ++i)
          for (const auto& p : inst.images(i)) hit.insert(p[lane]);
        for (int64_t t = 0; t < lanes; ++t) truth &= hit.count(t) > 0;
      }
      for (lp::Engine e : {lp::Engine::Enum, lp::Engine::Z3}) {
        INFO(text << " N=" << lo << "..6 " << lp::engine_name(e));
        auto r = lp::prove_covers(parsed.layout, {{lp::Axis::named("TLane"), 0, lanes - 1}}, e, {}, &params);
        CHECK(r.verdict == (truth ? lp::Verdict::Proven : lp::Verdict::Refuted));
      }
    }
  }
}

TEST_CASE("limits: a parameter range is counted, never built, and overflows nothing", "[params][limits]") {
  const int64_t max = std::numeric_limits<int64_t>::max();
  // 1..2^63-1: 2^63-1 values, counted exactly; listing them is refused before anything is built.
  CHECK(lp::param_value_count({"M", 1, max, 1}) == max);
  CHECK_FALSE(lp::param_values({"M", 1, max, 1}, int64_t{1} << 24));
  // The multiples of 64 near the top: first is the largest multiple below 2^63, and stepping to
  // the next would overflow (the old enumeration did `x += multiple` past INT64_MAX).
  CHECK(lp::param_value_count({"M", max - 100, max, 64}) == 1);
  CHECK(*lp::param_values({"M", max - 100, max, 64}, 10) == std::vector<int64_t>{max - max % 64});
  CHECK(lp::param_value_count({"M", max - 10, max, 64}) == 0);
  CHECK(lp::param_value_count({"M", 65, 127, 64}) == 0);
  CHECK(lp::param_value_count({"M", 64, 1024, 64}) == 16);
  // Two ranges of 2^31 values: 2^62 combinations, refused without building a single one.
  lp::Parametric two;
  two.specs = {{"M", 1, int64_t{1} << 31, 1}, {"N", 1, int64_t{1} << 31, 1}};
  CHECK_FALSE(lp::all_param_values(two, int64_t{1} << 24));
}

TEST_CASE("limits: a huge parameter range gives an answer within the limits, not 16 GB of values", "[params][limits]") {
  // (M,N):(_1,M) with M, N up to 2^31: injective for every value (column-major, pitch M), but the
  // query must stay bounded whatever it answers: the old enumeration built 2^31 values first.
  std::vector<lp::ParamSpec> specs = {{"M", 1, int64_t{1} << 31, 1}, {"N", 1, int64_t{1} << 31, 1}};
  auto parsed = parse_with("(M,N):(_1,M)", specs);
  lp::Parametric params{specs, parsed.param_uses};
  const uint64_t before = lp::resident_bytes();
  lp::SolverLimits limits;
  limits.timeout_ms = 500;
  auto r = lp::prove_injective(parsed.layout, lp::Engine::Auto, limits, &params);
  CHECK(r.verdict != lp::Verdict::Refuted);
  CHECK(lp::resident_bytes() < before + (uint64_t{512} << 20));
}

TEST_CASE("parameters: affine terms (2*M+8, M-1) agree with brute force over every value", "[params][affine]") {
  // The generator knows each term's coefficient and offset, so it writes the instance for each
  // value itself: the oracle never reads an expression.
  std::mt19937_64 rng(91);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  auto term = [](int64_t a, int64_t b) {
    std::string t = (a == 1 ? "" : std::to_string(a) + "*") + "M";
    return b == 0 ? t : t + (b > 0 ? "+" : "-") + std::to_string(std::llabs(b));
  };
  int proven = 0, refuted = 0;
  for (int trial = 0; trial < 90; ++trial) {
    const int64_t lo = pick(2, 4), hi = lo + pick(1, 6);
    const std::vector<lp::ParamSpec> specs = {{"M", lo, hi, 1}};
    const int64_t a = pick(1, 3), b = pick(-1, 9), e = pick(1, 5);
    // A padded pitch (a*M+b rows of e columns), an extent a*M+b, or a stride that may be short.
    std::function<std::string(const std::string&)> shape;
    switch (trial % 3) {
      case 0: shape = [&](const std::string& t) { return fmt::format("({},{}):({},1)", e, 4, t); }; break;
      case 1: shape = [&](const std::string& t) { return fmt::format("({},{}):(1,{})", t, e, t); }; break;
      default: shape = [&](const std::string& t) { return fmt::format("(4,{}):({},{})", t, t, e); }; break;
    }
    if (trial % 3 != 0 && a * lo + b < 1) continue;  // an extent must be at least 1 at every value
    const std::string text = shape(term(a, b));
    INFO(text << " M=" << lo << ".." << hi);
    auto parsed = parse_with(text, specs);
    REQUIRE(parsed.param_uses.size() >= 1);
    CHECK(parsed.param_uses[0].term.coeff == a);
    CHECK(parsed.param_uses[0].term.offset == b);
    lp::Parametric params{specs, parsed.param_uses};
    bool truth = true;
    for (int64_t m = lo; m <= hi; ++m) truth &= brute_injective(lp::parse_layout_text(shape(std::to_string(a * m + b))).layout);
    (truth ? proven : refuted)++;
    for (lp::Engine eng : {lp::Engine::Enum, lp::Engine::Z3}) {
      auto r = lp::prove_injective(parsed.layout, eng, {}, &params);
      INFO(lp::engine_name(eng) << ": " << r.reason);
      REQUIRE(r.verdict == (truth ? lp::Verdict::Proven : lp::Verdict::Refuted));
      if (!truth) {
        const int64_t m = r.witness->params[0];
        const lp::Layout inst = lp::parse_layout_text(shape(std::to_string(a * m + b))).layout;
        CHECK(inst.offset_at(r.witness->index_a) == inst.offset_at(r.witness->index_b));
        CHECK(r.witness->index_a != r.witness->index_b);
      }
    }
  }
  CHECK(proven > 10);
  CHECK(refuted > 10);
}

TEST_CASE("parameters: affine terms that cannot stand are refused with a located reason", "[params][affine]") {
  const std::vector<lp::ParamSpec> specs = {{"M", 64, 1024, 64}, {"N", 1, 4, 1}};
  auto message = [&](const std::string& text) -> std::string {
    try {
      parse_with(text, specs);
    } catch (const lp::DiagnosticError& e) {
      return e.diagnostic().message;
    }
    return "accepted";
  };
  CHECK(message("(M-64,_8):(_1,M)") == "this extent is 0 where M=64; an extent is at least 1");
  CHECK(message("(M*N):(_1)") == "accepted");
  CHECK(message("(M*N+8,_2):(_1,M*N/4+2)") == "accepted");  // M is a multiple of 64: M*N/4 is an integer
  CHECK(message("(M+N):(_1)").find("'M' and 'N' are two different terms") != std::string::npos);
  CHECK(message("(M/2):(_1)") == "accepted");
  CHECK(message("(N/2):(_1)") == "N/2 is not an integer for every admissible value (N is declared % 1); declare the "
                                 "parameter a multiple of 2 (param NAME = LO..HI % 2)");
  CHECK(message("(M*N/128):(_1)") == "M*N/128 is not an integer for every admissible value (M is declared % 64, N is "
                                     "declared % 1); declare the parameter a multiple of 128 (param NAME = LO..HI % 128)");
  CHECK(message("(_8,_2):(M/128+1,_1)").find("M/128+1 is not an integer") != std::string::npos);
  CHECK(message("(_8):((M+8)*N)").find("expected") != std::string::npos);  // parentheses are tuples
  CHECK(message("(_8,_2):(M*N-64*N,_1)").find("two different terms") != std::string::npos);
  CHECK(message("(_8):(8/M)").find("division by a parameter") != std::string::npos);
  CHECK(message("(_8):(M+K)") == "'K' is not a declared parameter or a loop variable");
  CHECK(message("(_8,_2):(2*M+8,_1)") == "accepted");
  // The instance (at the largest value) fixes every proof's bit width: a stride whose size is
  // larger at a smaller value would overflow it.
  CHECK(message("(_8,_8):(M-1024,_1)") == "this stride is -960 where M=64 but 0 where M=1024: a stride over parameters must "
                                          "be largest in size at their largest values, where the layout is parsed");
  CHECK(message("(_8,_8):(M-96,_1)") == "accepted");  // -32 at 64, 928 at 1024
  CHECK(parse_with("(_8,_2):(2*M+8,_1)", specs).layout.modes()[0].stride[0] == 2 * 1024 + 8);
}

namespace {

// The first index (in the layout's order) whose offset an earlier index has, and that earlier
// index: written here over a scalar layout's offsets.
std::optional<std::pair<int64_t, int64_t>> first_collision(const lp::Layout& l) {
  std::map<int64_t, int64_t> owner;
  for (int64_t i = 0; i < l.size(); ++i) {
    auto [it, fresh] = owner.emplace(l.offset_at(i), i);
    if (!fresh) return std::pair{it->second, i};
  }
  return std::nullopt;
}

}  // namespace

TEST_CASE("parameters: the issue's row- and column-major layouts are proven for every size", "[params][nesting]") {
  // (M,N):(N,1), (M,N):(1,M) for M, N up to 4096, and (M,64):(1,M) for M up to 65536 were unknown
  // after 20-45 s: each mode strides past what the modes below reach, for every value.
  struct Case {
    const char* text;
    std::vector<lp::ParamSpec> specs;
  };
  const Case cases[] = {{"(M,N):(N,_1)", {{"M", 1, 4096, 1}, {"N", 1, 4096, 1}}},
                        {"(M,N):(_1,M)", {{"M", 1, 4096, 1}, {"N", 1, 4096, 1}}},
                        {"(M,_64):(_1,M)", {{"M", 1, 65536, 1}}},
                        {"(M,_64):(_1,M+8)", {{"M", 64, 65536, 64}}},
                        {"(_8,M,_2):(2*M+8,_1,M)", {{"M", 1, 4096, 1}}}};
  for (const Case& c : cases) {
    INFO(c.text);
    auto parsed = parse_with(c.text, c.specs);
    lp::Parametric params{c.specs, parsed.param_uses};
    for (lp::Engine e : {lp::Engine::Z3, lp::Engine::Auto}) {
      auto r = lp::prove_injective(parsed.layout, e, {}, &params);
      INFO(r.reason);
      CHECK(r.verdict == lp::Verdict::Proven);
      CHECK(r.reason.find("strides past") != std::string::npos);
    }
  }
}

TEST_CASE("parameters: a nesting proof only ever proves what brute force confirms", "[params][nesting]") {
  std::mt19937_64 rng(131);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  int nested = 0, refuted = 0;
  for (int trial = 0; trial < 150; ++trial) {
    const std::vector<lp::ParamSpec> specs = {{"M", 1, pick(2, 7), 1}, {"N", 1, pick(1, 5), 1}};
    // Two or three modes; each extent and stride a constant or an affine term a*P+b of M or N,
    // written for the prover and evaluated here for the oracle.
    struct Item {
      int64_t a, b;  // a*P + b; a == 0 for a constant
      bool of_m;
    };
    auto item = [&](bool stride) -> Item {
      switch (pick(0, 3)) {
        case 0: return {0, pick(stride ? 0 : 1, stride ? 9 : 4), true};
        case 1: return {1, 0, pick(0, 1) == 1};
        case 2: return {pick(1, 3), 0, pick(0, 1) == 1};
        default: return {1, pick(1, 4), pick(0, 1) == 1};
      }
    };
    auto written = [](const Item& i) {
      if (i.a == 0) return std::to_string(i.b);
      std::string t = (i.a == 1 ? "" : std::to_string(i.a) + "*") + (i.of_m ? "M" : "N");
      return i.b ? t + "+" + std::to_string(i.b) : t;
    };
    auto value = [](const Item& i, int64_t m, int64_t n) { return i.a * (i.of_m ? m : n) + i.b; };
    const int64_t rank = pick(2, 3);
    std::vector<Item> extents, strides;
    for (int64_t k = 0; k < rank; ++k) {
      extents.push_back(item(false));
      strides.push_back(item(true));
    }
    auto layout_text = [&](auto&& show) {
      std::string shape = "(", stride = "(";
      for (int64_t k = 0; k < rank; ++k) {
        shape += (k ? "," : "") + show(extents[static_cast<size_t>(k)]);
        stride += (k ? "," : "") + show(strides[static_cast<size_t>(k)]);
      }
      return shape + "):" + stride + ")";
    };
    const std::string text = layout_text(written);
    INFO(text << " M=1.." << specs[0].hi << " N=1.." << specs[1].hi);
    auto parsed = parse_with(text, specs);
    lp::Parametric params{specs, parsed.param_uses};
    // The truth and the smallest collision, value by value in the prover's order (M first).
    bool truth = true;
    std::optional<std::pair<int64_t, int64_t>> smallest;
    std::vector<int64_t> smallest_values;
    for (int64_t m = 1; m <= specs[0].hi && truth; ++m)
      for (int64_t n = 1; n <= specs[1].hi && truth; ++n) {
        const lp::Layout l =
            lp::parse_layout_text(layout_text([&](const Item& i) { return std::to_string(value(i, m, n)); })).layout;
        if (auto c = first_collision(l)) {
          truth = false;
          smallest = c;
          smallest_values = {m, n};
        }
      }
    auto r = lp::prove_injective(parsed.layout, lp::Engine::Z3, {}, &params);
    INFO(r.reason);
    REQUIRE(r.verdict == (truth ? lp::Verdict::Proven : lp::Verdict::Refuted));
    if (r.reason.find("strides past") != std::string::npos) ++nested;
    if (!truth) {
      ++refuted;
      // The counterexample is the smallest: the first colliding values, the first collision there.
      CHECK(r.witness->params == smallest_values);
      CHECK(r.witness->index_a == smallest->first);
      CHECK(r.witness->index_b == smallest->second);
    }
  }
  CHECK(nested > 20);
  CHECK(refuted > 20);
}

TEST_CASE("parameters: a contiguity proof of coverage, and products of parameters, agree with brute force",
          "[params][nesting][coverage]") {
  // Random layouts of 2 or 3 modes whose extents and strides are constants or terms a*P+b of M,
  // N or the product M*N, and a target 0..T: the prover (Z3, whose first step is the contiguity
  // proof) against every value's offsets, enumerated from the text with the numbers written in.
  std::mt19937_64 rng(2027);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  int contiguous = 0, refuted = 0, products = 0;
  for (int trial = 0; trial < 150; ++trial) {
    const std::vector<lp::ParamSpec> specs = {{"M", 1, pick(2, 6), 1}, {"N", 1, pick(1, 4), 1}};
    struct Item {
      int64_t a, b;
      int of;  // 0: constant b; 1: M; 2: N; 3: M*N
    };
    auto item = [&](bool stride) -> Item {
      const int of = static_cast<int>(pick(0, 3));
      if (of == 0) return {0, pick(1, stride ? 6 : 4), 0};
      return {pick(1, 2), pick(0, 2), of};
    };
    auto written = [](const Item& i) {
      static const char* names[] = {"", "M", "N", "M*N"};
      if (i.of == 0) return std::to_string(i.b);
      std::string t = (i.a == 1 ? "" : std::to_string(i.a) + "*") + names[i.of];
      return i.b ? t + "+" + std::to_string(i.b) : t;
    };
    auto value = [](const Item& i, int64_t m, int64_t n) {
      const int64_t p[] = {0, m, n, m * n};
      return i.a * p[i.of] + i.b;
    };
    const int64_t rank = pick(2, 3);
    std::vector<Item> extents, strides;
    bool uses_product = false;
    for (int64_t k = 0; k < rank; ++k) {
      extents.push_back(item(false));
      strides.push_back(item(true));
      uses_product |= extents.back().of == 3 || strides.back().of == 3;
    }
    if (trial % 2 == 0) strides[0] = {0, 1, 0};  // a unit stride, which contiguity needs
    if (trial % 4 == 0) strides[1] = extents[0];  // the next mode right after it (a row-major tile)
    auto layout_text = [&](auto&& show) {
      std::string shape = "(", stride = "(";
      for (int64_t k = 0; k < rank; ++k) {
        shape += (k ? "," : "") + show(extents[static_cast<size_t>(k)]);
        stride += (k ? "," : "") + show(strides[static_cast<size_t>(k)]);
      }
      return shape + "):" + stride + ")";
    };
    const int64_t target = pick(1, trial % 3 == 0 ? 40 : 6);
    const std::string text = layout_text(written);
    INFO(text << " M=1.." << specs[0].hi << " N=1.." << specs[1].hi << " target 0.." << target);
    auto parsed = parse_with(text, specs);
    lp::Parametric params{specs, parsed.param_uses};
    bool truth = true;
    for (int64_t m = 1; m <= specs[0].hi && truth; ++m)
      for (int64_t n = 1; n <= specs[1].hi && truth; ++n) {
        const lp::Layout l =
            lp::parse_layout_text(layout_text([&](const Item& i) { return std::to_string(value(i, m, n)); })).layout;
        std::set<int64_t> seen;
        for (int64_t i = 0; i < l.size(); ++i) seen.insert(l.offset_at(i));
        for (int64_t x = 0; x <= target; ++x) truth &= seen.count(x) > 0;
      }
    for (lp::Engine e : {lp::Engine::Z3, lp::Engine::Auto}) {
      auto r = lp::prove_covers(parsed.layout, {lp::AxisRange{lp::Axis::memory(), 0, target}}, e, {}, &params);
      INFO(lp::engine_name(e) << ": " << r.reason);
      if (e == lp::Engine::Z3 && r.verdict == lp::Verdict::Unknown) continue;  // non-linear bit-vectors may time out
      REQUIRE(r.verdict == (truth ? lp::Verdict::Proven : lp::Verdict::Refuted));
      if (e == lp::Engine::Z3) contiguous += r.reason.find("at most one past") != std::string::npos;
    }
    refuted += !truth;
    products += uses_product;
  }
  CHECK(contiguous > 15);
  CHECK(refuted > 15);
  CHECK(products > 50);
  INFO(contiguous);
}

TEST_CASE("parameters: a coverage counterexample is the smallest value's first uncovered point", "[params][minimal]") {
  // Offsets of (N, E):(1, S) over the target m = 0..T: brute force here, value by value.
  std::mt19937_64 rng(7);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  int refuted = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const int64_t e = pick(1, 4), stride = pick(1, 12), t = pick(4, 24);
    const std::vector<lp::ParamSpec> specs = {{"N", 1, pick(2, 9), 1}};
    const std::string text = fmt::format("(N,{}):(1,{})", e, stride);
    INFO(text << " N=1.." << specs[0].hi << " target m=0.." << t);
    auto parsed = parse_with(text, specs);
    lp::Parametric params{specs, parsed.param_uses};
    std::optional<std::pair<int64_t, int64_t>> first;  // (N, uncovered offset)
    for (int64_t n = 1; n <= specs[0].hi && !first; ++n) {
      std::set<int64_t> hit;
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < e; ++j) hit.insert(i + j * stride);
      for (int64_t m = 0; m <= t && !first; ++m)
        if (!hit.count(m)) first = std::pair{n, m};
    }
    for (lp::Engine eng : {lp::Engine::Enum, lp::Engine::Z3, lp::Engine::Auto}) {
      auto r = lp::prove_covers(parsed.layout, {lp::AxisRange{lp::Axis::memory(), 0, t}}, eng, {}, &params);
      INFO(lp::engine_name(eng) << ": " << r.reason);
      REQUIRE(r.verdict == (first ? lp::Verdict::Refuted : lp::Verdict::Proven));
      if (first) {
        CHECK(r.witness->params == std::vector<int64_t>{first->first});
        CHECK(r.witness->uncovered == std::vector<int64_t>{first->second});
      }
    }
    if (first) ++refuted;
  }
  CHECK(refuted > 20);
}
