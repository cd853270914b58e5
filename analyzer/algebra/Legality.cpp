#include "analyzer/algebra/Legality.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <set>
#include <unordered_map>

#include "analyzer/ir/Checked.h"
#include "analyzer/support/Governor.h"

namespace lp::algebra {

namespace {

std::optional<Check> too_large(int64_t points, const std::string& what) {
  if (points <= kMaxCheckedPoints) return std::nullopt;
  return Check::unknown(fmt::format("{} has {} points, more than the {} the legality check enumerates; "
                                    "legality is not decided", what, points, kMaxCheckedPoints));
}

Witness witness_at(const Evaluator& domain, const std::string& name, int64_t i, std::string expected_label,
                   std::string expected, std::string actual_label, std::string actual) {
  return Witness{name, i, domain.coordinate(i), std::move(expected_label), std::move(expected), std::move(actual_label),
                 std::move(actual)};
}

}  // namespace

const char* note_kind_name(ContractNote::Kind kind) { return vocabulary_name(kNoteKindNames, kind, "past-domain"); }

Check combine(const std::vector<Check>& checks) {
  for (const Check& c : checks)
    if (c.verdict == Verdict::Illegal) return c;
  Check all = Check::legal();
  all.engines.clear();
  for (const Check& c : checks) {
    all.claims.insert(all.claims.end(), c.claims.begin(), c.claims.end());
    all.engines.insert(c.engines.begin(), c.engines.end());
    all.notes.insert(all.notes.end(), c.notes.begin(), c.notes.end());
  }
  for (const Check& c : checks)
    if (c.verdict == Verdict::Unknown) {
      all.verdict = Verdict::Unknown;
      all.reason = c.reason;
      return all;
    }
  for (const Check& c : checks)
    if (!c.reason.empty()) all.reason += (all.reason.empty() ? "" : "; ") + c.reason;
  return all;
}

Check claim_composition(Layout a, const CuteLayout& b, Layout r, std::string context, std::string role) {
  return claim_composition(std::move(a), to_ir(b), std::move(r), std::move(context), std::move(role));
}

Check check_complement(const CuteLayout& l, int64_t cotarget, const CuteLayout& r) {
  const Evaluator el(to_ir(l)), er(to_ir(r));
  if (auto big = too_large(checked_mul(el.size(), er.size()), "(L, complement)")) return *big;
  auto values = [](const Evaluator& e, std::vector<int64_t>& out) {
    for (int64_t i = 0; i < e.size(); ++i) {
      checkpoint();
      int64_t v = 0;
      if (!as_integer(e.at(i), v)) return false;
      out.push_back(v);
    }
    return true;
  };
  std::vector<int64_t> lv, rv;
  if (!values(el, lv) || !values(er, rv)) return Check::illegal("complement of a layout with non-integer values");
  // CuTe's cosize, L(size-1) + 1, is the largest value + 1 for the non-negative strides a complement has.
  const int64_t cosize_lr = *std::max_element(lv.begin(), lv.end()) + *std::max_element(rv.begin(), rv.end()) + 1;
  if (cosize_lr < cotarget)
    return Check::illegal(fmt::format("the complement falls short of the cotarget: cosize((L, R)) = {} < {}", cosize_lr,
                                      cotarget),
                          Witness{"(L,R)", std::nullopt, "", "cosize((L,R)) at least", std::to_string(cotarget),
                                  "cosize((L,R))", std::to_string(cosize_lr)});
  // size(R) >= size(M) / size(filter(L)): R repeats L often enough to reach the cotarget.
  int64_t filtered_size = 1;
  for (const CuteLayout& leaf : l.leaves())
    if (!leaf.stride.is_zero()) filtered_size = checked_mul(filtered_size, leaf.shape.value);
  if (er.size() < cotarget / filtered_size)
    return Check::illegal(fmt::format("the complement is too short: size(R) = {} < size(M) / size(filter(L)) = {} / {}",
                                      er.size(), cotarget, filtered_size),
                          Witness{"R", std::nullopt, "", "size(R) at least", std::to_string(cotarget / filtered_size),
                                  "size(R)", std::to_string(er.size())});
  const std::set<int64_t> l_set(lv.begin(), lv.end());
  for (int64_t i = 1; i < er.size(); ++i) {
    if (rv[i - 1] >= rv[i])
      return Check::illegal("the complement is not ordered: R(i-1) >= R(i)",
                            witness_at(er, "R", i, "R(i) above R(i-1) =", std::to_string(rv[i - 1]), "R(i)",
                                       std::to_string(rv[i])));
    if (l_set.count(rv[i]))
      return Check::illegal(fmt::format("the complement is not disjoint from L: R(i) = {} is a value of L", rv[i]),
                            witness_at(er, "R", i, "R(i) not a value of L, but L takes", std::to_string(rv[i]), "R(i)",
                                       std::to_string(rv[i])));
  }
  // What the contract allows: (filter(L), R) need not cover [0, M). (Where CuTe gives a result,
  // its floored strides never make (filter(L), R) hit an offset twice: tests/algebra/test_properties.cpp.)
  Check c = Check::legal();
  std::set<int64_t> seen;
  for (const int64_t x : std::set<int64_t>(lv.begin(), lv.end()))
    for (const int64_t y : rv) seen.insert(x + y);
  for (int64_t v = 0; v < cotarget; ++v) {
    checkpoint();
    if (!seen.count(v)) {
      c.notes.push_back(ContractNote{
          ContractNote::Kind::ComplementHole,
          fmt::format("the complement leaves a hole: offset {} < cotarget {} is hit by neither L nor R", v, cotarget),
          Witness{"(L,R)", std::nullopt, "", "an index c with (L,R)(c)", fmt::format("{}", v), "values of (L,R)",
                  fmt::format("never {}", v)}});
      break;
    }
  }
  return c;
}

Check claim_composition(Layout a, Layout b, Layout r, std::string context, std::string role) {
  Check c{Verdict::Legal, {}, std::nullopt, {}, {}, {}};
  c.claims.push_back(CompositionClaim{std::move(a), std::move(b), std::move(r), std::move(context), std::move(role)});
  return c;
}

Check check_same_function(const CuteLayout& l, const CuteLayout& r, const char* what) {
  const Evaluator el(to_ir(l)), er(to_ir(r));
  if (auto big = too_large(el.size(), "the domain")) return *big;
  if (el.size() != er.size())
    return Check::illegal(fmt::format("{} changed the size from {} to {}", what, el.size(), er.size()));
  for (int64_t i = 0; i < el.size(); ++i) {
    checkpoint();
    if (el.at(i) != er.at(i))
      return Check::illegal(fmt::format("{} changed the function", what),
                            witness_at(el, "L", i, "L(i)", value_text(el.at(i)), "R(i)", value_text(er.at(i))));
  }
  return Check::legal();
}

Check check_zeros_removed(const CuteLayout& l, const CuteLayout& r, const char* what) {
  const Layout li = to_ir(l);
  std::vector<int64_t> extents;
  int64_t size = 1;
  for (const Mode& m : li.modes()) {
    // CuTe removes only modes whose stride is a static _0; a dynamic 0 stays.
    const bool zero = m.static_stride && std::all_of(m.stride.begin(), m.stride.end(), [](int64_t s) { return s == 0; });
    extents.push_back(zero ? 1 : m.extent.count());
    size = checked_mul(size, extents.back());
  }
  const Evaluator er(to_ir(r));
  if (auto big = too_large(size, "the domain without stride-0 modes")) return *big;
  if (er.size() != size)
    return Check::illegal(fmt::format("{} has {} points; L without its stride-0 modes has {}", what, er.size(), size));
  for (int64_t i = 0; i < size; ++i) {
    checkpoint();
    std::vector<int64_t> coord(extents.size());
    int64_t rest = i;
    for (size_t k = 0; k < extents.size(); ++k) {
      coord[k] = rest % extents[k];
      rest /= extents[k];
    }
    const Point p = li.base_of(coord);
    Value expected;
    for (size_t a = 0; a < p.size(); ++a)
      if (p[a] != 0) expected.push_back({li.axes()[a], p[a]});
    std::sort(expected.begin(), expected.end());
    if (er.at(i) != expected)
      return Check::illegal(fmt::format("{} is not L with its stride-0 modes removed", what),
                            witness_at(er, "R", i, "L at the same coordinate", value_text(expected), "R(i)",
                                       value_text(er.at(i))));
  }
  return Check::legal();
}

namespace {

// L at an index, as CuTe evaluates it past the domain; the first index outside the domain becomes
// a past-domain note.
Value value_past_domain(const Evaluator& e, const char* name, int64_t j, const std::string& at, Check& c) {
  if (j >= 0 && j < e.size()) return e.at(j);
  if (std::none_of(c.notes.begin(), c.notes.end(),
                   [](const ContractNote& n) { return n.kind == ContractNote::Kind::PastDomain; }))
    c.notes.push_back(ContractNote{
        ContractNote::Kind::PastDomain,
        fmt::format("{} is evaluated at {} = {}, outside its domain [0, {}), where CuTe extends it by its strides", name,
                    at, j, e.size()),
        Witness{name, std::nullopt, "", fmt::format("{} in", at), fmt::format("[0, {})", e.size()), at,
                std::to_string(j)}});
  return e.at_extended(j);
}

}  // namespace

Check check_right_inverse(const Layout& l, const Layout& r) {
  const Evaluator el(l), er(r);
  if (auto big = too_large(er.size(), "R's domain")) return *big;  // L is only evaluated, at R's values
  Check c = Check::legal();
  for (int64_t i = 0; i < er.size(); ++i) {
    checkpoint();
    int64_t j = 0;
    if (!as_integer(er.at(i), j))
      return Check::illegal(fmt::format("R(i) = {} is not an index of L", value_text(er.at(i))),
                            witness_at(er, "R", i, "R(i) an", "integer", "R(i)", value_text(er.at(i))));
    const Value back = value_past_domain(el, "L", j, "R(i)", c);
    if (back != integer_value(i))
      return Check::illegal("R is not a right inverse: L(R(i)) != i",
                            witness_at(er, "R", i, "L(R(i))", fmt::format("{}", i), "L(R(i))", value_text(back)));
  }
  if (er.size() < el.size())
    c.reason = fmt::format("R covers offsets [0, {}) of L's {} points (CuTe returns the largest contiguous-from-0 piece)",
                           er.size(), el.size());
  return c;
}

Check check_injective(const CuteLayout& l, const char* name) {
  const Evaluator e(to_ir(l));
  if (auto big = too_large(e.size(), name)) return *big;
  std::map<Value, int64_t> seen;
  for (int64_t i = 0; i < e.size(); ++i) {
    checkpoint();
    Value v = e.at(i);
    auto [it, fresh] = seen.emplace(v, i);
    if (!fresh)
      return Check::illegal(fmt::format("{} is not injective: {} and {} both map to {}", name, e.coordinate(it->second),
                                        e.coordinate(i), value_text(v)),
                            witness_at(e, name, i, fmt::format("{}({}), another coordinate", name, e.coordinate(it->second)),
                                       value_text(v), fmt::format("{}(c)", name), value_text(v)));
  }
  return Check::legal();
}

Check check_left_inverse(const Layout& l, const Layout& r) {
  const Evaluator el(l), er(r);
  if (auto big = too_large(el.size(), "L's domain")) return *big;  // R is only evaluated, at L's values
  Check c = Check::legal();
  for (int64_t i = 0; i < el.size(); ++i) {
    checkpoint();
    const Value li = el.at(i);
    int64_t x = 0, y = 0;
    if (!as_integer(li, x))
      return Check::illegal(fmt::format("L(i) = {} is not an index of R", value_text(li)),
                            witness_at(el, "L", i, "L(i) an", "integer", "L(i)", value_text(li)));
    const Value ri = value_past_domain(er, "R", x, "L(i)", c);
    if (!as_integer(ri, y))
      return Check::illegal(fmt::format("R(L(i)) = {} is not an index of L", value_text(ri)),
                            witness_at(el, "L", i, "R(L(i)) an", "integer", "R(L(i))", value_text(ri)));
    const Value back = value_past_domain(el, "L", y, "R(L(i))", c);
    if (back != li)
      return Check::illegal("R is not a left inverse: L(R(L(i))) != L(i)",
                            witness_at(el, "L", i, "L(R(L(i)))", value_text(li), "L(R(L(i)))", value_text(back)));
    if (y != i && std::none_of(c.notes.begin(), c.notes.end(),
                               [](const ContractNote& n) { return n.kind == ContractNote::Kind::PseudoInverse; }))
      c.notes.push_back(ContractNote{
          ContractNote::Kind::PseudoInverse,
          fmt::format("L is not injective: L({}) = L({}) = {}, so R(L(i)) = {}, not {}; R inverts L only on its image",
                      el.coordinate(i), y >= 0 && y < el.size() ? el.coordinate(y) : std::to_string(y), value_text(li), y, i),
          witness_at(el, "L", i, "R(L(i))", std::to_string(i), "R(L(i))", std::to_string(y))});
  }
  return c;
}

Check check_common_vector(const Layout& a, const Layout& b, int64_t n) {
  const Evaluator ea(a), eb(b);
  if (auto big = too_large(std::max(ea.size(), eb.size()), "the domain")) return *big;
  std::unordered_map<int64_t, int64_t> where;  // offset of B -> its index, or -1 when hit twice
  for (int64_t i = 0; i < eb.size(); ++i) {
    checkpoint();
    int64_t v = 0;
    if (!as_integer(eb.at(i), v)) continue;
    auto [it, fresh] = where.emplace(v, i);
    if (!fresh) it->second = -1;
  }
  // Largest K: offsets 0..K-1 each have exactly one coordinate in B, and A gives the same offset.
  int64_t largest = 0;
  while (true) {
    auto it = where.find(largest);
    if (it == where.end() || it->second < 0 || it->second >= ea.size() || ea.at(it->second) != integer_value(largest)) break;
    ++largest;
  }
  if (n > largest) {
    auto it = where.find(largest);
    const bool absent = it == where.end() || it->second < 0;
    if (absent || it->second >= ea.size())
      return Check::illegal(fmt::format("offset {} < {} has no unique coordinate of B inside A's domain", largest, n));
    return Check::illegal(fmt::format("only the first {} offsets correspond in A and B, not {}", largest, n),
                          witness_at(eb, "B", it->second, "A(c) for B(c) = " + std::to_string(largest),
                                     std::to_string(largest), "A(c)", value_text(ea.at(it->second))));
  }
  if (n < largest) return Check::legal(fmt::format("{} elements correspond; CuTe reports {}", largest, n));
  return Check::legal();
}

Check check_regrouping(const CuteLayout& d, const CuteLayout& r, const char* what) {
  auto key = [](const CuteLayout& x) { return std::make_pair(x.shape.value, x.stride.terms); };
  std::vector<std::pair<int64_t, std::vector<std::pair<Axis, int64_t>>>> kd, kr;
  for (const CuteLayout& x : d.leaves()) kd.push_back(key(x));
  for (const CuteLayout& x : r.leaves()) kr.push_back(key(x));
  std::sort(kd.begin(), kd.end());
  std::sort(kr.begin(), kr.end());
  if (kd != kr) return Check::illegal(fmt::format("{} is not a regrouping of the modes it is built from", what));
  return Check::legal();
}

Check check_swizzle_pair(const Swizzle& outer, const Swizzle& inner, const Swizzle& r) {
  // A swizzle x ^ ((x & mask) >> S) is linear over GF(2) on the bits of x, and so are compositions
  // of swizzles: R and outer o inner agree on every int64 iff they agree on every single bit. If
  // they differ, the smallest x where they do is the lowest such bit (below it they agree on every
  // x, as every x there is an XOR of lower bits): the witness an enumeration would find first.
  for (int bit = 0; bit <= Swizzle::kMaxBit; ++bit) {
    const int64_t x = int64_t{1} << bit;
    const int64_t expected = outer.apply(inner.apply(x));
    if (r.apply(x) != expected)
      return Check::illegal("the merged swizzle is not the composition",
                            Witness{"x", x, std::to_string(x), "outer(inner(x))", std::to_string(expected), "R(x)",
                                    std::to_string(r.apply(x))});
  }
  return Check::legal(fmt::format("checked on each of the {} bits of an offset; both sides are linear over GF(2)",
                                  Swizzle::kMaxBit + 1));
}

Check check_layout_after_swizzle(const CuteLayout& a, const Swizzle& sw, const Layout& r) {
  const Evaluator ea(to_ir(a)), er(r);
  if (auto big = too_large(ea.size(), "A's domain")) return *big;
  for (int64_t i = 0; i < ea.size(); ++i) {
    checkpoint();
    const int64_t j = sw.apply(i);
    if (j < 0 || j >= ea.size())
      return Check::illegal(fmt::format("the swizzle moves index {} to {}, outside A's domain [0, {})", i, j, ea.size()),
                            witness_at(ea, "A", i, "sw(i) in", fmt::format("[0, {})", ea.size()), "sw(i)",
                                       std::to_string(j)));
    if (er.at(i) != ea.at(j))
      return Check::illegal("CuTe's rewrite A o Sw = Sw' o A does not hold for this layout",
                            witness_at(ea, "A", i, "A(Sw(i))", value_text(ea.at(j)), "R(i)", value_text(er.at(i))));
  }
  return Check::legal();
}

Check check_swizzle_after_layout(const Swizzle& sw, const Layout& l, const Layout& r) {
  const Evaluator el(l), er(r);
  if (auto big = too_large(el.size(), "the domain")) return *big;
  for (int64_t i = 0; i < el.size(); ++i) {
    checkpoint();
    int64_t v = 0;
    if (!as_integer(el.at(i), v)) return Check::illegal("a swizzle acts on integer offsets; the layout's value is not one");
    if (er.at(i) != integer_value(sw.apply(v)))
      return Check::illegal("the result is not Sw o L",
                            witness_at(el, "L", i, "Sw(L(i))", std::to_string(sw.apply(v)), "R(i)", value_text(er.at(i))));
  }
  return Check::legal();
}

}  // namespace lp::algebra
