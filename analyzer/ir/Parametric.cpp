#include "analyzer/ir/Parametric.h"

#include <numeric>

#include "analyzer/ir/Checked.h"

namespace lp {

namespace {

__extension__ using Int128 = __int128;

// The smallest admissible value (a multiple of `multiple` at or above lo, computed without
// overflowing near INT64_MAX), or nullopt when none lies in lo..hi.
std::optional<int64_t> first_value(const ParamSpec& p) {
  if (p.multiple < 1 || p.hi < p.lo) return std::nullopt;
  const int64_t rem = ((p.lo % p.multiple) + p.multiple) % p.multiple;
  int64_t first = p.lo;
  if (rem != 0 && __builtin_add_overflow(p.lo, p.multiple - rem, &first)) return std::nullopt;
  if (first > p.hi) return std::nullopt;
  return first;
}

}  // namespace

int64_t param_end_value(const ParamSpec& p, bool largest) {
  const int64_t first = *first_value(p);
  return largest ? first + (p.hi - first) / p.multiple * p.multiple : first;
}

int64_t ParamTerm::value(const std::vector<int64_t>& values) const {
  // The product before the division may exceed the quotient: 128 bits hold it for two factors,
  // and every further factor is checked.
  Int128 product = coeff;
  for (size_t p : params) {
    product *= values[p];
    if (product > INT64_MAX * static_cast<Int128>(divisor) || product < INT64_MIN * static_cast<Int128>(divisor))
      throw OverflowError("integer overflow in parameter term");
  }
  const Int128 v = product / divisor + offset;
  if (v > INT64_MAX || v < INT64_MIN) throw OverflowError("integer overflow in parameter term");
  return static_cast<int64_t>(v);
}

int64_t ParamTerm::value_at_end(const std::vector<ParamSpec>& specs, bool largest) const {
  std::vector<int64_t> values;
  for (const ParamSpec& s : specs) values.push_back(param_end_value(s, largest));
  return value(values);
}

bool ParamTerm::exact_for(const std::vector<ParamSpec>& specs) const {
  // divisor | coeff * prod(m_i), reduced one factor at a time so nothing overflows.
  int64_t rest = divisor / std::gcd(divisor, coeff < 0 ? -coeff : coeff);
  for (size_t p : params) rest /= std::gcd(rest, specs[p].multiple);
  return rest == 1;
}

int64_t ParamTerm::scale(const std::vector<ParamSpec>& specs) const {
  int64_t rest = divisor, s = coeff;
  for (size_t p : params) {
    const int64_t g = std::gcd(rest, specs[p].multiple);
    rest /= g;
    s = checked_mul(s, specs[p].multiple / g, "parameter term");
  }
  return s / rest;  // exact: exact_for
}

std::string ParamTerm::text(const std::vector<ParamSpec>& specs) const {
  std::string out = coeff == 1 ? "" : coeff == -1 ? "-" : std::to_string(coeff) + "*";
  for (size_t k = 0; k < params.size(); ++k) out += (k ? "*" : "") + specs[params[k]].name;
  if (divisor != 1) out += "/" + std::to_string(divisor);
  if (offset > 0) out += "+" + std::to_string(offset);
  if (offset < 0) out += std::to_string(offset);
  return out;
}

Parametric Parametric::used_only() const {
  std::vector<bool> used(specs.size(), false);
  for (const ParamUse& u : uses)
    for (size_t p : u.term.params) used[p] = true;
  std::vector<size_t> renumbered(specs.size(), 0);
  Parametric out;
  for (size_t p = 0; p < specs.size(); ++p)
    if (used[p]) {
      renumbered[p] = out.specs.size();
      out.specs.push_back(specs[p]);
    }
  out.uses = uses;
  for (ParamUse& u : out.uses)
    for (size_t& p : u.term.params) p = renumbered[p];  // monotone: the terms stay sorted
  return out;
}

int64_t param_value_count(const ParamSpec& p) {
  const auto first = first_value(p);
  return first ? (p.hi - *first) / p.multiple + 1 : 0;  // hi - first fits: both lie in [lo, hi]
}

std::optional<std::vector<int64_t>> param_values(const ParamSpec& p, int64_t limit) {
  const int64_t count = param_value_count(p);
  if (count > limit) return std::nullopt;
  std::vector<int64_t> v;
  v.reserve(static_cast<size_t>(count));
  for (int64_t k = 0; k < count; ++k) v.push_back(*first_value(p) + k * p.multiple);  // <= hi: no overflow
  return v;
}

Layout instantiate(const Layout& instance, const Parametric& params, const std::vector<int64_t>& values) {
  LayoutParts p = instance.parts();
  for (const ParamUse& u : params.uses) {
    const int64_t v = u.term.value(values);
    switch (u.field) {
      case ParamUse::Field::Extent: p.modes[u.mode].extent = v; break;
      case ParamUse::Field::Stride: p.modes[u.mode].stride[u.axis] = v; break;
      case ParamUse::Field::ReplicaExtent: p.replicas[u.mode].extent = v; break;
      case ParamUse::Field::ReplicaStride: p.replicas[u.mode].stride[u.axis] = v; break;
    }
  }
  return Layout::make(std::move(p));
}

bool visit_param_values(const Parametric& params, int64_t limit,
                        const std::function<bool(const std::vector<int64_t>&)>& visit) {
  // Per parameter: its first admissible value and its count; the odometer steps by the multiple.
  std::vector<int64_t> first, count;
  for (const ParamSpec& s : params.specs) {
    count.push_back(param_value_count(s));
    if (count.back() == 0) return false;
    first.push_back((s.lo + s.multiple - 1) / s.multiple * s.multiple);
  }
  std::vector<int64_t> at(params.specs.size(), 0), values = first;
  for (int64_t step = 0; step < limit; ++step) {
    if (visit(values)) return true;
    size_t j = at.size();
    while (j > 0 && ++at[j - 1] == count[j - 1]) {
      at[j - 1] = 0;
      values[j - 1] = first[j - 1];
      --j;
    }
    if (j == 0) return false;
    values[j - 1] += params.specs[j - 1].multiple;
  }
  return false;
}

std::optional<std::vector<std::vector<int64_t>>> all_param_values(const Parametric& params, int64_t limit) {
  int64_t combinations = 1;
  for (const ParamSpec& s : params.specs) {
    const int64_t count = param_value_count(s);
    if (count == 0) return std::vector<std::vector<int64_t>>{};
    if (combinations > limit / count) return std::nullopt;
    combinations *= count;
  }
  std::vector<std::vector<int64_t>> out{{}};
  for (const ParamSpec& s : params.specs) {
    const std::vector<int64_t> vals = *param_values(s, limit);
    std::vector<std::vector<int64_t>> next;
    next.reserve(out.size() * vals.size());
    for (const auto& prefix : out)
      for (int64_t v : vals) {
        next.push_back(prefix);
        next.back().push_back(v);
      }
    out = std::move(next);
  }
  return out;
}

}  // namespace lp
