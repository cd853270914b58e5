#include "rules/DeclaredAccess.h"

#include "hw/Arch.h"

namespace lp::rules {

std::optional<SmemAccess> declared_access(const BufferGraph& graph, const annotate::AccessDecl& acc) {
  const annotate::BufferDecl* buf = graph.buffer(acc.buffer.text);
  if (!buf || !buf->layout || !buf->dtype) return std::nullopt;
  const hw::Arch& arch = acc.arch ? *acc.arch : hw::default_arch();
  const int64_t align = buf->align ? buf->align->value : hw::kDefaultBaseAlignment;
  return SmemAccess(buf->layout->parsed.layout, buf->dtype->bits, acc.lanes.parsed.layout, *acc.instr, arch, align,
                    acc.active ? acc.active->mask : hw::kAllLanes);
}

}  // namespace lp::rules
