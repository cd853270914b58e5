// The CuTe differential suite. Generates thousands of seeded cases, writes one C++ program that
// prints CuTe's result for each (nvidia-cutlass 4.2.0.0 headers, host-only, -O0), runs it,
// and compares every result functionally with LayoutProof's. Where the two differ, CuTe's result
// must be shown wrong by brute force (the legality check rejects it); otherwise the suite fails.
// Exit 0: all agree or CuTe is shown wrong; 1: a disagreement; 77: CuTe's headers are absent.
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>

#include "RandomLayouts.h"
#include "solver/AlgebraClaims.h"
#include "analyzer/algebra/CuteRejects.h"
#include "analyzer/algebra/Operations.h"
#include "analyzer/ir/Print.h"
#include "analyzer/parse/Parsers.h"

using namespace lp;
using namespace lp::algebra;
using lp::algebra::testing::LayoutGen;

namespace {

std::string cpp_int(Int v) { return v.is_static ? fmt::format("Int<{}>{{}}", v.value) : fmt::format("int({})", v.value); }

std::string cpp_tree(const CuteLayout& l, bool stride) {
  if (l.is_leaf) return cpp_int(stride ? l.stride.as_int() : l.shape);
  std::string s = stride ? "make_stride(" : "make_shape(";
  for (size_t i = 0; i < l.modes.size(); ++i) s += (i ? "," : "") + cpp_tree(l.modes[i], stride);
  return s + ")";
}

std::string cpp_layout(const CuteLayout& l) { return fmt::format("make_layout({},{})", cpp_tree(l, false), cpp_tree(l, true)); }

std::string cpp_tiler(const CuteTiler& t) {
  if (t.kind == CuteTiler::Kind::Underscore) return "_";
  if (t.kind == CuteTiler::Kind::Layout) return cpp_layout(t.layout);
  std::string s = "make_tile(";
  for (size_t i = 0; i < t.parts.size(); ++i) s += (i ? "," : "") + cpp_tiler(t.parts[i]);
  return s + ")";
}

std::string cpp_shape(const std::vector<Int>& s) {
  std::string out = "make_shape(";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + cpp_int(s[i]);
  return out + ")";
}

std::string shape_text(const std::vector<Int>& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::string(s[i].is_static ? "_" : "") + std::to_string(s[i].value);
  return out + ")";
}

/// A swizzle CuTe's Swizzle<B,M,S> accepts (|S| >= B), shifts of either sign.
Swizzle random_swizzle(LayoutGen& g) {
  const int bits = static_cast<int>(g.pick({1, 1, 2, 2, 3}));
  const int base = static_cast<int>(g.pick({0, 1, 2, 3}));
  const int shift = (g.chance(0.25) ? -1 : 1) * static_cast<int>(bits + g.pick({0, 1, 2}));
  return Swizzle(bits, base, shift);
}

std::string swizzle_cpp(const Swizzle& sw) { return fmt::format("Swizzle<{},{},{}>{{}}", sw.bits(), sw.base(), sw.shift()); }

/// `Sw o _0 o L` in the IR, read from its CuTe text as a user writes it.
Layout swizzled(const Swizzle& sw, const CuteLayout& l) {
  return parse_layout_text(fmt::format("Sw<{},{},{}> o _0 o {}", sw.bits(), sw.base(), sw.shift(), cute_text(l)), "<gen>").layout;
}

struct Case {
  std::string op, description, cpp;
  algebra::Outcome ours;
  /// Brute-force judgement of a result CuTe printed (for ops where a differing result must be
  /// shown wrong); empty when the op's results must agree exactly.
  std::function<Check(const Layout&)> judge;
};

struct Suite {
  std::vector<Case> cases;
  std::map<std::string, int> rejected;     // CuTe would not compile these; not sent to CuTe
  std::map<std::string, int> unsupported;  // operands LayoutProof's algebra does not take

  void add(std::string op, std::string description, std::string cpp, std::function<algebra::Outcome()> ours,
           std::function<Check(const Layout&)> judge = {}) {
    algebra::Outcome o;
    try {
      o = ours();
    } catch (const AlgebraError& e) {
      ++unsupported[op];
      return;
    }
    if (!o.text) {
      ++rejected[op];
      return;
    }
    cases.push_back(Case{std::move(op), std::move(description), std::move(cpp), std::move(o), std::move(judge)});
  }
};

// Plain layouts: composition, coalesce and filters, complements (to a size or a shape) and inverses.
void add_layout_cases(Suite& s, LayoutGen& g) {
  for (int i = 0; i < 550; ++i) {
    g.allow_dynamic = i % 3 == 0;
    g.allow_negative = i % 5 == 0;
    CuteLayout a = g.chance(0.5) ? g.compact() : g.any();
    g.allow_negative = false;
    CuteLayout b = g.any(2);
    const Layout ai = to_ir(a);
    s.add("compose", cute_text(a) + " o " + cute_text(b), fmt::format("composition({},{})", cpp_layout(a), cpp_layout(b)),
          [=] { return lp::decide_claims(op_compose(ai, to_ir(b))); },
          [=](const Layout& r) { return lp::decide_claims(claim_composition(ai, b, r)); });
  }
  g.allow_negative = false;
  for (int i = 0; i < 250; ++i) {
    g.allow_dynamic = i % 2 == 0;
    CuteLayout l = g.any();
    s.add("coalesce", cute_text(l), fmt::format("coalesce({})", cpp_layout(l)), [=] { return lp::decide_claims(op_coalesce(to_ir(l))); },
          [=](const Layout& r) { return check_same_function(l, from_ir(r), "coalesce"); });
    s.add("filter", cute_text(l), fmt::format("filter({})", cpp_layout(l)), [=] { return lp::decide_claims(op_filter(to_ir(l))); },
          [=](const Layout& r) { return check_zeros_removed(l, from_ir(r), "filter"); });
    s.add("filter_zeros", cute_text(l), fmt::format("filter_zeros({})", cpp_layout(l)),
          [=] { return lp::decide_claims(op_filter_zeros(to_ir(l))); },
          [=](const Layout& r) { return check_zeros_removed(l, from_ir(r), "filter_zeros"); });
  }
  g.allow_dynamic = false;
  for (int i = 0; i < 250; ++i) {
    CuteLayout l = g.chance(0.5) ? g.compact() : g.any();
    if (g.chance(0.5)) {
      const int64_t m = g.pick({1, 8, 16, 24, 32, 64, 100});
      s.add("complement", fmt::format("{} , {}", cute_text(l), m), fmt::format("complement({},Int<{}>{{}})", cpp_layout(l), m),
            [=] { return lp::decide_claims(op_complement(to_ir(l), Int{m, true})); },
            [=](const Layout& r) { return check_complement(l, m, from_ir(r)); });
    } else {
      s.add("complement", cute_text(l), fmt::format("complement({})", cpp_layout(l)),
            [=] { return lp::decide_claims(op_complement(to_ir(l), std::nullopt)); },
            [=](const Layout& r) { return check_complement(l, filter(l).cosize().value, from_ir(r)); });
    }
    s.add("right_inverse", cute_text(l), fmt::format("right_inverse({})", cpp_layout(l)),
          [=] { return lp::decide_claims(op_right_inverse(to_ir(l))); },
          [=](const Layout& r) { return check_right_inverse(to_ir(l), r); });
    s.add("left_inverse", cute_text(l), fmt::format("left_inverse({})", cpp_layout(l)),
          [=] { return lp::decide_claims(op_left_inverse(to_ir(l))); },
          [=](const Layout& r) { return check_left_inverse(to_ir(l), r); });
  }
  // Shape cotargets (CuTe's IntTuple cotarget: its size, and each extent's staticness).
  for (int i = 0; i < 200; ++i) {
    CuteLayout l = g.chance(0.5) ? g.compact() : g.any();
    std::vector<Int> shape;
    int64_t m = 1;
    for (int k = 0, rank = static_cast<int>(g.pick({1, 2, 3})); k < rank; ++k) {
      shape.push_back(Int{g.pick({1, 2, 3, 4, 8}), !g.chance(0.3)});
      m *= shape.back().value;
    }
    s.add("complement", fmt::format("{} , {}", cute_text(l), shape_text(shape)),
          fmt::format("complement({},{})", cpp_layout(l), cpp_shape(shape)),
          [=] { return lp::decide_claims(op_complement(to_ir(l), Cotarget{shape})); },
          [=](const Layout& r) { return check_complement(l, m, from_ir(r)); });
  }
}

// Swizzled layouts (CuTe's swizzle_layout.hpp): inverses, max_common_vector and A o (Sw o B).
// Static only: CuTe's rewrite A o Sw = Sw' o A evaluates A at the masks at compile time.
void add_swizzled_cases(Suite& s, LayoutGen& g) {
  for (int i = 0; i < 250; ++i) {
    const Swizzle sw = random_swizzle(g);
    const CuteLayout l = g.chance(0.7) ? g.compact() : g.any();
    const Layout in = swizzled(sw, l);
    const std::string d = fmt::format("Sw<{},{},{}> o {}", sw.bits(), sw.base(), sw.shift(), cute_text(l));
    const std::string cpp = fmt::format("composition({},{})", swizzle_cpp(sw), cpp_layout(l));
    s.add("right_inverse", d, fmt::format("right_inverse({})", cpp), [=] { return lp::decide_claims(op_right_inverse(in)); },
          [=](const Layout& r) { return check_right_inverse(in, r); });
    s.add("left_inverse", d, fmt::format("left_inverse({})", cpp), [=] { return lp::decide_claims(op_left_inverse(in)); },
          [=](const Layout& r) { return check_left_inverse(in, r); });
    const CuteLayout other = g.compact(3);
    if (other.size().value == l.size().value) {
      const Layout o = to_ir(other);
      s.add("max_common_vector", d + " , " + cute_text(other),
            fmt::format("max_common_vector({},{})", cpp, cpp_layout(other)),
            [=] { return lp::decide_claims(op_max_common_vector(in, o)); });
      s.add("max_common_vector", cute_text(other) + " , " + d,
            fmt::format("max_common_vector({},{})", cpp_layout(other), cpp),
            [=] { return lp::decide_claims(op_max_common_vector(o, in)); });
      const Swizzle sw2 = g.chance(0.3) ? sw : random_swizzle(g);
      const Layout in2 = swizzled(sw2, other);
      s.add("max_common_vector", d + " , swizzled",
            fmt::format("max_common_vector({},composition({},{}))", cpp, swizzle_cpp(sw2), cpp_layout(other)),
            [=] { return lp::decide_claims(op_max_common_vector(in, in2)); });
    }
    const CuteLayout a = g.compact(2);
    const Layout ai = to_ir(a);
    s.add("compose", cute_text(a) + " o (" + d + ")", fmt::format("composition({},{})", cpp_layout(a), cpp),
          [=] { return lp::decide_claims(op_compose(ai, in)); },
          [=](const Layout& r) { return lp::decide_claims(claim_composition(ai, in, r)); });
  }
}

// Layouts composed with layouts (CuTe's ComposedLayout<A, O, B>, layout_composed.hpp): inverses of
// X o O o B and of X o _0 o Sw o _0 o B, A o (X o _0 o B), and (X o O o B) o C.
void add_composed_layout_cases(Suite& s, LayoutGen& g) {
  for (int i = 0; i < 250; ++i) {
    const CuteLayout x = g.compact(2);
    const CuteLayout b = g.chance(0.7) ? g.compact() : g.any();
    const int64_t off = g.chance(0.5) ? 0 : g.pick({1, 2, 3, 8});
    const bool middle_swizzle = off == 0 && g.chance(0.4);
    const Swizzle sw = random_swizzle(g);
    const std::string inner_text = middle_swizzle ? fmt::format("{} o _0 o {}", swizzle_text(sw), cute_text(b)) : cute_text(b);
    const std::string inner_cpp =
        middle_swizzle ? fmt::format("composition({},{})", swizzle_cpp(sw), cpp_layout(b)) : cpp_layout(b);
    const std::string d = fmt::format("{} o _{} o {}", cute_text(x), off, inner_text);
    const std::string cpp = fmt::format("composition({},Int<{}>{{}},{})", cpp_layout(x), off, inner_cpp);
    const Layout in = parse_layout_text(d, "<gen>").layout;
    s.add("right_inverse", d, fmt::format("right_inverse({})", cpp), [=] { return lp::decide_claims(op_right_inverse(in)); },
          [=](const Layout& r) { return check_right_inverse(in, r); });
    s.add("left_inverse", d, fmt::format("left_inverse({})", cpp), [=] { return lp::decide_claims(op_left_inverse(in)); },
          [=](const Layout& r) { return check_left_inverse(in, r); });
    const CuteLayout c = g.any(2);
    const Layout ci = to_ir(c);
    s.add("compose", "(" + d + ") o " + cute_text(c), fmt::format("composition({},{})", cpp, cpp_layout(c)),
          [=] { return lp::decide_claims(op_compose(in, ci)); },
          [=](const Layout& r) { return lp::decide_claims(claim_composition(in, ci, r)); });
    if (off == 0) {
      const CuteLayout a = g.compact(2);
      const Layout ai = to_ir(a);
      s.add("compose", cute_text(a) + " o (" + d + ")", fmt::format("composition({},{})", cpp_layout(a), cpp),
            [=] { return lp::decide_claims(op_compose(ai, in)); },
            [=](const Layout& r) { return lp::decide_claims(claim_composition(ai, in, r)); });
    }
  }
}

// Divides by a layout or a tuple of tilers, products, tile_to_shape and max_common_vector.
void add_divide_and_product_cases(Suite& s, LayoutGen& g) {
  for (int i = 0; i < 250; ++i) {
    g.allow_dynamic = i % 4 == 0;
    CuteLayout l = g.compact();
    CuteTiler t = CuteTiler::of(g.chance(0.5) ? g.compact(2) : g.any(2));
    if (l.rank() >= 2 && g.chance(0.5)) {
      std::vector<CuteTiler> parts;
      for (size_t k = 0; k < 2; ++k)
        parts.push_back(g.chance(0.2) ? CuteTiler::underscore()
                                      : CuteTiler::of(CuteLayout::leaf(g.value(g.pick({1, 2, 4})), g.value(g.pick({1, 2})))));
      t = CuteTiler::tuple(parts);
    }
    const std::string d = cute_text(l) + " / tiler";
    s.add("logical_divide", d, fmt::format("logical_divide({},{})", cpp_layout(l), cpp_tiler(t)),
          [=] { return lp::decide_claims(op_divide(DivideKind::Logical, to_ir(l), t)); });
    const bool zip_ok = t.kind == CuteTiler::Kind::Tuple;
    if (zip_ok) {
      s.add("zipped_divide", d, fmt::format("zipped_divide({},{})", cpp_layout(l), cpp_tiler(t)),
            [=] { return lp::decide_claims(op_divide(DivideKind::Zipped, to_ir(l), t)); });
      s.add("tiled_divide", d, fmt::format("tiled_divide({},{})", cpp_layout(l), cpp_tiler(t)),
            [=] { return lp::decide_claims(op_divide(DivideKind::Tiled, to_ir(l), t)); });
      s.add("flat_divide", d, fmt::format("flat_divide({},{})", cpp_layout(l), cpp_tiler(t)),
            [=] { return lp::decide_claims(op_divide(DivideKind::Flat, to_ir(l), t)); });
    }
  }
  for (int i = 0; i < 200; ++i) {
    g.allow_dynamic = false;
    CuteLayout a = g.chance(0.6) ? g.compact(2) : g.any(2);
    CuteLayout b = g.chance(0.6) ? g.compact(2) : g.any(2);
    const std::string d = cute_text(a) + " * " + cute_text(b);
    s.add("logical_product", d, fmt::format("logical_product({},{})", cpp_layout(a), cpp_layout(b)),
          [=] { return lp::decide_claims(op_logical_product(to_ir(a), CuteTiler::of(b))); });
    s.add("blocked_product", d, fmt::format("blocked_product({},{})", cpp_layout(a), cpp_layout(b)),
          [=] { return lp::decide_claims(op_blocked_product(to_ir(a), to_ir(b))); });
    s.add("raked_product", d, fmt::format("raked_product({},{})", cpp_layout(a), cpp_layout(b)),
          [=] { return lp::decide_claims(op_raked_product(to_ir(a), to_ir(b))); });
    std::vector<Int> target;
    for (size_t k = 0; k < std::max<size_t>(a.rank(), 2); ++k)
      target.push_back(Int{(k < a.rank() ? a.mode(k).size().value : 1) * g.pick({1, 2, 3}), true});
    s.add("tile_to_shape", cute_text(a), fmt::format("tile_to_shape({},{})", cpp_layout(a), cpp_shape(target)),
          [=] { return lp::decide_claims(op_tile_to_shape(to_ir(a), target)); });
    CuteLayout c = g.compact(3), e = g.compact(3);
    if (c.size().value == e.size().value)
      s.add("max_common_vector", cute_text(c) + " , " + cute_text(e),
            fmt::format("max_common_vector({},{})", cpp_layout(c), cpp_layout(e)),
            [=] { return lp::decide_claims(op_max_common_vector(to_ir(c), to_ir(e))); });
  }
}

// The cases, family by family, from one seeded generator whose flags and state carry over.
void generate(Suite& s) {
  LayoutGen g(20250117);
  add_layout_cases(s, g);
  add_swizzled_cases(s, g);
  add_composed_layout_cases(s, g);
  add_divide_and_product_cases(s, g);
}

}  // namespace

int main(int argc, char** argv) {
  const char* env = std::getenv("LP_CUTLASS_INCLUDE");
  const std::string include = env && *env ? env : LP_CUTLASS_INCLUDE;
  if (include.empty() || !std::filesystem::exists(std::filesystem::path(include) / "cute" / "layout.hpp")) {
    std::cout << "SKIPPED: CuTe headers not found (pip install nvidia-cutlass==4.2.0.0, or set LP_CUTLASS_INCLUDE); "
                 "the differential suite did NOT run\n";
    return 77;
  }
  const std::filesystem::path dir = argc > 1 ? argv[1] : "cute_diff";
  std::filesystem::create_directories(dir);

  Suite suite;
  generate(suite);
  // Two translation units compiled in parallel (the CI machines have two cores), one program.
  const size_t per_fn = 100, units = 2;
  const size_t fns = (suite.cases.size() + per_fn - 1) / per_fn;
  for (size_t u = 0; u < units; ++u) {
    std::ofstream prog(dir / fmt::format("cute_cases_{}.cpp", u));
    prog << "#include <cute/layout.hpp>\n#include <cute/layout_composed.hpp>\n#include <cute/swizzle_layout.hpp>\n#include <cstdio>\nusing namespace cute;\n";
    for (size_t f = u; f < fns; f += units) {
      prog << "void cases_" << f << "() {\n";
      for (size_t i = f * per_fn; i < std::min(suite.cases.size(), (f + 1) * per_fn); ++i)
        prog << "  { printf(\"" << i << "|\"); print(" << suite.cases[i].cpp << "); printf(\"\\n\"); }\n";
      prog << "}\n";
    }
    if (u == 0) {
      for (size_t f = 0; f < fns; ++f) prog << "void cases_" << f << "();\n";
      prog << "int main() {\n";
      for (size_t f = 0; f < fns; ++f) prog << "  cases_" << f << "();\n";
      prog << "}\n";
    }
  }
  std::string compile = "(";
  for (size_t u = 0; u < units; ++u)
    compile += fmt::format(
        "{3} -std=c++17 -O0 -w -I '{0}' -I /usr/local/cuda/include -I /usr/local/cuda/include/cccl -c '{1}/cute_cases_{2}.cpp' "
        "-o '{1}/cute_cases_{2}.o' > '{1}/compile_{2}.log' 2>&1 & ",
        include, dir.string(), u, LP_CUTE_CXX);
  compile += "wait) && ";
  for (size_t u = 0; u < units; ++u) compile += fmt::format("test -s '{}/cute_cases_{}.o' && ", dir.string(), u);
  compile += fmt::format("{1} '{0}/cute_cases_0.o' '{0}/cute_cases_1.o' -o '{0}/cute_cases' > '{0}/compile.log' 2>&1",
                         dir.string(), LP_CUTE_CXX);
  std::cout << fmt::format("compiling {} cases against {} with {}\n", suite.cases.size(), include, LP_CUTE_CXX)
            << std::flush;
  std::filesystem::remove(dir / "cute_cases_0.o");
  std::filesystem::remove(dir / "cute_cases_1.o");
  if (std::system(compile.c_str()) != 0) {
    std::cout << "FAIL: the CuTe program did not compile (a case LayoutProof predicted CuTe accepts was rejected); see "
              << dir.string() << "/compile_*.log\n";
    std::system(fmt::format("grep -h -m5 -A3 'error' '{}'/compile_*.log", dir.string()).c_str());
    return 1;
  }
  const std::string out_path = (dir / "cute_output.txt").string();
  if (std::system(fmt::format("'{}' > '{}'", (dir / "cute_cases").string(), out_path).c_str()) != 0) {
    std::cout << "FAIL: the CuTe program did not run\n";
    return 1;
  }
  std::map<size_t, std::string> printed;
  {
    std::ifstream in(out_path);
    std::string line;
    while (std::getline(in, line)) {
      const size_t bar = line.find('|');
      printed[std::stoul(line.substr(0, bar))] = line.substr(bar + 1);
    }
  }
  std::map<std::string, std::array<int, 5>> stats;  // same text, same function, cute wrong, failures, our illegal
  int failures = 0;
  for (size_t i = 0; i < suite.cases.size(); ++i) {
    Case& c = suite.cases[i];
    auto& st = stats[c.op];
    if (!printed.count(i)) {
      ++st[3];
      ++failures;
      std::cout << fmt::format("FAIL {} [{}]: CuTe printed nothing\n", c.op, c.description);
      continue;
    }
    const std::string& theirs = printed[i];
    if (c.ours.check.verdict == algebra::Verdict::Illegal) ++st[4];
    if (theirs == *c.ours.text) {
      ++st[0];
      continue;
    }
    bool same_function = false;
    std::optional<Layout> cute_layout;
    try {
      cute_layout = parse_layout_text(theirs, "<cute>").layout;
      if (c.op == "max_common_vector") {
        same_function = false;
      } else if (c.ours.layout) {
        const Evaluator ours(to_ir(*c.ours.layout)), cute(*cute_layout);
        same_function = ours.size() == cute.size();
        for (int64_t k = 0; same_function && k < ours.size(); ++k) same_function = ours.at(k) == cute.at(k);
      }
    } catch (const std::exception& e) {
      std::cout << fmt::format("note: cannot read CuTe's output '{}': {}\n", theirs, e.what());
    }
    if (same_function) {
      ++st[1];
      continue;
    }
    if (c.judge && cute_layout) {
      const Check j = c.judge(*cute_layout);
      if (j.verdict == algebra::Verdict::Illegal) {
        ++st[2];
        std::cout << fmt::format("CuTe wrong {} [{}]: CuTe {} (illegal: {}), LayoutProof {}\n", c.op, c.description,
                                 theirs, j.reason, *c.ours.text);
        continue;
      }
    }
    ++st[3];
    ++failures;
    std::cout << fmt::format("FAIL {} [{}]: CuTe {} vs LayoutProof {}\n", c.op, c.description, theirs, *c.ours.text);
  }
  std::cout << fmt::format("{:<18} {:>6} {:>10} {:>10} {:>10} {:>8} {:>14} {:>14}\n", "op", "cases", "same-text",
                           "same-fn", "cute-wrong", "fail", "illegal(both)", "cute-rejects");
  int total = 0;
  for (const auto& [op, st] : stats) {
    const int n = st[0] + st[1] + st[2] + st[3];
    total += n;
    std::cout << fmt::format("{:<18} {:>6} {:>10} {:>10} {:>10} {:>8} {:>14} {:>14}\n", op, n, st[0], st[1], st[2],
                             st[3], st[4], suite.rejected[op]);
  }
  for (const auto& [op, n] : suite.unsupported) std::cout << fmt::format("{}: {} generated cases unsupported\n", op, n);
  std::cout << fmt::format("{} cases compared with CuTe, {} failures\n", total, failures);
  return failures == 0 ? 0 : 1;
}
