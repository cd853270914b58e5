#include "rules/DeclaredAccess.h"

#include <fmt/format.h>

#include <algorithm>

#include "analyzer/ir/Checked.h"
#include "hw/Arch.h"
#include "solver/ParametricConflicts.h"

namespace lp::rules {

std::optional<SmemAccess> declared_access(const BufferGraph& graph, const annotate::AccessDecl& acc) {
  const annotate::BufferDecl* buf = graph.buffer(acc.buffer.text);
  if (!buf || !buf->layout || !buf->dtype) return std::nullopt;
  return declared_access(*buf, acc, buf->layout->parsed.layout, acc.lanes.parsed.layout);
}

SmemAccess declared_access(const annotate::BufferDecl& buf, const annotate::AccessDecl& acc, const Layout& smem,
                           const Layout& lanes) {
  const hw::Arch& arch = acc.arch ? *acc.arch : hw::default_arch();
  const int64_t align = buf.align ? buf.align->value : hw::kDefaultBaseAlignment;
  return SmemAccess(smem, buf.dtype->bits, lanes, *acc.instr, arch, align, acc.active ? acc.active->mask : hw::kAllLanes,
                    acc.element_offsets ? LaneValues::ElementOffsets : LaneValues::Coordinates);
}

std::optional<ParametricAccess> parametric_access(const BufferGraph& graph, const annotate::BufferDecl& buf,
                                                  const annotate::AccessDecl& acc) {
  const Parametric smem_params = graph.params_of(buf.layout->parsed), lane_params = graph.params_of(acc.lanes.parsed);
  std::vector<size_t> used;
  for (const Parametric* p : {&smem_params, &lane_params})
    for (const ParamUse& u : p->uses) used.insert(used.end(), u.term.params.begin(), u.term.params.end());
  if (used.empty()) return std::nullopt;
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  ParametricAccess out;
  for (size_t k = 0; k < used.size(); ++k) {
    out.specs.push_back(smem_params.specs[used[k]]);
    out.names += (k == 0 ? "" : k + 1 == used.size() ? " and " : ", ") + out.specs.back().name;
  }
  out.affine_in_strides = affine_stride_params(smem_params, lane_params, used);
  out.make = [&buf, &acc, smem_params, lane_params, used](const std::vector<int64_t>& values) {
    std::vector<int64_t> all;  // a parameter neither layout uses takes any value: its largest
    for (const ParamSpec& p : smem_params.specs) all.push_back(p.hi);
    for (size_t k = 0; k < used.size(); ++k) all[used[k]] = values[k];
    try {
      return declared_access(buf, acc, instantiate(buf.layout->parsed.layout, smem_params, all),
                             instantiate(acc.lanes.parsed.layout, lane_params, all));
    } catch (const AccessError&) {
      throw;
    } catch (const Error& e) {  // an instance the IR refuses (an overflow, a bad extent)
      throw AccessError(e.what());
    }
  };
  return out;
}

std::string ParametricAccess::label(const std::vector<int64_t>& values) const {
  std::string s;
  for (size_t k = 0; k < specs.size(); ++k) s += fmt::format("{}{}={}", k ? ", " : "", specs[k].name, values[k]);
  return s;
}

int64_t ParametricAccess::value_count() const {
  int64_t n = 1;
  for (const ParamSpec& p : specs) n = checked_mul(n, param_value_count(p), "parameter value count");
  return n;
}

}  // namespace lp::rules
