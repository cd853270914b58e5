#include "solver/Params.h"

#include "analyzer/ir/Checked.h"

namespace lp {

std::vector<int64_t> param_values(const ParamSpec& p) {
  std::vector<int64_t> v;
  int64_t first = (p.lo + p.multiple - 1) / p.multiple * p.multiple;
  for (int64_t x = first; x <= p.hi; x += p.multiple) v.push_back(x);
  return v;
}

Layout instantiate(const Layout& instance, const Parametric& params, const std::vector<int64_t>& values) {
  LayoutParts p = instance.parts();
  for (const ParamUse& u : params.uses) {
    int64_t v = checked_mul(u.coeff, values[u.param], "parameter term");
    switch (u.field) {
      case ParamUse::Field::Extent: p.modes[u.mode].extent = v; break;
      case ParamUse::Field::Stride: p.modes[u.mode].stride[u.axis] = v; break;
      case ParamUse::Field::ReplicaExtent: p.replicas[u.mode].extent = v; break;
      case ParamUse::Field::ReplicaStride: p.replicas[u.mode].stride[u.axis] = v; break;
    }
  }
  return Layout::make(std::move(p));
}

std::optional<std::vector<std::vector<int64_t>>> all_param_values(const Parametric& params, int64_t limit) {
  std::vector<std::vector<int64_t>> out{{}};
  for (const ParamSpec& s : params.specs) {
    auto vals = param_values(s);
    if (vals.empty()) return std::vector<std::vector<int64_t>>{};
    if (static_cast<int64_t>(out.size()) > limit / static_cast<int64_t>(vals.size())) return std::nullopt;
    std::vector<std::vector<int64_t>> next;
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
