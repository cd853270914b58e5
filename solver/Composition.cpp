#include "solver/Composition.h"

#include <fmt/format.h>

#include <stdexcept>

#include "analyzer/ir/Checked.h"
#include "analyzer/support/Governor.h"
#include "solver/Obligation.h"
#include "solver/F2Layout.h"
#include "solver/QueryLog.h"
#include "solver/Z3Layout.h"

namespace lp {

namespace {

// How B's image addresses A: a 1-D index, or one coordinate per top-level mode of A.
struct Addressing {
  bool by_index = true;
  std::vector<size_t> mode_of_axis;  ///< B axis -> A top-level mode (by coordinate)
  std::vector<int64_t> dims;         ///< A's top-level mode sizes
};

Addressing addressing(const Layout& a, const Layout& b) {
  Addressing ad;
  const Layout ac = a.with_order(IndexOrder::Colex);
  std::vector<Nest> tops = a.nest().leaf ? std::vector<Nest>{Nest::make_leaf()} : a.nest().children;
  size_t leaf = 0;
  for (const Nest& t : tops) {
    int64_t s = 1;
    for (size_t k = 0; k < t.leaf_count(); ++k) s *= ac.modes()[leaf + k].extent;
    ad.dims.push_back(s);
    leaf += t.leaf_count();
  }
  bool basis = false, memory = false;
  for (const Axis& x : b.axes()) {
    if (x.is_memory()) memory = true;
    else if (x.is_basis() && x.path().size() == 1 && x.path()[0] < ad.dims.size()) basis = true;
    else throw std::invalid_argument(fmt::format("B's axis '{}' does not address A (use integer strides or _1@d for d < {})",
                                                 x.spelling(), ad.dims.size()));
  }
  if (basis && memory) throw std::invalid_argument("B mixes integer and scaled-basis strides");
  if (!b.replicas().empty() || (!b.stages().empty() && basis))
    throw std::invalid_argument("B must be a plain layout (no replicas; swizzles only on integer strides)");
  ad.by_index = !basis;
  for (const Axis& x : b.axes()) ad.mode_of_axis.push_back(x.is_basis() ? x.path()[0] : 0);
  return ad;
}

// A's 1-D index for B's image, or nullopt outside A's domain.
std::optional<int64_t> a_index(const Layout& a, const Addressing& ad, const Point& bimg) {
  if (ad.by_index) {
    if (bimg[0] < 0 || bimg[0] >= a.size()) return std::nullopt;
    return bimg[0];
  }
  std::vector<int64_t> x(ad.dims.size(), 0);
  for (size_t ax = 0; ax < bimg.size(); ++ax) x[ad.mode_of_axis[ax]] += bimg[ax];
  int64_t idx = 0;
  for (size_t d = 0; d < x.size(); ++d)
    if (x[d] < 0 || x[d] >= ad.dims[d]) return std::nullopt;
  if (a.order() == IndexOrder::Colex)
    for (size_t d = x.size(); d-- > 0;) idx = idx * ad.dims[d] + x[d];
  else
    for (size_t d = 0; d < x.size(); ++d) idx = idx * ad.dims[d] + x[d];
  return idx;
}

CompositionWitness concrete_witness(const Layout& a, const Layout& b, const std::optional<Layout>& r,
                                    const Addressing& ad, int64_t i) {
  CompositionWitness w;
  w.index = i;
  w.coordinate = b.split(i);
  w.b_image = b.images(i)[0];
  auto ai = a_index(a, ad, w.b_image);
  w.out_of_domain = !ai;
  if (ai) {
    w.expected = a.images(*ai)[0];
    if (r) w.got = r->images(i)[0];
  }
  return w;
}

// True when the witness really violates the obligation (the concrete re-check).
bool violates(const CompositionWitness& w) { return w.out_of_domain || w.outside_result || w.expected != w.got; }

CompositionResult by_enumeration(const Layout& a, const Layout& b, const std::optional<Layout>& r, const Addressing& ad,
                                 const SolverLimits& limits) {
  CompositionResult res;
  res.engine = Engine::Enum;
  if (b.size() > limits.max_enumeration) {
    res.reason = fmt::format("B's domain ({} points) exceeds the enumeration limit", b.size());
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
      std::vector<z3::expr> x(ad.dims.size(), k(0));
      for (size_t ax = 0; ax < bimg.size(); ++ax) x[ad.mode_of_axis[ax]] = x[ad.mode_of_axis[ax]] + bimg[ax];
      for (size_t d = 0; d < x.size(); ++d) in_a = in_a && z3::sge(x[d], k(0)) && z3::slt(x[d], k(ad.dims[d]));
      if (a.order() == IndexOrder::Colex)
        for (size_t d = x.size(); d-- > 0;) index = index * k(ad.dims[d]) + x[d];
      else
        for (size_t d = 0; d < x.size(); ++d) index = index * k(ad.dims[d]) + x[d];
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
    // The result is not even a function on B's domain: refuted where the two domains part, before
    // any engine.
    return timed_decision<CompositionResult>(engine, limits, [&] {
      CompositionResult res;
      int64_t i = std::min(r->size(), b.size());
      res.engine = engine;
      res.verdict = Verdict::Refuted;
      CompositionWitness w;
      w.index = i;
      w.outside_result = true;
      if (i < b.size()) {
        w = concrete_witness(a, b, std::nullopt, ad, i);
        w.outside_result = true;
      }
      res.witness = w;
      res.reason = fmt::format("the stated result has size {} but B has size {}: index {} is in only one of the two domains",
                               r->size(), b.size(), i);
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
  o.describe = [](CompositionResult& res) {
    if (!res.witness) return;
    res.reason = res.witness->out_of_domain ? fmt::format("B({}) leaves A's domain", res.witness->index)
                                            : fmt::format("R({}) differs from A(B({}))", res.witness->index, res.witness->index);
  };
  return decide(o, engine, limits);
}

}  // namespace lp
