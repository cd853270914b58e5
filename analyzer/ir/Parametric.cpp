#include "analyzer/ir/Parametric.h"

#include "analyzer/ir/Checked.h"

namespace lp {

namespace {

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
    int64_t v = checked_add(checked_mul(u.coeff, values[u.param], "parameter term"), u.offset, "parameter term");
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
