#include "analyzer/algebra/Operations.h"

#include <fmt/format.h>

#include <string_view>

#include "analyzer/algebra/CuteRejects.h"
#include "analyzer/ir/Checked.h"
#include "analyzer/ir/Print.h"
#include "analyzer/support/Governor.h"

namespace lp::algebra {

namespace {

Layout with_stage(const Layout& core, const Swizzle& sw) {
  LayoutParts p = core.parts();
  p.stages.push_back(Stage::swizzled(sw));
  return Layout::make(std::move(p));
}


// A legality check the run's budget stops (analyzer/support/Governor.h) is undecided: never legal
// or illegal.
template <class Decide>
Check within_budget(Decide&& decide) {
  try {
    return decide();
  } catch (const BudgetExhausted& e) {
    return Check::unknown(e.what());
  } catch (const std::bad_alloc&) {
    return Check::unknown("the system refused memory for the legality check");
  }
}

// Runs CuTe's algorithm, then the legality check on its result. CuTe's own refusals become an
// illegal verdict without a result; a "result" that is not a layout (an extent < 1) likewise.
template <class Compute, class Verify>
Outcome run(const char* op, Compute compute, Verify verify) {
  Outcome o;
  o.op = op;
  try {
    CuteLayout r = compute();
    o.text = cute_text(r);
    o.layout = r;
    o.check = within_budget([&] { return verify(r); });
  } catch (const CuteRejects& e) {
    o.check = Check::illegal(std::string(e.what()) + "; there is no result");
  } catch (const LayoutError& e) {
    o.text.reset();
    o.layout.reset();
    o.check = Check::illegal(std::string("CuTe's algorithm yields no valid layout here: ") + e.what());
  }
  return o;
}

Layout core_of(const Layout& l) {
  LayoutParts p = l.parts();
  p.stages.clear();
  return Layout::make(std::move(p));
}

// A layout as CuTe's algebra indexes it: colexicographic (a TIRx layout's 1-D order reversed per
// dimension, the same coordinate function). Checks evaluate operands in this order, as the algebra
// computes on it (from_ir).
Layout colex(const Layout& l) { return l.with_order(IndexOrder::Colex); }

// The swizzle of a layout composed as CuTe's `Sw o _0 o L`; none for a plain layout. Other stage
// forms are outside what max_common_vector takes: CuTe (swizzle_layout.hpp) has overloads for a
// swizzle as the outer part only.
std::optional<Swizzle> swizzle_of(const Layout& l) {
  if (l.stages().empty()) return std::nullopt;
  if (l.stages().size() == 1 && l.stages()[0].kind == Stage::Kind::Swizzle) return l.stages()[0].swizzle;
  if (l.has_outer_stage())
    throw CuteRejects("CuTe has max_common_vector for a swizzle composed with a layout (Sw o _0 o L) only, not for "
                      "a layout composed with a layout (A o O o B)");
  throw AlgebraError(
      "only a layout composed with one element swizzle (Sw o _0 o L) is supported here; offsets and byte-address "
      "swizzles are not");
}

// A layout's outermost composed part, as CuTe nests `X o O o B`: X (a swizzle or an outer
// layout), the offset O before it, and B, the layout with the stages inside.
struct OutermostPart {
  Stage x;
  Stage offset;  ///< an AddOffset stage, zero when there is none
  Layout inside;
};

// CuTe has no F2-linear maps (`F2[...]`, Triton's linear layouts): no algebra result of CuTe's
// to reproduce.
void reject_f2_stages(const Layout& l) {
  for (const Stage& st : l.stages())
    if (st.kind == Stage::Kind::F2Linear)
      throw AlgebraError("an F2-linear map (F2[...]) is not part of CuTe's algebra; this operation takes CuTe layouts");
}

OutermostPart outermost_part(const Layout& l) {
  reject_f2_stages(l);
  const std::vector<Stage>& st = l.stages();
  const Stage& x = st.back();
  if (x.kind == Stage::Kind::AddOffset)
    throw AlgebraError("an offset composed after the last swizzle or layout (Sw<0,0,0> o O o L) is not supported here");
  if (x.kind == Stage::Kind::ByteSwizzle)
    throw AlgebraError("a byte-address swizzle (Sw o smem_ptr[Nb] o L) is a pointer's swizzle, not a layout's; this "
                       "operation takes layouts");
  size_t rest = st.size() - 1;
  Stage offset = Stage::add_offset(0);
  if (rest > 0 && st[rest - 1].kind == Stage::Kind::AddOffset) offset = st[--rest];
  LayoutParts p = l.parts();
  p.stages.resize(rest);
  return {x, offset, Layout::make(std::move(p))};
}

// CuTe's composition(Layout A, Swizzle): the rewrite A o Sw = Sw' o A (swizzle_layout.hpp), plain
// where Sw' is the identity; nullopt (with why_not) where make_swizzle rejects the masks.
std::optional<Layout> swizzle_moved_through(const CuteLayout& a, const Swizzle& sw, std::string& why_not) {
  auto moved = swizzle_through_layout(a, sw, why_not);
  if (!moved) return std::nullopt;
  return moved->is_identity() ? to_ir(a) : with_stage(to_ir(a), *moved);
}

// The outcome of an operation whose result is r: a plain CuTe layout, or a composed one.
void set_result(Outcome& o, const Layout& r) {
  o.text = print_cute(r).text;
  if (r.stages().empty()) o.layout = from_ir(r);
  else o.composed = r;
}

// CuTe's right_inverse/left_inverse of a layout that may be composed, as a layout:
//   inverse(Sw o _0 o B) = composition(inverse(B), Sw) = Sw' o inverse(B)   (swizzle_layout.hpp)
//   inverse(A o O o B) = composition(inverse(B), -O, inverse(A))            (layout_composed.hpp)
// The latter is the layout inverse(B) o -O o inverse(A): inverse(A) is its domain.
Layout staged_inverse(const Layout& in, CuteLayout (*inverse)(const CuteLayout&)) {
  if (in.stages().empty()) return to_ir(inverse(from_ir(in)));
  const OutermostPart part = outermost_part(in);
  const Layout inner = staged_inverse(part.inside, inverse);
  if (part.x.kind == Stage::Kind::Swizzle) {
    if (part.offset.offset != 0)
      throw AlgebraError(fmt::format(
          "CuTe's inverse of Sw o {} o L is inverse(L) o {} o Sw, a composed layout whose domain is the swizzle itself: it "
          "has no shape, and LayoutProof's layouts have one",
          part.offset.offset, -part.offset.offset));
    if (!inner.stages().empty())
      throw AlgebraError("moving a swizzle through the inverse of a composed layout is not supported here");
    std::string why;
    std::optional<Layout> r = swizzle_moved_through(from_ir(inner), part.x.swizzle, why);
    if (!r) throw CuteRejects(why);
    return *r;
  }
  LayoutParts p = to_ir(inverse(from_ir(*part.x.outer))).parts();
  // CuTe's right_inverse/left_inverse of an integer offset is its negation, of the same staticness.
  if (part.offset.offset != 0) p.stages.push_back(Stage::add_offset(-part.offset.offset, part.offset.static_offset));
  p.stages.push_back(Stage::outer_layout(core_of(inner)));
  for (const Stage& st : inner.stages()) p.stages.push_back(st);
  return Layout::make(std::move(p));
}

CuteLayout cute_right_inverse(const CuteLayout& l) { return right_inverse(l); }
CuteLayout cute_left_inverse(const CuteLayout& l) { return left_inverse(l); }

// An inverse of a composed layout (staged_inverse), checked by its contract on the true functions.
Outcome inverse_of_staged(const char* op, const Layout& in) {
  Outcome o;
  o.op = op;
  const bool right = std::string_view(op) == "right_inverse";
  try {
    const Layout r = staged_inverse(colex(in), right ? cute_right_inverse : cute_left_inverse);
    set_result(o, r);
    o.check = within_budget([&] { return right ? check_right_inverse(colex(in), r) : check_left_inverse(colex(in), r); });
  } catch (const CuteRejects& e) {
    o.check = Check::illegal(std::string(e.what()) + "; there is no result");
  } catch (const LayoutError& e) {
    o = Outcome{op, std::nullopt, std::nullopt, std::nullopt,
                Check::illegal(std::string("CuTe's algorithm yields no valid layout here: ") + e.what())};
  } catch (const AlgebraError& e) {
    o = Outcome{op, std::nullopt, std::nullopt, std::nullopt, Check::unknown(e.what())};
  }
  return o;
}

// CuTe's composition of two layouts, either of them possibly composed:
//   composition(X o O o A, B) = X o O o composition(A, B)                   (layout_composed.hpp)
//   composition(A, X o _0 o B) = composition(composition(A, X), B)          (it static_asserts O == _0)
// with composition(A, Sw) = Sw' o A (swizzle_layout.hpp). Throws CuteRejects where CuTe does.
Layout compose_staged(const Layout& a, const Layout& b) {
  reject_f2_stages(a);
  if (!a.stages().empty()) {
    LayoutParts p = compose_staged(core_of(a), b).parts();
    for (const Stage& st : a.stages()) p.stages.push_back(st);
    return Layout::make(std::move(p));
  }
  if (b.stages().empty()) return to_ir(composition(from_ir(a), from_ir(b)));
  const OutermostPart part = outermost_part(b);
  if (part.offset.offset != 0)
    throw CuteRejects(fmt::format("composition(Layout, ComposedLayout) requires the composed offset to be _0 "
                                  "(layout_composed.hpp), here it is {}",
                                  part.offset.offset));
  if (part.x.kind == Stage::Kind::Swizzle) {
    std::string why;
    std::optional<Layout> moved = swizzle_moved_through(from_ir(a), part.x.swizzle, why);
    if (!moved) throw CuteRejects(why);
    return compose_staged(*moved, part.inside);
  }
  return compose_staged(compose_staged(a, *part.x.outer), part.inside);
}

Int size_of(const CuteLayout& l) { return l.size(); }

// The complement inside a divide or product: those operations' contracts (CuTe's logical_divide.cpp
// and logical_product.cpp assert shapes and the composition) do not include the complement's own
// post-conditions. Every way CuTe's floored complement can miss them leaves offsets of [0, M)
// uncovered, so a failed one is a complement-hole note on the divide or product, not illegal.
Check complement_part(Check c) {
  if (c.verdict != Verdict::Illegal) return c;
  Check noted = Check::legal();
  noted.notes.push_back(ContractNote{ContractNote::Kind::ComplementHole, c.reason, c.witness});
  return noted;
}

// A part's verdict as its operation reports it: an illegal reason and each note start with `context`.
Check in_context(Check c, const std::string& context) {
  if (c.verdict == Verdict::Illegal) c.reason = context + c.reason;
  for (ContractNote& n : c.notes) n.message = context + n.message;
  return c;
}

Check verify_divide(const CuteLayout& l, const CuteTiler& t, const CuteLayout& d) {
  switch (t.kind) {
    case CuteTiler::Kind::Underscore:
      return Check::legal();
    case CuteTiler::Kind::Tuple: {
      std::vector<Check> checks;
      for (size_t i = 0; i < t.parts.size(); ++i) checks.push_back(verify_divide(l.mode(i), t.parts[i], d.mode(i)));
      return combine(checks);
    }
    case CuteTiler::Kind::Layout:
      break;
  }
  std::vector<Int> shape;
  for (const CuteLayout& leaf : coalesce(l).leaves()) shape.push_back(leaf.shape);
  const CuteLayout rest = complement(t.layout, shape);
  const Check c = in_context(complement_part(check_complement(t.layout, size_of(l).value, rest)),
                             fmt::format("the tile {} does not divide {}: ", cute_text(t.layout), cute_text(l)));
  Check k = claim_composition(to_ir(l), CuteLayout::tuple({t.layout, rest}), to_ir(d),
                              fmt::format("the tile {} does not fit {}: ", cute_text(t.layout), cute_text(l)),
                              fmt::format("the tile {} over {}: ", cute_text(t.layout), cute_text(l)));
  return combine({c, k});
}

Check verify_product(const CuteLayout& a, const CuteTiler& b, const CuteLayout& p) {
  switch (b.kind) {
    case CuteTiler::Kind::Underscore:
      return Check::legal();
    case CuteTiler::Kind::Tuple: {
      std::vector<Check> checks;
      for (size_t i = 0; i < b.parts.size(); ++i) checks.push_back(verify_product(a.mode(i), b.parts[i], p.mode(i)));
      return combine(checks);
    }
    case CuteTiler::Kind::Layout:
      break;
  }
  const int64_t cotarget = (a.size() * b.layout.cosize()).value;
  const CuteLayout c = complement(a, Int{cotarget, true});
  const Check comp = in_context(complement_part(check_complement(a, cotarget, c)), "the block's complement: ");
  Check tiles = claim_composition(to_ir(c), b.layout, to_ir(p.mode(1)), "the tile placement is not complement o B: ",
                                  "the tile placement complement o B: ");
  std::vector<Check> checks{comp, tiles};
  if (check_injective(a, "A").verdict == Verdict::Legal && check_injective(b.layout, "B").verdict == Verdict::Legal)
    checks.push_back(check_injective(p, "R"));
  return combine(checks);
}

CuteLayout padded_product(const CuteLayout& a, const CuteLayout& b) {
  const size_t rank = std::max(a.rank(), b.rank());
  const CuteLayout pa = append_to_rank(a, rank), pb = append_to_rank(b, rank);
  return CuteLayout::tuple({pa, composition(complement(pa, pa.size() * pb.cosize()), pb)});
}

Check verify_rank_product(const CuteLayout& a, const CuteLayout& b, const CuteLayout& r, const char* what) {
  const size_t rank = std::max(a.rank(), b.rank());
  const CuteLayout pa = append_to_rank(a, rank);
  const CuteLayout p = padded_product(a, b);
  return combine({verify_product(pa, CuteTiler::of(append_to_rank(b, rank)), p), check_regrouping(p, r, what)});
}

}  // namespace

const char* verdict_name(Verdict v) { return vocabulary_name(kVerdictNames, v, "unknown"); }

Outcome op_coalesce(const Layout& in) {
  const CuteLayout l = from_ir(in);
  return run("coalesce", [&] { return coalesce(l); },
             [&](const CuteLayout& r) { return check_same_function(l, r, "coalesce"); });
}

Outcome op_filter_zeros(const Layout& in) {
  const CuteLayout l = from_ir(in);
  return run("filter_zeros", [&] { return filter_zeros(l); },
             [&](const CuteLayout& r) { return check_zeros_removed(l, r, "filter_zeros"); });
}

Outcome op_filter(const Layout& in) {
  const CuteLayout l = from_ir(in);
  return run("filter", [&] { return filter(l); }, [&](const CuteLayout& r) { return check_zeros_removed(l, r, "filter"); });
}

int64_t Cotarget::size() const {
  int64_t n = 1;
  for (const Int& s : shape) n = checked_mul(n, s.value, "the cotarget's size");
  return n;
}

Outcome op_complement(const Layout& in, std::optional<Cotarget> cotarget) {
  const CuteLayout l = from_ir(in);
  return run("complement", [&] { return cotarget ? complement(l, cotarget->shape) : complement(l); },
             [&](const CuteLayout& r) {
               const int64_t m = cotarget ? cotarget->size() : filter(l).cosize().value;
               return check_complement(l, m, r);
             });
}

Outcome op_divide(DivideKind kind, const Layout& in, const CuteTiler& t) {
  const CuteLayout l = from_ir(in);
  switch (kind) {
    case DivideKind::Logical:
      return run("logical_divide", [&] { return logical_divide(l, t); },
                 [&](const CuteLayout& r) { return verify_divide(l, t, r); });
    case DivideKind::Zipped:
      return run("zipped_divide", [&] { return zipped_divide(l, t); }, [&](const CuteLayout& r) {
        const CuteLayout d = logical_divide(l, t);
        return combine({verify_divide(l, t, d), check_regrouping(d, r, "zipped_divide")});
      });
    case DivideKind::Tiled:
      return run("tiled_divide", [&] { return tiled_divide(l, t); }, [&](const CuteLayout& r) {
        const CuteLayout d = logical_divide(l, t);
        return combine({verify_divide(l, t, d), check_regrouping(d, r, "tiled_divide")});
      });
    case DivideKind::Flat:
      return run("flat_divide", [&] { return flat_divide(l, t); }, [&](const CuteLayout& r) {
        const CuteLayout d = logical_divide(l, t);
        return combine({verify_divide(l, t, d), check_regrouping(d, r, "flat_divide")});
      });
  }
  throw AlgebraError("unknown divide");
}

Outcome op_logical_product(const Layout& in, const CuteTiler& b) {
  const CuteLayout a = from_ir(in);
  return run("logical_product", [&] { return logical_product(a, b); },
             [&](const CuteLayout& r) { return verify_product(a, b, r); });
}

Outcome op_blocked_product(const Layout& ia, const Layout& ib) {
  const CuteLayout a = from_ir(ia), b = from_ir(ib);
  return run("blocked_product", [&] { return blocked_product(a, b); },
             [&](const CuteLayout& r) { return verify_rank_product(a, b, r, "blocked_product"); });
}

Outcome op_raked_product(const Layout& ia, const Layout& ib) {
  const CuteLayout a = from_ir(ia), b = from_ir(ib);
  return run("raked_product", [&] { return raked_product(a, b); },
             [&](const CuteLayout& r) { return verify_rank_product(a, b, r, "raked_product"); });
}

Outcome op_tile_to_shape(const Layout& in, const std::vector<Int>& target) {
  const CuteLayout block = from_ir(in);
  return run("tile_to_shape", [&] { return tile_to_shape(block, target); }, [&](const CuteLayout& r) {
    std::vector<Check> checks;
    for (size_t i = 0; i < target.size(); ++i)
      if (r.mode(i).size().value != target[i].value)
        checks.push_back(Check::illegal(fmt::format("mode {} of the result has {} points, the target asks for {}", i,
                                                    r.mode(i).size().value, target[i].value)));
    const CuteLayout padded = append_to_rank(block, target.size());
    std::vector<CuteLayout> reps;
    for (size_t i = 0; i < target.size(); ++i)
      reps.push_back(CuteLayout::leaf(ceil_div(target[i], padded.mode(i).size()), Int{1, true}));
    const CuteLayout order = compact_col_major(target.size() == 1 ? reps[0] : CuteLayout::tuple(reps));
    checks.push_back(verify_rank_product(padded, order, r, "tile_to_shape"));
    return combine(checks);
  });
}

Outcome op_right_inverse(const Layout& in) {
  if (!in.stages().empty()) return inverse_of_staged("right_inverse", in);
  const CuteLayout l = from_ir(in);
  return run("right_inverse", [&] { return right_inverse(l); },
             [&](const CuteLayout& r) { return check_right_inverse(colex(in), to_ir(r)); });
}

Outcome op_left_inverse(const Layout& in) {
  if (!in.stages().empty()) return inverse_of_staged("left_inverse", in);
  const CuteLayout l = from_ir(in);
  return run("left_inverse", [&] { return left_inverse(l); },
             [&](const CuteLayout& r) { return check_left_inverse(colex(in), to_ir(r)); });
}

Outcome op_max_common_vector(const Layout& ia, const Layout& ib) {
  Outcome o;
  o.op = "max_common_vector";
  try {
    const std::optional<Swizzle> sa = swizzle_of(ia), sb = swizzle_of(ib);
    const CuteLayout a = from_ir(core_of(ia)), b = from_ir(core_of(ib));
    Int n = max_common_vector(a, b);
    // CuTe (swizzle_layout.hpp): a swizzle keeps the 2^M lowest offsets in place, so the cores'
    // common vector is cut at 2^M for each swizzled side, unless both carry the same swizzle.
    auto cut = [&n](const Swizzle& sw) {
      const int64_t base = int64_t{1} << sw.base();
      if (base < n.value) n = Int{base, n.is_static};
    };
    if (!(sa && sb && *sa == *sb)) {
      if (sa) cut(*sa);
      if (sb) cut(*sb);
    }
    o.text = n.is_static ? fmt::format("_{}", n.value) : fmt::format("{}", n.value);
    o.check = within_budget([&] { return check_common_vector(colex(ia), colex(ib), n.value); });
  } catch (const CuteRejects& e) {
    o.check = Check::illegal(std::string(e.what()) + "; there is no result");
  }
  return o;
}

Outcome op_compose(const Operand& a, const Operand& b) {
  Outcome o;
  o.op = "compose";
  if (const auto* sa = std::get_if<Swizzle>(&a)) {
    if (const auto* sb = std::get_if<Swizzle>(&b)) {
      std::string why;
      auto merged = compose_swizzles(*sa, *sb, why);
      if (!merged) {
        o.check = Check::illegal("CuTe rejects this operation: " + why + "; there is no result");
        return o;
      }
      o.text = swizzle_text(*merged);
      o.check = within_budget([&] { return check_swizzle_pair(*sa, *sb, *merged); });
      return o;
    }
    if (const auto* lb = std::get_if<Layout>(&b)) {
      if (!lb->is_scalar()) throw AlgebraError("a swizzle acts on integer offsets; the right operand is not an integer layout");
      // CuTe: composition(Swizzle<0,M,S>, _0, L) is L itself.
      const Layout r = sa->is_identity() ? *lb : with_stage(*lb, *sa);
      o.text = print_cute(r).text;
      o.composed = r;
      o.check = within_budget([&] { return check_swizzle_after_layout(*sa, *lb, r); });
      return o;
    }
    throw AlgebraError("a swizzle composes with a layout or a swizzle, not with a tiler tuple");
  }
  const auto* la = std::get_if<Layout>(&a);
  if (!la) throw AlgebraError("the left operand of compose is a tiler tuple; compose takes a layout or swizzle there");
  if (const auto* sb = std::get_if<Swizzle>(&b)) {
    if (!la->stages().empty())
      throw AlgebraError("composing a swizzled layout with a swizzle is not supported");
    const CuteLayout core = from_ir(*la);
    std::string why;
    const std::optional<Layout> r = swizzle_moved_through(core, *sb, why);
    if (!r) {
      o.check = Check::illegal("CuTe rejects this operation: " + why + "; there is no result");
      return o;
    }
    o.text = print_cute(*r).text;
    o.composed = *r;
    o.check = within_budget([&] { return check_layout_after_swizzle(core, *sb, *r); });
    return o;
  }
  if (const auto* tb = std::get_if<CuteTiler>(&b)) {
    if (!la->stages().empty()) throw AlgebraError("composing a swizzled layout with a tiler tuple is not supported");
    const CuteLayout core = from_ir(*la);
    return run("compose", [&] { return composition(core, *tb); }, [&](const CuteLayout& r) {
      std::vector<Check> checks;
      for (size_t i = 0; i < tb->parts.size(); ++i)
        if (tb->parts[i].kind == CuteTiler::Kind::Layout)
          checks.push_back(claim_composition(to_ir(core.mode(i)), tb->parts[i].layout, to_ir(r.mode(i))));
        else if (tb->parts[i].kind == CuteTiler::Kind::Tuple)
          throw AlgebraError("nested tiler tuples in compose are not supported");
      return combine(checks);
    });
  }
  const Layout& lb = std::get<Layout>(b);
  if (la->stages().empty() && lb.stages().empty()) {
    const CuteLayout bl = from_ir(lb);
    return run("compose", [&] { return composition(from_ir(*la), bl); },
               [&](const CuteLayout& r) { return claim_composition(colex(*la), bl, to_ir(r)); });
  }
  // A composed operand: CuTe's result, claimed against the true function R(c) == A(B(c)).
  try {
    const Layout r = compose_staged(colex(*la), colex(lb));
    set_result(o, r);
    o.check = claim_composition(colex(*la), colex(lb), r);
  } catch (const CuteRejects& e) {
    o.check = Check::illegal(std::string(e.what()) + "; there is no result");
  } catch (const LayoutError& e) {
    o.check = Check::illegal(std::string("CuTe's algorithm yields no valid layout here: ") + e.what());
  } catch (const AlgebraError& e) {
    o.check = Check::unknown(e.what());
  }
  return o;
}

}  // namespace lp::algebra
