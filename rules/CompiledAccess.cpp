#include "rules/CompiledAccess.h"

namespace lp::rules {

SymbolicAccess symbolic_access(const ptx::CompiledModule& m, const ptx::KernelFacts& k, const ptx::AccessFact& a) {
  const ptx::Site& s = m.site(k, a);
  SymbolicAccess acc;
  acc.pool = &m.analysis.pool;
  acc.address = s.address;
  acc.active = s.active;
  acc.active_exact = s.active_exact;
  acc.instr = a.instr;
  acc.bytes = s.bytes;
  acc.address_lanes = a.instr ? hw::address_lane_count(*a.instr) : hw::kWarpLanes;
  acc.arch = m.arch;
  acc.base = s.symbol_base;
  acc.extent = s.extent;
  acc.free_extents = m.result(k).launch.ntid;
  acc.launches_stated = m.result(k).launch.stated;
  return acc;
}

void report_compiled(FindingSink& sink, const ptx::CompiledModule& m, const ptx::KernelFacts& k, const ptx::AccessFact& a,
                     Finding f) {
  f.compiled = {CompiledInstance{k.name, a.what, m.site(k, a).opcode, m.ptx->name, a.at.ptx_line}};
  sink.report_at(a.at.loc, std::move(f));
}

}  // namespace lp::rules
