// Round trip on generated layouts: the test writes each layout as text itself, evaluates it
// with its own straightforward evaluator (the oracle), and checks that parse gives that function
// and that print -> parse gives it again.
#include <catch2/catch.hpp>
#include <functional>
#include <map>
#include <optional>
#include <random>

#include "analyzer/ir/Print.h"
#include "analyzer/parse/Parsers.h"

namespace {

using Rng = std::mt19937_64;

int64_t pick(Rng& rng, int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); }

std::string sp(Rng& rng) { return pick(rng, 0, 3) == 0 ? " " : ""; }  // whitespace users add

// ---- CuTe ----------------------------------------------------------------------------------

struct CuteNode {
  bool leaf = true;
  int64_t extent = 1, stride = 0;
  std::vector<CuteNode> kids;
};

CuteNode gen_cute(Rng& rng, int depth, int64_t& budget) {
  CuteNode n;
  if (depth < 3 && pick(rng, 0, 2) == 0) {
    n.leaf = false;
    int k = static_cast<int>(pick(rng, 1, 3));
    for (int i = 0; i < k; ++i) n.kids.push_back(gen_cute(rng, depth + 1, budget));
    return n;
  }
  n.extent = pick(rng, 1, std::max<int64_t>(1, std::min<int64_t>(6, budget)));
  budget = std::max<int64_t>(1, budget / n.extent);
  n.stride = pick(rng, -20, 40);
  return n;
}

void leaves(const CuteNode& n, std::vector<const CuteNode*>& out) {
  if (n.leaf) out.push_back(&n);
  else for (const auto& k : n.kids) leaves(k, out);
}

std::string cute_text(const CuteNode& n, bool shape, Rng& rng) {
  if (n.leaf) {
    int64_t v = shape ? n.extent : n.stride;
    return (pick(rng, 0, 1) ? "_" : "") + std::to_string(v);
  }
  std::string s = "(";
  for (size_t i = 0; i < n.kids.size(); ++i) s += (i ? "," + sp(rng) : "") + cute_text(n.kids[i], shape, rng);
  return s + ")";
}

int64_t swizzle_oracle(int64_t x, int b, int m, int s) {
  // Bit by bit: destination bit (m - min(s,0) + k) ^= source bit (m + max(s,0) + k).
  uint64_t u = static_cast<uint64_t>(x), out = u;
  for (int k = 0; k < b; ++k) {
    int src = m + std::max(s, 0) + k, dst = m - std::min(s, 0) + k;
    out ^= ((u >> src) & 1u) << dst;
  }
  return static_cast<int64_t>(out);
}

}  // namespace

TEST_CASE("CuTe layouts: parse gives the written function, print -> parse keeps it", "[roundtrip]") {
  Rng rng(20261121);
  for (int trial = 0; trial < 3000; ++trial) {
    int64_t budget = 512;
    CuteNode root = gen_cute(rng, 0, budget);
    std::vector<const CuteNode*> ls;
    leaves(root, ls);
    // Optional swizzle chain: element swizzles with offsets, or one byte swizzle.
    struct Sw {
      int b, m, s;
      int64_t off;
      int bits;
    };
    std::vector<Sw> chain;
    int n_sw = static_cast<int>(pick(rng, 0, 2));
    for (int k = 0; k < n_sw; ++k) {
      int b = static_cast<int>(pick(rng, 0, 3)), m = static_cast<int>(pick(rng, 0, 4));
      int s = static_cast<int>(pick(rng, b, b + 3)) * (pick(rng, 0, 3) == 0 ? -1 : 1);
      if (s < 0 && m + s < 0) s = -s;
      if (std::abs(s) < b) s = b;
      bool bytes = k == 0 && pick(rng, 0, 3) == 0;
      int bits = bytes ? 16 : 0;
      if (bytes) m = std::max(m, 1);  // keep 16-bit elements whole
      chain.push_back({b, m, s, bytes ? 0 : pick(rng, 0, 2) * 32, bits});
    }
    std::string text = cute_text(root, true, rng) + sp(rng) + ":" + sp(rng) + cute_text(root, false, rng);
    for (const Sw& w : chain) {
      std::string off = w.bits ? "smem_ptr[16b](unset)" : "_" + std::to_string(w.off);
      text = "Sw<" + std::to_string(w.b) + "," + std::to_string(w.m) + "," + std::to_string(w.s) + "> o " + off + " o " + text;
    }
    INFO(text);
    // Oracle: colex split across the leaves, sum of products, then the chain innermost first.
    int64_t size = 1;
    for (auto* l : ls) size *= l->extent;
    std::vector<int64_t> expect(static_cast<size_t>(size));
    for (int64_t i = 0; i < size; ++i) {
      int64_t rest = i, v = 0;
      for (auto* l : ls) {
        v += (rest % l->extent) * l->stride;
        rest /= l->extent;
      }
      for (const Sw& w : chain) {
        if (w.bits) v = swizzle_oracle(v * 2, w.b, w.m, w.s) / 2;
        else v = swizzle_oracle(v + w.off, w.b, w.m, w.s);
      }
      expect[static_cast<size_t>(i)] = v;
    }
    lp::ParsedLayout parsed = lp::parse_layout_text(text);
    REQUIRE(parsed.notation == lp::Notation::Cute);
    REQUIRE(parsed.layout.size() == size);
    for (int64_t i = 0; i < size; ++i) REQUIRE(parsed.layout.offset_at(i) == expect[static_cast<size_t>(i)]);
    std::string printed = lp::print_cute(parsed.layout).text;
    INFO(printed);
    lp::ParsedLayout again = lp::parse_layout_text(printed);
    REQUIRE(again.layout.size() == size);
    for (int64_t i = 0; i < size; ++i) REQUIRE(again.layout.offset_at(i) == expect[static_cast<size_t>(i)]);
    // A second print is a fixed point.
    REQUIRE(lp::print_cute(again.layout).text == printed);
  }
}

namespace {

// ---- TIRx -----------------------------------------------------------------------------------

const char* kAxes[] = {"m", "laneid", "warpid", "reg", "TLane", "TCol", "gpuid_x", "wid_in_wg"};

struct Iter {
  int64_t extent, stride;
  int axis;
};

std::string iters_text(const std::vector<Iter>& it, bool parens, Rng& rng) {
  std::string e, s;
  for (size_t k = 0; k < it.size(); ++k) {
    e += (k ? "," + sp(rng) : "") + std::to_string(it[k].extent);
    std::string term = std::to_string(it[k].stride);
    if (it[k].axis != 0 || pick(rng, 0, 1)) term += sp(rng) + "@" + sp(rng) + kAxes[it[k].axis];
    s += (k ? "," + sp(rng) : "") + term;
  }
  return parens ? "(" + e + "):(" + s + ")" : e + ":" + s;
}

}  // namespace

TEST_CASE("TIRx layouts: parse follows the TIRx layout's four steps, print -> parse keeps them", "[roundtrip]") {
  Rng rng(7);
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<Iter> shard, reps;
    int n = static_cast<int>(pick(rng, 1, 4));
    for (int k = 0; k < n; ++k) shard.push_back({pick(rng, 1, 6), pick(rng, -8, 40), static_cast<int>(pick(rng, 0, 7))});
    int nr = static_cast<int>(pick(rng, 0, 2));
    for (int k = 0; k < nr; ++k) reps.push_back({pick(rng, 1, 3), pick(rng, 1, 64), static_cast<int>(pick(rng, 0, 7))});
    std::vector<std::pair<int64_t, int>> offs;
    int no = static_cast<int>(pick(rng, 0, 2));
    for (int k = 0; k < no; ++k) offs.push_back({pick(rng, 0, 9), static_cast<int>(pick(rng, 0, 7))});
    bool parens = n > 1 || pick(rng, 0, 1);
    std::string text = "S[" + iters_text(shard, parens, rng) + "]";
    for (auto& r : reps) text += " + R[" + iters_text({r}, false, rng) + "]";
    for (auto& [v, a] : offs) text += " + " + std::to_string(v) + (a ? std::string("@") + kAxes[a] : "");
    bool swz = pick(rng, 0, 2) == 0;
    int sb = 0, sm = 0, ss = 0;
    if (swz) {
      sb = static_cast<int>(pick(rng, 1, 3));
      sm = static_cast<int>(pick(rng, 0, 3));
      ss = static_cast<int>(pick(rng, sb, 4));
      text = "ComposeLayout(" + std::to_string(sm) + ", " + std::to_string(sb) + ", " + std::to_string(ss) + ", " + text + ")";
    }
    INFO(text);
    std::optional<lp::ParsedLayout> parsed_or;
    try {
      parsed_or = lp::parse_layout_text(text);
    } catch (const lp::DiagnosticError& e) {
      // The only legal refusal: a swizzle over a layout that never touches memory axis m.
      bool uses_m = false;
      for (auto& s : shard) uses_m |= s.axis == 0 && s.stride != 0;
      for (auto& r : reps) uses_m |= r.axis == 0;
      for (auto& [v, a] : offs) uses_m |= a == 0 && v != 0;
      INFO(e.diagnostic().render());
      REQUIRE(swz);
      REQUIRE_FALSE(uses_m);
      continue;
    }
    const lp::Layout& l = parsed_or->layout;
    REQUIRE(parsed_or->notation == lp::Notation::Tirx);
    int64_t size = 1;
    for (auto& s : shard) size *= s.extent;
    REQUIRE(l.size() == size);
    auto axis_of = [&](const char* name) { return l.axis_index(lp::Axis::named(name)); };
    for (int64_t flat = 0; flat < size; ++flat) {
      // Steps 2-3: split innermost-first (last iter fastest), accumulate per axis, add offset.
      std::map<std::string, int64_t> base;
      int64_t rest = flat;
      for (int k = n - 1; k >= 0; --k) {
        base[kAxes[shard[k].axis]] += (rest % shard[k].extent) * shard[k].stride;
        rest /= shard[k].extent;
      }
      for (auto& [v, a] : offs) base[kAxes[a]] += v;
      // Step 4: every replica combination, row-major.
      std::vector<std::map<std::string, int64_t>> expect;
      int64_t combos = 1;
      for (auto& r : reps) combos *= r.extent;
      for (int64_t c = 0; c < combos; ++c) {
        auto p = base;
        int64_t cr = c;
        for (int t = nr - 1; t >= 0; --t) {
          p[kAxes[reps[t].axis]] += (cr % reps[t].extent) * reps[t].stride;
          cr /= reps[t].extent;
        }
        if (swz) p["m"] = swizzle_oracle(p["m"], sb, sm, ss);
        expect.push_back(p);
      }
      auto got = l.images(flat);
      REQUIRE(got.size() == expect.size());
      for (size_t r = 0; r < got.size(); ++r)
        for (auto& [name, v] : expect[r]) {
          auto a = axis_of(name.c_str());
          if (v != 0) REQUIRE(a);
          if (a) REQUIRE(got[r][*a] == v);
        }
    }
    // Round trip through TIRx text.
    std::string printed = lp::print_tirx(l).text;
    INFO(printed);
    lp::ParsedLayout again = lp::parse_layout_text(printed);
    REQUIRE(again.layout.size() == size);
    for (int64_t flat = 0; flat < size; ++flat) {
      auto a = l.images(flat), b = again.layout.images(flat);
      REQUIRE(a.size() == b.size());
      for (size_t r = 0; r < a.size(); ++r)
        for (size_t x = 0; x < l.axes().size(); ++x) {
          auto y = again.layout.axis_index(l.axes()[x]);
          if (a[r][x] != 0) REQUIRE(y);
          if (y) REQUIRE(b[r][*y] == a[r][x]);
        }
    }
  }
}

TEST_CASE("CuTe <-> TIRx conversion keeps the function of the logical coordinate", "[roundtrip][convert]") {
  Rng rng(99);
  for (int trial = 0; trial < 1500; ++trial) {
    int64_t budget = 256;
    CuteNode root = gen_cute(rng, 0, budget);
    if (root.leaf) root = CuteNode{false, 1, 0, {root}};
    std::string text = cute_text(root, true, rng) + ":" + cute_text(root, false, rng);
    INFO(text);
    lp::Layout cute = lp::parse_layout_text(text).layout;
    std::string tirx_text = lp::print_tirx(cute).text;
    INFO(tirx_text);
    lp::Layout tirx = lp::parse_layout_text(tirx_text).layout;
    // Logical coordinate (x_0..x_{r-1}) over the top-level modes: CuTe indexes it colex,
    // TIRx row-major. Both must give the same offset for every coordinate.
    std::vector<int64_t> dims;
    for (const auto& k : root.kids) {
      std::vector<const CuteNode*> ls;
      leaves(k, ls);
      int64_t s = 1;
      for (auto* l : ls) s *= l->extent;
      dims.push_back(s);
    }
    int64_t size = cute.size();
    REQUIRE(tirx.size() == size);
    for (int64_t i = 0; i < size; ++i) {
      std::vector<int64_t> x(dims.size());
      int64_t rest = i;
      for (size_t d = 0; d < dims.size(); ++d) {
        x[d] = rest % dims[d];
        rest /= dims[d];
      }
      int64_t row_major = 0;
      for (size_t d = 0; d < dims.size(); ++d) row_major = row_major * dims[d] + x[d];
      REQUIRE(tirx.images(row_major)[0][0] == cute.offset_at(i));
    }
    // And back: TIRx -> CuTe -> same TIRx text.
    lp::Layout back = lp::parse_layout_text(lp::print_cute(tirx).text).layout;
    REQUIRE(lp::print_tirx(back).text == tirx_text);
  }
}

TEST_CASE("descriptors: print -> parse keeps every basis", "[roundtrip]") {
  Rng rng(3);
  for (int trial = 0; trial < 2000; ++trial) {
    // Generate a nested group of bases with distinct, prefix-free paths.
    std::function<std::string(int)> group = [&](int depth) -> std::string {
      int k = static_cast<int>(pick(rng, 0, 3));
      std::string s = "(";
      for (int i = 0; i < k; ++i) {
        if (i) s += "," + sp(rng);
        if (depth < 3 && pick(rng, 0, 3) == 0) s += group(depth + 1);
        else {
          int64_t num = pick(rng, -9, 9), den = pick(rng, 1, 3);
          s += std::to_string(num * den) + (den > 1 ? "/" + std::to_string(den) : "");
          s += "@" + std::to_string(pick(rng, 0, 2)) + (pick(rng, 0, 1) ? "@3" : "@4");
        }
      }
      return s + ")";
    };
    std::string text = group(0);
    INFO(text);
    lp::Layout l = lp::parse_layout_text(text).layout;
    std::string printed = lp::print_descriptor(l).text;
    lp::Layout again = lp::parse_layout_text(printed).layout;
    REQUIRE(again.modes().size() == l.modes().size());
    REQUIRE(again.nest() == l.nest());
    for (size_t k = 0; k < l.modes().size(); ++k)
      for (size_t a = 0; a < l.axes().size(); ++a) {
        int64_t v = l.modes()[k].stride[a];
        auto b = again.axis_index(l.axes()[a]);
        if (v != 0) REQUIRE(b);  // an axis only ever written with count 0 carries nothing
        if (b) REQUIRE(again.modes()[k].stride[*b] == v);
      }
    REQUIRE(lp::print_descriptor(again).text == printed);
  }
}
