#include "solver/Composition.h"

#include <fmt/format.h>

#include <map>
#include <stdexcept>

#include "analyzer/ir/Checked.h"
#include "analyzer/support/Governor.h"
#include "solver/Obligation.h"
#include "solver/F2Layout.h"
#include "solver/QueryLog.h"
#include "solver/Z3Layout.h"

namespace lp {

namespace {

// How B's image addresses A: a 1-D index, or a coordinate of A: each B axis (a scaled basis
// _1@p) adds to the 1-D coordinate of A's mode at path p. A's 1-D index is then the sum of each
// addressed mode's coordinate times its weight (the mode's leaves are contiguous in A's index
// order), with each coordinate inside its mode.
struct Addressing {
  bool by_index = true;
  struct Target {
    int64_t size = 1;    ///< the mode's number of points
    int64_t weight = 1;  ///< the 1-D index step of the mode's coordinate 1
  };
  std::vector<Target> targets;          ///< the modes B addresses
  std::vector<size_t> target_of_axis;  ///< B axis -> targets index
};

// The mode of A at `path` as an addressing target. CuTe's nested coordinates (paths longer than
// one) are taken on colexicographic layouts only, where a mode's leaves are a contiguous run.
std::optional<Addressing::Target> target_at(const Layout& a, const std::vector<uint32_t>& path) {
  const std::vector<Mode>& modes = a.modes();
  auto extent_product = [&](size_t from, size_t to) {
    int64_t s = 1;
    for (size_t k = from; k < to; ++k) s = checked_mul(s, modes[k].extent, "the composition's index");
    return s;
  };
  const Nest* sub = &a.nest();
  size_t first = 0;
  for (uint32_t k : path) {
    if (sub->leaf) {
      if (k != 0) return std::nullopt;  // CuTe: a leaf is its own mode 0
      continue;
    }
    if (k >= sub->children.size()) return std::nullopt;
    for (uint32_t j = 0; j < k; ++j) first += sub->children[j].leaf_count();
    sub = &sub->children[k];
  }
  const size_t last = first + sub->leaf_count();
  if (a.order() == IndexOrder::Colex) return Addressing::Target{extent_product(first, last), extent_product(0, first)};
  if (path.size() != 1) return std::nullopt;
  return Addressing::Target{extent_product(first, last), extent_product(last, modes.size())};
}

Addressing addressing(const Layout& a, const Layout& b) {
  Addressing ad;
  bool basis = false, memory = false;
  std::map<std::vector<uint32_t>, size_t> target_of_path;
  for (const Axis& x : b.axes()) {
    if (x.is_memory()) {
      memory = true;
      ad.target_of_axis.push_back(0);
      continue;
    }
    std::optional<Addressing::Target> t = x.is_basis() ? target_at(a, x.path()) : std::nullopt;
    if (!t)
      throw std::invalid_argument(fmt::format(
          "B's axis '{}' does not address A (use integer strides, or _1@d for a mode d of A; nested modes of a "
          "colexicographic A)", x.spelling()));
    basis = true;
    auto [it, fresh] = target_of_path.emplace(x.path(), ad.targets.size());
    if (fresh) ad.targets.push_back(*t);
    ad.target_of_axis.push_back(it->second);
  }
  if (basis && memory) throw std::invalid_argument("B mixes integer and scaled-basis strides");
  if (!b.replicas().empty() || (!b.stages().empty() && basis))
    throw std::invalid_argument("B must be a plain layout (no replicas; swizzles only on integer strides)");
  ad.by_index = !basis;
  return ad;
}

// A's 1-D index for B's image, or nullopt outside A's domain.
std::optional<int64_t> a_index(const Layout& a, const Addressing& ad, const Point& bimg) {
  if (ad.by_index) {
    if (bimg[0] < 0 || bimg[0] >= a.size()) return std::nullopt;
    return bimg[0];
  }
  std::vector<int64_t> x(ad.targets.size(), 0);
  for (size_t ax = 0; ax < bimg.size(); ++ax) x[ad.target_of_axis[ax]] += bimg[ax];
  int64_t idx = 0;
  for (size_t t = 0; t < x.size(); ++t) {
    if (x[t] < 0 || x[t] >= ad.targets[t].size) return std::nullopt;
    idx += x[t] * ad.targets[t].weight;
  }
  return idx;
}

// R's image at i as CuTe evaluates it, also past R's domain (Layout::cute_image). Empty past the
// domain of a layout CuTe would not evaluate so (a lexicographic one, or one with replicas).
Point extended_image(const Layout& r, int64_t i) {
  if (i < r.size()) return r.images(i)[0];
  if (r.order() != IndexOrder::Colex || !r.replicas().empty()) return {};
  return r.cute_image(i);
}

CompositionWitness concrete_witness(const Layout& a, const Layout& b, const std::optional<Layout>& r,
                                    const Addressing& ad, int64_t i) {
  CompositionWitness w;
  w.index = i;
  w.coordinate = b.split(i);
  w.b_image = b.images(i)[0];
  auto ai = a_index(a, ad, w.b_image);
  w.out_of_domain = !ai;
  if (r) w.outside_result = i >= r->size();
  if (ai) {
    w.expected = a.images(*ai)[0];
    if (r) w.got = extended_image(*r, i);
  }
  return w;
}

// True when the witness really violates the obligation (the concrete re-check).
bool violates(const CompositionWitness& w) { return w.out_of_domain || w.expected != w.got; }

// One pass over B's domain, as CuTe would evaluate the claim: the first index whose B(c) leaves
// A's domain; else how many indices R (evaluated past its domain as CuTe does) gets wrong, and
// the first of them.
struct Sweep {
  std::optional<int64_t> out_of_domain;
  int64_t wrong = 0;
  std::optional<int64_t> first_wrong;
};

Sweep sweep(const Layout& a, const Layout& b, const Layout& r, const Addressing& ad) {
  Sweep s;
  std::vector<std::optional<int64_t>> index(static_cast<size_t>(b.size()));
  for (int64_t i = 0; i < b.size(); ++i) {
    checkpoint();
    index[static_cast<size_t>(i)] = a_index(a, ad, b.images(i)[0]);
    if (!index[static_cast<size_t>(i)]) {
      s.out_of_domain = i;
      return s;
    }
  }
  for (int64_t i = 0; i < b.size(); ++i) {
    checkpoint();
    if (a.images(*index[static_cast<size_t>(i)])[0] == extended_image(r, i)) continue;
    ++s.wrong;
    if (!s.first_wrong) s.first_wrong = i;
  }
  return s;
}

CompositionResult by_enumeration(const Layout& a, const Layout& b, const std::optional<Layout>& r, const Addressing& ad,
                                 const SolverLimits& limits) {
  CompositionResult res;
  res.engine = Engine::Enum;
  if (b.size() > limits.max_enumeration) {
    res.reason = fmt::format("B's domain ({} points) exceeds the enumeration limit of {}", b.size(), limits.max_enumeration);
    return res;
  }
  for (int64_t i = 0; i < b.size(); ++i) {
    checkpoint();
    Point bimg = b.images(i)[0];
    auto ai = a_index(a, ad, bimg);
    if (!ai || (r && a.images(*ai)[0] != r->images(i)[0])) {
      res.verdict = Verdict::Refuted;
      res.witness = concrete_witness(a, b, r, ad, i);
      return res;
    }
  }
  res.verdict = r ? Verdict::Proven : Verdict::Unknown;
  if (!r) res.reason = "every B(c) lies in A's domain, but there is no stated result to compare";
  return res;
}

CompositionResult by_z3(const Layout& a, const Layout& b, const std::optional<Layout>& r, const Addressing& ad,
                        const SolverLimits& limits) {
  CompositionResult res;
  res.engine = Engine::Z3;
  Z3Context z3_context(limits);
  z3::context& ctx = z3_context();
  try {
    uint64_t extra = static_cast<uint64_t>(std::max(a.size(), b.size()));
    Z3Layout eb(ctx, b, extra, 2);
    // One width for all three encodings: the widest of them.
    unsigned w = eb.width();
    Z3Layout ea0(ctx, a, extra, 2);
    w = std::max(w, ea0.width());
    std::optional<Z3Layout> er0;
    if (r) {
      er0.emplace(ctx, *r, extra, 2);
      w = std::max(w, er0->width());
    }
    auto widen = [&](const Layout& l) { return Z3Layout(ctx, l, uint64_t{1} << (w - 3), 0); };
    Z3Layout ea = widen(a), eb2 = widen(b);
    std::optional<Z3Layout> er;
    if (r) er.emplace(widen(*r));
    auto k = [&](int64_t v) { return ctx.bv_val(v, ea.width()); };
    z3::expr i = ctx.bv_const("i", ea.width());
    z3::expr in_b = z3::ult(i, k(b.size()));
    std::vector<z3::expr> bimg = eb2.image_at_index(i);
    z3::expr in_a = ctx.bool_val(true), index = k(0);
    if (ad.by_index) {
      index = bimg[0];
      in_a = z3::sge(index, k(0)) && z3::slt(index, k(a.size()));
    } else {
      std::vector<z3::expr> x(ad.targets.size(), k(0));
      for (size_t ax = 0; ax < bimg.size(); ++ax) x[ad.target_of_axis[ax]] = x[ad.target_of_axis[ax]] + bimg[ax];
      for (size_t t = 0; t < x.size(); ++t) {
        in_a = in_a && z3::sge(x[t], k(0)) && z3::slt(x[t], k(ad.targets[t].size));
        index = index + x[t] * k(ad.targets[t].weight);
      }
    }
    std::string why;
    // Asks Z3 for an index with `violation`. False when the search stops here: refuted (with the
    // concrete witness of the model's index) or unknown (with Z3's reason).
    auto clear_of = [&](const z3::expr& violation) {
      z3::solver s = make_solver(ctx, limits);
      s.add(violation);
      switch (checked_check(s, &why)) {
        case z3::unsat: return true;
        case z3::sat:
          res.verdict = Verdict::Refuted;
          res.witness = concrete_witness(a, b, r, ad, eb2.value(s.get_model(), i));
          return false;
        case z3::unknown: break;
      }
      res.reason = why;
      return false;
    };
    if (!clear_of(in_b && !in_a)) return res;
    if (!r) {
      res.reason = "every B(c) lies in A's domain, but there is no stated result to compare";
      return res;
    }
    std::vector<z3::expr> aimg = ea.image_at_index(index), rimg = er->image_at_index(i);
    z3::expr differ = ctx.bool_val(false);
    if (aimg.size() != rimg.size()) throw std::invalid_argument("R and A have different codomains");
    for (size_t x = 0; x < aimg.size(); ++x) differ = differ || aimg[x] != rimg[x];
    if (clear_of(in_b && in_a && differ)) res.verdict = Verdict::Proven;
  } catch (const EncodingError& e) {
    res.reason = std::string("cannot encode for Z3: ") + e.what();
  }
  return res;
}

// F2: A, B and R exactly linear, B an index into A whose size is a power of two. Then A(B(i))
// is the linear map A∘B and the obligation is a comparison of columns.
CompositionResult by_f2(const Layout& a, const Layout& b, const std::optional<Layout>& r, const Addressing& ad) {
  CompositionResult res;
  res.engine = Engine::F2;
  std::string why;
  auto fa = to_f2(a, &why);
  auto fb = fa ? to_f2(b, &why) : std::nullopt;
  std::optional<F2Layout> fr;
  if (fb && r) fr = to_f2(*r, &why);
  if (!fa || !fb || (r && !fr) || !ad.by_index || !a.replicas().empty()) {
    res.reason = "the F2 engine does not apply: " + (why.empty() ? std::string("B must index A with integer strides") : why);
    return res;
  }
  int a_bits = static_cast<int>(fa->coord_bits());
  if ((int64_t{1} << a_bits) != a.size() || (a.modes().size() > 1 && a.order() != IndexOrder::Colex)) {
    res.reason = "the F2 engine does not apply: A's 1-D index is not its colexicographic bit string";
    return res;
  }
  // B(i) in [0, size(A)) for all i: B's reachable bits all lie below a_bits.
  uint64_t reach = fb->constant[0];
  for (const F2Vec& c : fb->cols) reach |= c[0];
  auto apply_a = [&](uint64_t x) {
    F2Vec v = fa->constant;
    for (int bit = 0; bit < a_bits; ++bit)
      if (x >> bit & 1)
        for (size_t w = 0; w < v.size(); ++w) v[w] ^= fa->cols[static_cast<size_t>(bit)][w];
    return v;
  };
  auto index_of_bits = [&](size_t bit) { return b.index_of(fb->coord_of([&] {
    std::vector<bool> bits(fb->input_bits(), false);
    bits[bit] = true;
    return bits;
  }())); };
  if (reach >> a_bits) {
    // Some input bit of B (or its constant) sets a bit at or above a_bits.
    for (size_t bit = 0; bit < fb->cols.size(); ++bit)
      if ((fb->cols[bit][0] | fb->constant[0]) >> a_bits) {
        res.verdict = Verdict::Refuted;
        res.witness = concrete_witness(a, b, r, ad, index_of_bits(bit));
        return res;
      }
    res.verdict = Verdict::Refuted;
    res.witness = concrete_witness(a, b, r, ad, 0);
    return res;
  }
  if (!r) {
    res.reason = "every B(c) lies in A's domain, but there is no stated result to compare";
    return res;
  }
  // Compare A(B(i)) with R(i) on the constant and on every input bit (both affine).
  if (fr->cols.size() != fb->cols.size()) {
    res.reason = "the F2 engine does not apply: R and B have different bit structures";
    return res;
  }
  F2Vec c_ab = apply_a(fb->constant[0]);
  if (c_ab != fr->constant) {
    res.verdict = Verdict::Refuted;
    res.witness = concrete_witness(a, b, r, ad, 0);
    return res;
  }
  for (size_t bit = 0; bit < fb->cols.size(); ++bit) {
    F2Vec col = apply_a(fb->constant[0] ^ fb->cols[bit][0]);
    for (size_t w = 0; w < col.size(); ++w) col[w] ^= c_ab[w];
    if (col != fr->cols[bit]) {
      res.verdict = Verdict::Refuted;
      res.witness = concrete_witness(a, b, r, ad, index_of_bits(bit));
      return res;
    }
  }
  res.verdict = Verdict::Proven;
  return res;
}

}  // namespace

CompositionResult prove_composition(const Layout& a, const Layout& b, const std::optional<Layout>& r, Engine engine,
                                    const SolverLimits& limits) {
  Addressing ad = addressing(a, b);
  if (!a.has_domain() || !b.has_domain()) throw std::invalid_argument("A and B need shapes");
  if (!a.replicas().empty()) throw std::invalid_argument("A has replicas; composition needs a function");
  if (QueryRecorder* rec = query_recorder())
    rec->add({Property::Composition, layout_label(a) + " o " + layout_label(b), [a, b, r](Engine e, const SolverLimits& l) {
                return Rerun{prove_composition(a, b, r, e, l), ""};
              }});
  if (r && r->size() != b.size()) {
    // The result is not even a function on B's domain: refuted before any engine. Where B's domain
    // can be enumerated, the witness is where R, evaluated past its domain as CuTe does, is wrong.
    return timed_decision<CompositionResult>(engine, limits, [&] {
      CompositionResult res;
      res.engine = engine;
      res.verdict = Verdict::Refuted;
      res.reason = fmt::format("the stated result has size {} but B has size {}", r->size(), b.size());
      const int64_t parting = std::min(r->size(), b.size());
      std::optional<int64_t> at;
      if (b.size() <= limits.max_enumeration) {
        res.engine = Engine::Enum;
        const Sweep s = sweep(a, b, *r, ad);
        if (s.out_of_domain) {
          res.witness = concrete_witness(a, b, r, ad, *s.out_of_domain);
          return res;
        }
        res.wrong_points = s.wrong;
        at = s.first_wrong;
      }
      if (!at && parting < b.size()) at = parting;
      if (at) {
        res.witness = concrete_witness(a, b, r, ad, *at);
      } else {  // R is longer than B: the parting index is outside B
        CompositionWitness w;
        w.index = parting;
        w.outside_result = true;
        res.witness = w;
      }
      return res;
    });
  }
  Obligation<CompositionResult> o;
  o.by_f2 = [&] { return by_f2(a, b, r, ad); };
  o.by_enum = [&] { return by_enumeration(a, b, r, ad, limits); };
  o.by_z3 = [&] { return by_z3(a, b, r, ad, limits); };
  o.small = [&] { return b.size() <= kAutoEnumerationLimit; };
  o.confirm = [](CompositionResult& res) -> std::optional<std::string> {
    if (violates(*res.witness)) return std::nullopt;
    return fmt::format("A, B and R agree at index {}", res.witness->index);
  };
  // Every engine's refutation reads the same where B's domain can be enumerated: the first index
  // leaving A's domain if there is one, else the first index R gets wrong, with how many it gets
  // wrong. Past the budget the engine's witness stands, without the count.
  o.minimize = [&](CompositionResult& res) {
    if (!r || b.size() > limits.max_enumeration) return false;
    const Sweep s = sweep(a, b, *r, ad);
    if (s.out_of_domain) {
      res.witness = concrete_witness(a, b, r, ad, *s.out_of_domain);
      return true;
    }
    if (!s.first_wrong) return false;
    res.witness = concrete_witness(a, b, r, ad, *s.first_wrong);
    res.wrong_points = s.wrong;
    return true;
  };
  o.describe = [&](CompositionResult& res) {
    if (!res.witness) return;
    res.reason = res.witness->out_of_domain ? fmt::format("B({}) leaves A's domain", res.witness->index)
                                            : fmt::format("R({}) differs from A(B({}))", res.witness->index, res.witness->index);
  };
  return decide(o, engine, limits);
}

CompositionResult prove_extended_composition(const Layout& a, const Layout& b, const Layout& r,
                                             const SolverLimits& limits) {
  const Addressing ad = addressing(a, b);
  return timed_decision<CompositionResult>(Engine::Enum, limits, [&] {
    CompositionResult res;
    res.engine = Engine::Enum;
    if (!ad.by_index) {
      res.reason = "B addresses A's modes (scaled bases); A extended past its domain is evaluated for integer B only";
      return res;
    }
    if (a.order() != IndexOrder::Colex || !a.replicas().empty()) {
      res.reason = "CuTe extends only a colexicographic layout without replicas past its domain";
      return res;
    }
    if (b.size() > limits.max_enumeration) {
      res.reason = fmt::format("B's domain ({} points) exceeds the enumeration limit of {}", b.size(), limits.max_enumeration);
      return res;
    }
    if (r.size() != b.size()) {
      res.verdict = Verdict::Refuted;
      res.reason = fmt::format("the stated result has size {} but B has size {}", r.size(), b.size());
      return res;
    }
    for (int64_t i = 0; i < b.size(); ++i) {
      checkpoint();
      const int64_t x = b.images(i)[0][0];
      const Point expected = x >= 0 && x < a.size() ? a.images(x)[0] : a.cute_image(x);
      if (expected == r.images(i)[0]) continue;
      res.wrong_points = res.wrong_points.value_or(0) + 1;
      if (res.witness) continue;
      CompositionWitness w;
      w.index = i;
      w.coordinate = b.split(i);
      w.b_image = b.images(i)[0];
      w.expected = expected;
      w.got = r.images(i)[0];
      res.witness = w;
    }
    res.verdict = res.witness ? Verdict::Refuted : Verdict::Proven;
    if (res.witness) res.reason = fmt::format("R({}) differs from A(B({})), A extended past its domain", res.witness->index, res.witness->index);
    return res;
  });
}

}  // namespace lp
