#include "rules/CompiledAccess.h"

#include <fmt/format.h>

#include <algorithm>

#include "rules/RuleSupport.h"

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
  return acc;
}

void witness_notes(const ptx::CompiledModule& m, const ptx::KernelFacts& k, const SymbolicWitness& w, Finding& f) {
  if (!w.uniforms.empty()) {
    std::string u;
    for (const auto& [name, value] : w.uniforms) u += fmt::format("{}{} = {}", u.empty() ? "" : ", ", k.shown_uniform(name), value);
    add_note(f, "with the uniform values " + u);
  }
  if (w.active != hw::kAllLanes) add_note(f, "active lanes: " + lanes_text(w.active));
  if (!m.arch_note.empty()) add_note(f, m.arch_note);
}

void mark_data_dependent(Finding& f) {
  f.data_dependent = true;
  add_note(f, "it depends on data the kernel loads, which no model of the code decides; `[gate] data-dependent` in "
              ".layoutproof.toml sets how such unknowns are reported, apart from other unknowns (docs/ptx.md)");
}

void state_the_launch(Finding& f) {
  add_note(f, "state the launch to decide it: `// layoutproof: launch block(X, Y, Z)` before the kernel, an entry of "
              "[ptx.launch] in .layoutproof.toml, or `check --launch 'KERNEL=block(X, Y, Z)'` (docs/ptx.md)");
}

bool is_free_extent(const ptx::LaunchVars& launch, term::VarId v) {
  return std::find(launch.ntid.begin(), launch.ntid.end(), std::optional<term::VarId>(v)) != launch.ntid.end();
}

RepresentativeWarps representative_warps(const ptx::CompiledModule& m, const ptx::KernelFacts& k,
                                         const std::vector<SymbolicAccess>& accesses,
                                         const std::map<term::VarId, int64_t>& given, hw::LaneMask wanted,
                                         size_t max_assignments) {
  const term::TermPool& pool = m.analysis.pool;
  const ptx::LaunchVars& launch = m.result(k).launch;
  std::map<term::VarId, int64_t> fixed = given;
  std::vector<std::pair<term::VarId, term::VarDomain>> searched;
  for (const SymbolicAccess& sa : accesses)
    for (term::VarId v : access_unknowns(sa)) {
      if (fixed.count(v) || sa.base == v ||
          std::any_of(searched.begin(), searched.end(), [&](const auto& s) { return s.first == v; }))
        continue;
      const term::VarDomain d = var_domain(sa, v);
      const bool free_extent = is_free_extent(launch, v);
      if (v == launch.warp || (free_extent && v != launch.ntid[0])) fixed[v] = static_cast<int64_t>(d.lo);
      else if (free_extent) fixed[v] = static_cast<int64_t>(std::min(d.hi, term::mask_of(pool.var(v).width)));
      else searched.emplace_back(v, d);
    }
  // Each searched unknown's candidates, aligned as its domain requires.
  std::vector<std::vector<int64_t>> candidates;
  size_t assignments = 1;
  for (const auto& [v, d] : searched) {
    const term::VarInfo& info = pool.var(v);
    const uint64_t lo = d.lo, hi = std::min(d.hi, term::mask_of(info.width));
    const uint64_t step = uint64_t{1} << std::min(d.align_log2, 63);
    std::vector<int64_t> c{static_cast<int64_t>(lo)};
    for (uint64_t x : {std::min(hi, term::mask_of(info.width) >> 1), hi}) {
      if (x < lo) continue;
      const auto aligned = static_cast<int64_t>(x - (x - lo) % step);
      if (std::find(c.begin(), c.end(), aligned) == c.end()) c.push_back(aligned);
    }
    if (assignments * c.size() > max_assignments) c.resize(1);  // past the cap: the lowest value only
    assignments *= c.size();
    candidates.push_back(std::move(c));
  }
  // The warps under `values`, and how many wanted lanes run them.
  auto evaluate = [&](std::map<std::string, int64_t> values) {
    std::pair<RepresentativeWarps, int> out{RepresentativeWarps{std::move(values), {}}, 0};
    for (const SymbolicAccess& sa : accesses) {
      std::map<std::string, int64_t> own;
      for (term::VarId v : access_unknowns(sa))
        if (auto it = out.first.values.find(pool.var(v).name); it != out.first.values.end()) own.insert(*it);
      out.first.warps.push_back(warp_at(sa, own));
      out.second += __builtin_popcount(out.first.warps.back().active & wanted);
    }
    return out;
  };
  const int all_wanted = __builtin_popcount(wanted) * static_cast<int>(accesses.size());
  RepresentativeWarps best;
  int best_active = -1;
  for (size_t combo = 0; combo < assignments && best_active < all_wanted; ++combo) {
    std::map<std::string, int64_t> values;
    for (const auto& [v, value] : fixed) values[pool.var(v).name] = value;
    for (size_t i = 0, rest = combo; i < searched.size(); ++i) {
      values[pool.var(searched[i].first).name] = candidates[i][rest % candidates[i].size()];
      rest /= candidates[i].size();
    }
    auto [warps, active] = evaluate(std::move(values));
    if (active > best_active) {
      best_active = active;
      best = std::move(warps);
    }
  }
  if (best_active == 0) {
    std::map<std::string, int64_t> lowest;
    for (const auto& [v, value] : given) lowest[pool.var(v).name] = value;
    auto [warps, active] = evaluate(std::move(lowest));
    if (active > 0) return std::move(warps);
  }
  return best;
}

void report_compiled(FindingSink& sink, const ptx::CompiledModule& m, const ptx::KernelFacts& k, const ptx::AccessFact& a,
                     Finding f, bool as_merged) {
  f.compiled = {as_merged && a.merged ? CompiledInstance{k.name, a.merged->what, a.merged->opcode, m.ptx->name, a.at.ptx_line}
                                      : CompiledInstance{k.name, a.what, m.site(k, a).opcode, m.ptx->name, a.at.ptx_line}};
  sink.report_at(a.at.loc, std::move(f));
}

}  // namespace lp::rules
