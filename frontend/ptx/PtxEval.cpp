#include "frontend/ptx/PtxEval.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "frontend/ptx/PtxKernelEval.h"
#include "analyzer/support/Governor.h"
#include "hw/BankModel.h"

namespace lp::ptx {

namespace detail {

namespace {

struct BudgetExceeded {
  size_t pos;
  std::string what;
};

}  // namespace

std::string line_of(const Module& m, size_t pos) { return std::to_string(line_col_of(*m.source, pos).first); }

void KernelEval::run() {
  setup_threads();
  try {
    State init;
    init.reach = thread_exists_;
    std::vector<State> returns;
    call_function(kernel_, init, returns, std::nullopt);
    const TermId assumption = finish_launch();
    for (Site& site : out_.sites) site.active = P_.bit_and(site.active, assumption);
  } catch (const BudgetExceeded& b) {
    out_.sites.clear();
    out_.issues.push_back(Issue{origin_at(b.pos, std::nullopt), b.what});
  } catch (const term::TermLimitError& e) {
    out_.sites.clear();
    out_.issues.push_back(Issue{origin_at(kernel_.pos, std::nullopt),
                                std::string("the kernel is too large to evaluate: ") + e.what()});
  } catch (const BudgetExhausted& e) {
    out_.sites.clear();
    out_.issues.push_back(Issue{origin_at(kernel_.pos, std::nullopt), std::string("the kernel was not analysed: ") + e.what()});
  }
}

// ---- threads of the block -------------------------------------------------------------------
bool KernelEval::reads_tid_yz(const Function& f, std::set<const Function*>& seen) {
  if (!seen.insert(&f).second) return false;
  for (const Instruction& ins : f.body) {
    for (const Operand& o : ins.operands) {
      std::function<bool(const Operand&)> uses = [&](const Operand& x) {
        if (x.kind == Operand::Kind::Register &&
            (x.name == "%tid.y" || x.name == "%tid.z" || x.name == "%ntid.y" || x.name == "%ntid.z"))
          return true;
        return std::any_of(x.elems.begin(), x.elems.end(), uses);
      };
      if (uses(o)) return true;
    }
    if (ins.parts[0] == "call")
      for (const Operand& o : ins.operands)
        if (o.kind == Operand::Kind::Symbol)
          if (const Function* g = m_.function(o.name); g && g->has_body && reads_tid_yz(*g, seen)) return true;
  }
  return false;
}

VarId KernelEval::uniform(const std::string& name, int width, uint64_t lo, uint64_t hi, int align_log2,
                          std::optional<std::string> approximated) {
  VarInfo v;
  v.name = name;
  v.kind = VarKind::Uniform;
  v.width = width;
  v.lo = lo;
  v.hi = hi;
  v.align_log2 = align_log2;
  v.over_approximated = approximated.has_value();
  v.reason = approximated.value_or("");
  const VarId id = P_.new_var(v);
  unkeyed_uniforms_.insert(id);
  return id;
}

VarId KernelEval::keyed_uniform(const std::string& key, const std::string& name, int width, uint64_t lo, uint64_t hi) {
  VarInfo v;
  v.name = name;
  v.kind = VarKind::Uniform;
  v.width = width;
  v.lo = lo;
  v.hi = hi;
  return P_.keyed_var(out_.name + "|" + key, v);
}

TermId KernelEval::opaque(const std::string& reason, int width, bool loaded_data) {
  VarInfo v;
  v.name = "?";
  v.kind = VarKind::Opaque;
  v.width = width;
  v.reason = reason;
  v.loaded_data = loaded_data;
  return P_.var_term(P_.new_var(v));
}

// ---- the launch ------------------------------------------------------------------------------
// Thread t = 32*warp + lane of the block's linear index exists when t < ntid.x*ntid.y*ntid.z.
// Every extent the kernel reads lies inside the hardware's limits (hw::LaunchLimits) and its own
// directives (.reqntid, .maxntid, .reqnctapercluster); stated launches (EvalOptions::launches)
// narrow the domain further. What is not fixed is a uniform unknown with its legal range, and
// the relations between unknowns (the block's size, ctaid < nctaid) are the launch assumption
// every site's activity carries (finish_launch).
int64_t KernelEval::product(const std::array<int64_t, 3>& d) { return d[0] * d[1] * d[2]; }

void KernelEval::setup_threads() {
  const hw::LaunchLimits& L = opt_.arch->launch;
  auto it = opt_.launches.find(kernel_.name);
  if (it != opt_.launches.end() && !it->second.empty()) stated_ = &it->second;
  // Each extent the kernel requires (.reqntid), or that every stated launch gives alike.
  std::array<std::optional<int64_t>, 3> fixed;
  std::array<bool, 3> given{false, false, false};  // some stated launch gives the extent
  for (size_t d = 0; d < 3; ++d) {
    if (kernel_.reqntid) fixed[d] = (*kernel_.reqntid)[d];
    else fixed[d] = common_stated([d](const KernelLaunch& l) { return l.block.extent[d]; });
    if (stated_)
      for (const KernelLaunch& l : *stated_) given[d] = given[d] || l.block.extent[d].has_value();
  }
  int64_t known = 1;  // the product of the fixed extents bounds the others
  for (const auto& e : fixed) known *= e.value_or(1);
  int64_t max_threads = L.max_threads_per_block;
  if (fixed[0] && fixed[1] && fixed[2]) max_threads = known;
  else if (kernel_.maxntid) max_threads = std::min(max_threads, product(*kernel_.maxntid));
  max_threads = std::clamp<int64_t>(max_threads, 1, int64_t{1} << 20);
  const int64_t warps = (max_threads + hw::kWarpLanes - 1) / hw::kWarpLanes;
  out_.launch.warp = uniform("warp", 32, 0, static_cast<uint64_t>(warps - 1));
  warp_ = P_.var_term(*out_.launch.warp);
  const TermId t = P_.add(P_.mul(warp_, P_.constant(hw::kWarpLanes, 32)), P_.lane());  // linear thread index
  std::set<const Function*> seen;
  // A stated launch may have rows or layers where it gives y or z above 1, or leaves them unknown.
  bool stated_multi_d = false;
  if (stated_)
    for (const KernelLaunch& l : *stated_)
      for (size_t d = 1; d < 3; ++d) stated_multi_d |= l.block.extent[d].value_or(2) > 1;
  // A block whose y and z every launch gives as 1 is one-dimensional; so is that of a kernel that
  // reads neither %tid.y/z nor %ntid.y/z, unless a launch says otherwise (docs/ptx.md, the launch
  // domain).
  const bool flat = fixed[1] == 1 && fixed[2] == 1;
  multi_d_ = !flat && (fixed[1].value_or(1) > 1 || fixed[2].value_or(1) > 1 || stated_multi_d || reads_tid_yz(kernel_, seen));
  out_.launch.one_dimensional = !multi_d_;
  launch_ok_ = P_.boolean(true);
  bool free = false;
  for (size_t d = 0; d < 3; ++d) {
    if (fixed[d] || (d > 0 && !multi_d_)) {
      ntid_[d] = P_.constant(static_cast<uint64_t>(fixed[d].value_or(1)), 32);
      continue;
    }
    const VarId v = uniform(std::string("ntid.") + "xyz"[d], 32, 1,
                            static_cast<uint64_t>(std::max<int64_t>(1, std::min(max_threads / known, L.max_block_dim[d]))));
    if (!given[d]) out_.launch.ntid[d] = v;
    ntid_[d] = P_.var_term(v);
    free = true;
  }
  // Each extent is at most 1024, so the product cannot wrap in 32 bits.
  if (free && multi_d_)
    launch_ok_ = P_.ule(P_.mul(P_.mul(ntid_[0], ntid_[1]), ntid_[2]), P_.constant(static_cast<uint64_t>(max_threads), 32));
  const TermId count = P_.mul(P_.mul(ntid_[0], ntid_[1]), ntid_[2]);
  thread_exists_ = P_.const_value(count) && *P_.const_value(count) % hw::kWarpLanes == 0 ? P_.boolean(true) : P_.ult(t, count);
  if (!multi_d_) {
    tid_ = {t, P_.constant(0, 32), P_.constant(0, 32)};
  } else {
    // tid.z as (t / ntid.x) / ntid.y (equal to t / (ntid.x*ntid.y)): the form in which a thread's
    // rank computed back from its coordinates folds to t (TermPool's Euclid identity).
    const TermId rows = P_.udiv(t, ntid_[0]);
    tid_ = {P_.urem(t, ntid_[0]), P_.urem(rows, ntid_[1]), P_.udiv(rows, ntid_[1])};
  }
  shared_window_ = P_.var_term(uniform("shared_window", 64, 0, ~uint64_t{0}));
  local_window_ = P_.var_term(uniform("local_window", 64, 0, ~uint64_t{0}));
}

/// A launch value (%ctaid, %nctaid, cluster registers, dynamic shared memory): a constant when the
/// kernel's directives or every stated launch fix it, else one uniform unknown per kernel.
TermId KernelEval::launch_value(const std::string& name, uint64_t lo, uint64_t hi, std::optional<int64_t> fixed) {
  auto it = launch_values_.find(name);
  if (it != launch_values_.end()) return it->second;
  const TermId v = fixed ? P_.constant(static_cast<uint64_t>(*fixed), 32) : P_.var_term(uniform(name, 32, lo, hi));
  launch_values_.emplace(name, v);
  return v;
}

std::optional<int64_t> KernelEval::stated_grid(size_t d) const {
  return common_stated([d](const KernelLaunch& l) {
    return l.grid ? std::optional<int64_t>((*l.grid)[d]) : std::nullopt;
  });
}

/// The dynamic shared memory of the launch, in bytes: the architecture's shared memory less the
/// kernel's static symbols at most.
TermId KernelEval::dynamic_smem() {
  const auto fixed = common_stated([](const KernelLaunch& l) { return l.dynamic_smem; });
  return launch_value("dynamic_smem", 0, static_cast<uint64_t>(std::max<int64_t>(0, opt_.arch->max_smem_bytes_per_block - static_smem_bytes())), fixed);
}

int64_t KernelEval::static_smem_bytes() const {
  int64_t total = 0;
  for (const SharedSymbol& s : m_.shared) total += s.bytes.value_or(0);
  for (const SharedSymbol& s : kernel_.shared) total += s.bytes.value_or(0);
  return total;
}

/// What an access to dynamic shared memory must stay inside: the launch's dynamic shared memory
/// when every stated launch gives it, else the most the architecture allows (an access past that
/// is wrong for every launch).
TermId KernelEval::dynamic_extent() {
  if (stated_ && std::all_of(stated_->begin(), stated_->end(), [](const KernelLaunch& l) { return l.dynamic_smem.has_value(); }))
    return dynamic_smem();
  return P_.constant(static_cast<uint64_t>(opt_.arch->max_smem_bytes_per_block), 32);
}

TermId KernelEval::relation(TermPool& P, TermId v, ParamFact::Relation r, int64_t value) {
  const int w = P.width(v);
  const TermId c = P.constant(static_cast<uint64_t>(value) & term::mask_of(w), w);
  switch (r) {
    case ParamFact::Relation::Eq: return P.eq(v, c);
    case ParamFact::Relation::Ne: return P.ne(v, c);
    case ParamFact::Relation::Lt: return P.slt(v, c);
    case ParamFact::Relation::Le: return P.sle(v, c);
    case ParamFact::Relation::Gt: return P.slt(c, v);
    case ParamFact::Relation::Ge: return P.sle(c, v);
    case ParamFact::Relation::MultipleOf: return P.eq(P.srem(v, c), P.constant(0, w));
  }
  return P.boolean(true);
}

/// The launch assumption: the block's size within its limit, each block index below its count,
/// and one of the stated launches. Every site's activity carries it, so no engine and no witness
/// can leave the launch domain.
TermId KernelEval::finish_launch() {
  TermId a = launch_ok_;
  auto value = [&](const std::string& name) -> std::optional<TermId> {
    auto it = launch_values_.find(name);
    return it == launch_values_.end() ? std::nullopt : std::optional<TermId>(it->second);
  };
  for (const char* pair : {"ctaid", "cluster_ctaid"}) {
    for (const char d : {'x', 'y', 'z'}) {
      const auto id = value(fmt::format("{}.{}", pair, d)), count = value(fmt::format("n{}.{}", pair, d));
      if (id && count) a = P_.bit_and(a, P_.ult(*id, *count));
    }
  }
  if (auto rank = value("cluster_ctarank"), n = value("cluster_nctarank"); rank && n) a = P_.bit_and(a, P_.ult(*rank, *n));
  // A cluster has at most max_cluster_ctas CTAs in all (the extents the kernel reads multiply to
  // at most that), and, with all three read, its rank count is x*y*z. Each extent is at most
  // that many, so the product cannot wrap in 32 bits.
  if (const int64_t most = opt_.arch->launch.max_cluster_ctas; most > 0) {
    TermId ctas = P_.constant(1, 32);
    int read = 0;
    for (const char d : {'x', 'y', 'z'})
      if (auto n = value(fmt::format("cluster_nctaid.{}", d))) ctas = P_.mul(ctas, *n), ++read;
    a = P_.bit_and(a, P_.ule(ctas, P_.constant(static_cast<uint64_t>(most), 32)));
    if (auto n = value("cluster_nctarank"); n && read == 3) a = P_.bit_and(a, P_.eq(*n, ctas));
  }
  if (!stated_) return a;
  TermId any = P_.boolean(false);
  for (const KernelLaunch& l : *stated_) {
    TermId c = P_.boolean(true);
    if (!kernel_.reqntid)
      for (size_t d = 0; d < 3; ++d)
        if (const auto e = l.block.extent[d]) c = P_.bit_and(c, P_.eq(ntid_[d], P_.constant(static_cast<uint64_t>(*e), 32)));
    if (l.grid)
      for (size_t d = 0; d < 3; ++d)
        if (auto n = value(fmt::format("nctaid.{}", "xyz"[d])))
          c = P_.bit_and(c, P_.eq(*n, P_.constant(static_cast<uint64_t>((*l.grid)[d]), 32)));
    if (l.dynamic_smem)
      if (auto dyn = value("dynamic_smem")) c = P_.bit_and(c, P_.eq(*dyn, P_.constant(static_cast<uint64_t>(*l.dynamic_smem), 32)));
    for (const ParamFact& f : l.params)
      for (const auto& [key, v] : param_values_)
        if (key.first == f.param) c = P_.bit_and(c, relation(P_, v, f.relation, f.value));
    any = P_.bit_or(any, c);
  }
  return P_.bit_and(a, any);
}

TermId KernelEval::special(const std::string& name, size_t pos) {
  const auto comp = [&](const std::string& base) -> int {
    if (name == base + ".x") return 0;
    if (name == base + ".y") return 1;
    if (name == base + ".z") return 2;
    return -1;
  };
  const hw::LaunchLimits& L = opt_.arch->launch;
  // The fourth element of a .v4 special register is unused and reads 0 (PTX ISA, chapter 10).
  if (name.size() > 2 && name.compare(name.size() - 2, 2, ".w") == 0) return P_.constant(0, 32);
  if (int k = comp("%tid"); k >= 0) return tid_[static_cast<size_t>(k)];
  if (int k = comp("%ntid"); k >= 0) return ntid_[static_cast<size_t>(k)];
  if (int k = comp("%ctaid"); k >= 0)
    return launch_value(name.substr(1), 0, static_cast<uint64_t>(L.max_grid_dim[static_cast<size_t>(k)] - 1),
                        stated_grid(static_cast<size_t>(k)) == 1 ? std::optional<int64_t>(0) : std::nullopt);
  if (int k = comp("%nctaid"); k >= 0)
    return launch_value(name.substr(1), 1, static_cast<uint64_t>(L.max_grid_dim[static_cast<size_t>(k)]),
                        stated_grid(static_cast<size_t>(k)));
  if (int k = comp("%cluster_nctaid"); k >= 0) {
    const auto& req = kernel_.reqnctapercluster;
    return launch_value(name.substr(1), 1, static_cast<uint64_t>(std::max<int64_t>(1, L.max_cluster_ctas)),
                        req ? std::optional<int64_t>((*req)[static_cast<size_t>(k)])
                            : L.max_cluster_ctas == 0 ? std::optional<int64_t>(1) : std::nullopt);
  }
  if (int k = comp("%cluster_ctaid"); k >= 0)
    return launch_value(name.substr(1), 0, static_cast<uint64_t>(std::max<int64_t>(1, L.max_cluster_ctas) - 1),
                        L.max_cluster_ctas == 0 ? std::optional<int64_t>(0) : std::nullopt);
  if (name == "%cluster_nctarank") {
    const auto& req = kernel_.reqnctapercluster;
    return launch_value("cluster_nctarank", 1, static_cast<uint64_t>(std::max<int64_t>(1, L.max_cluster_ctas)),
                        req ? std::optional<int64_t>(product(*req))
                            : L.max_cluster_ctas == 0 ? std::optional<int64_t>(1) : std::nullopt);
  }
  if (name == "%cluster_ctarank")
    return launch_value("cluster_ctarank", 0, static_cast<uint64_t>(std::max<int64_t>(1, L.max_cluster_ctas) - 1),
                        L.max_cluster_ctas == 0 ? std::optional<int64_t>(0) : std::nullopt);
  if (name == "%dynamic_smem_size") return dynamic_smem();
  if (name == "%laneid") return P_.lane();
  const TermId one = P_.constant(1, 32);
  if (name == "%lanemask_eq") return P_.shl(one, P_.lane());
  if (name == "%lanemask_lt") return P_.sub(P_.shl(one, P_.lane()), one);
  if (name == "%lanemask_le") return P_.sub(P_.shl(P_.constant(2, 32), P_.lane()), one);
  if (name == "%lanemask_ge") return P_.bit_not(P_.sub(P_.shl(one, P_.lane()), one));
  if (name == "%lanemask_gt") return P_.bit_not(P_.sub(P_.shl(P_.constant(2, 32), P_.lane()), one));
  if (name.rfind("%clock", 0) == 0 || name.rfind("%globaltimer", 0) == 0 || name.rfind("%pm", 0) == 0)
    return opaque(fmt::format("{} (line {}) differs between lanes and runs", name, line_of(m_, pos)), 64);
  if (name == "%warpid" || name == "%smid")  // may change during the kernel: a fresh value per read
    return P_.var_term(uniform(name.substr(1) + "@" + line_of(m_, pos), 32, 0, 0xffffffffu));
  // The reserved region's registers where the architecture's region is known (hw::Arch): _begin is
  // 0 and _cap its size, as ptxas writes them; _end and the offsets _0 and _1 lie inside it.
  const uint64_t reserved = static_cast<uint64_t>(opt_.arch->reserved_smem_bytes);
  const bool in_reserved = reserved > 0 && name.rfind("%reserved_smem_offset_", 0) == 0;
  if (in_reserved && name == "%reserved_smem_offset_begin") return P_.constant(0, 32);
  if (in_reserved && name == "%reserved_smem_offset_cap") return P_.constant(reserved, 32);
  // The others, and other special registers (%envreg*, %gridid, ...): one uniform per kernel, at a
  // value the model does not know (so a witness that needs one of them is not a refutation).
  auto it = launch_values_.find(name);
  if (it != launch_values_.end()) return it->second;
  VarId v;
  if (!in_reserved) {
    v = uniform(name.substr(1), 64, 0, ~uint64_t{0}, 0, fmt::format("a value of the special register {} the model does not bound", name));
  } else {
    const bool end = name == "%reserved_smem_offset_end";
    const uint64_t align = end ? 1 : static_cast<uint64_t>(hw::kReservedSmemOffsetAlignment);
    v = uniform(name.substr(1), 32, 0, reserved - (end ? 0 : align), __builtin_ctzll(align),
                fmt::format("a value of {}, which the driver chooses inside the {} bytes the system reserves", name, reserved));
  }
  return launch_values_.emplace(name, P_.var_term(v)).first->second;
}

// ---- calls: the callee's body evaluated in place (inlined) ----
void KernelEval::call(const Frame&, State& s, const Instruction& ins, std::optional<TermId> guard) {
  std::vector<const Operand*> lists;
  const Operand* callee = nullptr;
  for (const Operand& o : ins.operands) {
    if (o.kind == Operand::Kind::List) lists.push_back(&o);
    else if (!callee && (o.kind == Operand::Kind::Symbol || o.kind == Operand::Kind::Register)) callee = &o;
  }
  const Operand* rets = nullptr;
  const Operand* args = nullptr;
  if (callee) {
    for (const Operand* l : lists) (l->pos < callee->pos ? rets : args) = l;
  }
  const Function* g = callee && callee->kind == Operand::Kind::Symbol ? m_.function(callee->name) : nullptr;
  std::string problem;
  if (!g || !g->has_body) problem = "a call to a function whose body is not in this module (or an indirect call)";
  else if (std::any_of(stack_.begin(), stack_.end(), [&](const Frame& f) { return f.fn == g; })) problem = "a recursive call";
  else if (static_cast<int>(stack_.size()) > opt_.max_call_depth) problem = "calls nested too deeply";
  if (!problem.empty()) {
    if (probing_ == 0)
      out_.issues.push_back(Issue{origin_at(ins.pos, ins.debug_loc),
                                  problem + ": the shared-memory accesses it makes are not analysed"});
    if (rets)
      for (const Operand& r : rets->elems)
        for (auto it = s.params.begin(); it != s.params.end();)
          it = it->first.first == r.name ? s.params.erase(it) : std::next(it);
    return;
  }
  State callee_state;
  callee_state.reach = guard ? P_.bit_and(s.reach, *guard) : s.reach;
  callee_state.exact = s.exact;
  if (args)
    for (size_t k = 0; k < args->elems.size() && k < g->params.size(); ++k)
      for (const auto& [key, v] : s.params)
        if (key.first == args->elems[k].name) callee_state.params[{g->params[k].name, key.second}] = v;
  std::vector<State> returns;
  call_function(*g, callee_state, returns, std::pair{ins.pos, ins.debug_loc});
  if (returns.empty() || !rets) return;
  State merged = merge(returns);
  for (size_t k = 0; k < rets->elems.size() && k < g->returns.size(); ++k)
    for (const auto& [key, v] : merged.params)
      if (key.first == g->returns[k].name) s.params[{rets->elems[k].name, key.second}] = v;
}

const Cfg& KernelEval::cfg_of(const Function& f) {
  auto it = cfgs_.find(&f);
  if (it == cfgs_.end()) it = cfgs_.emplace(&f, build_cfg(f)).first;
  return it->second;
}

void KernelEval::call_function(const Function& f, State entry, std::vector<State>& returns,
                               std::optional<std::pair<size_t, std::optional<size_t>>> call_site) {
  const Cfg& cfg = cfg_of(f);
  if (cfg.problem) {
    if (probing_ == 0) out_.issues.push_back(Issue{origin_at(cfg.problem->first, std::nullopt), cfg.problem->second +
                                                   ": the function's shared-memory accesses are not analysed"});
    return;
  }
  if (cfg.blocks.empty()) {
    returns.push_back(entry);
    return;
  }
  entry.regs.assign(cfg.reg_bits.size(), kUnset);
  stack_.push_back(Frame{&f, &cfg, call_site ? std::optional<size_t>(call_site->first) : std::nullopt,
                         call_site ? call_site->second : std::nullopt});
  std::vector<State> saved_returns;
  std::swap(saved_returns, returns_);
  RegionOut out;
  run_region(std::nullopt, std::move(entry), out);
  std::swap(saved_returns, returns_);
  for (State& r : saved_returns) returns.push_back(std::move(r));
  stack_.pop_back();
}

// ---- control flow ----
State KernelEval::merge(std::vector<State>& in) {
  if (in.size() == 1) return in[0];
  State out = in.back();
  for (size_t k = in.size() - 1; k-- > 0;) {
    const State& e = in[k];
    out.reach = P_.bit_or(e.reach, out.reach);
    out.exact = out.exact && e.exact;
    for (size_t r = 0; r < out.regs.size(); ++r) {
      const TermId v = e.regs[r];
      if (v == kUnset || v == out.regs[r]) continue;
      out.regs[r] = out.regs[r] == kUnset ? v : P_.ite(e.reach, v, out.regs[r]);
    }
    for (const auto& [key, v] : e.params) {
      auto it = out.params.find(key);
      if (it == out.params.end()) out.params.emplace(key, v);
      else if (it->second != v && P_.width(it->second) == P_.width(v)) it->second = P_.ite(e.reach, v, it->second);
    }
  }
  return out;
}

void KernelEval::step(size_t pos) {
  checkpoint();  // the run's time and memory budget
  if (++steps_ > opt_.max_steps)
    throw BudgetExceeded{pos, fmt::format("the kernel needs more than {} instruction evaluations (loops and inlined calls "
                                          "included); it is not analysed", opt_.max_steps)};
}

template <class Deliver>
void KernelEval::exec_block(const Frame& fr, int b, State s, Deliver&& deliver) {
  const Function& f = *fr.fn;
  const Block& blk = fr.cfg->blocks[static_cast<size_t>(b)];
  for (size_t i = blk.begin; i < blk.end; ++i) {
    const Instruction& ins = f.body[i];
    step(ins.pos);
    if (P_.const_value(s.reach) == 0) return;  // no lane gets here
    const std::string& op = ins.parts[0];
    if (op == "bra") {
      const Operand* target = nullptr;
      for (const Operand& o : ins.operands)
        if (o.kind == Operand::Kind::Symbol) target = &o;
      const int t = fr.cfg->block_of[f.labels.at(target->name)];
      if (ins.guard) {
        const TermId g = get(fr, s, *ins.guard, 1);
        State taken = s;
        taken.reach = P_.bit_and(s.reach, g);
        if (P_.const_value(taken.reach) != 0) deliver(t, std::move(taken));
        s.reach = P_.bit_and(s.reach, P_.bit_not(g));
        break;
      }
      deliver(t, std::move(s));
      return;
    }
    if (ends_lane(op)) {
      State done = s;
      if (ins.guard) {
        const TermId g = get(fr, s, *ins.guard, 1);
        done.reach = P_.bit_and(s.reach, g);
        s.reach = P_.bit_and(s.reach, P_.bit_not(g));
      }
      if (probing_ == 0 && op == "ret") returns_.push_back(std::move(done));
      if (!ins.guard) return;
      break;
    }
    try {
      exec(fr, s, ins);
    } catch (const term::TermLimitError& e) {
      // The instruction's result is too large to keep: unknown from here on.
      if (writes_first_operand(ins))
        set_unknown(fr, s, ins.operands[0], false, fmt::format("{} (line {}) builds a term past the limits: {}", ins.opcode,
                                                               line_of(m_, ins.pos), e.what()),
                    std::nullopt);
    }
  }
  if (P_.const_value(s.reach) == 0) return;
  if (static_cast<size_t>(b + 1) < fr.cfg->blocks.size()) deliver(b + 1, std::move(s));
}

// The blocks of the function (no loop) or of one loop's body, in reverse post-order; inner
// loops are evaluated as units where their header comes.
void KernelEval::run_region(std::optional<int> loop, State header_state, RegionOut& out) {
  const Frame& fr = stack_.back();
  const Cfg& cfg = *fr.cfg;
  const std::vector<int>& order = !loop ? cfg.rpo : cfg.loops[static_cast<size_t>(*loop)].blocks_rpo;
  const int header = !loop ? 0 : cfg.loops[static_cast<size_t>(*loop)].header;
  std::map<int, std::vector<State>> incoming;
  auto in_region = [&](int b) { return !loop || cfg.loops[static_cast<size_t>(*loop)].contains[static_cast<size_t>(b)]; };
  if (!loop) incoming[0].push_back(std::move(header_state));
  auto deliver = [&](int t, State st) {
    if (loop && t == header) out.latches.push_back(std::move(st));
    else if (in_region(t)) incoming[t].push_back(std::move(st));
    else out.exits.emplace_back(t, std::move(st));
  };
  for (int b : order) {
    // The loop directly inside this region that holds b, if any.
    std::optional<int> child = cfg.innermost[static_cast<size_t>(b)];
    while (child && cfg.loops[static_cast<size_t>(*child)].parent != loop) child = cfg.loops[static_cast<size_t>(*child)].parent;
    if (child && child != loop) {
      if (b != cfg.loops[static_cast<size_t>(*child)].header) continue;
      auto it = incoming.find(b);
      if (it == incoming.end() || it->second.empty()) continue;
      std::vector<State> entries = std::move(it->second);
      incoming.erase(it);
      std::vector<std::pair<int, State>> exits;
      process_loop(*child, entries, exits);
      for (auto& [t, st] : exits) deliver(t, std::move(st));
      continue;
    }
    State s;
    if (loop && b == header) {
      s = std::move(header_state);
    } else {
      auto it = incoming.find(b);
      if (it == incoming.end() || it->second.empty()) continue;
      s = merge(it->second);
      incoming.erase(it);
    }
    exec_block(fr, b, std::move(s), deliver);
  }
}

}  // namespace detail

void analyze(const Module& module, const EvalOptions& options, Analysis& out) {
  std::set<std::string> called;
  for (const Function& f : module.functions)
    for (const Instruction& ins : f.body)
      if (ins.parts[0] == "call")
        for (const Operand& o : ins.operands)
          if (o.kind == Operand::Kind::Symbol) called.insert(o.name);
  for (const Function& f : module.functions) {
    if (!f.has_body || (!f.is_entry && called.count(f.name))) continue;
    if (options.only && !options.only->count(f.name)) continue;
    KernelResult k;
    k.name = f.name;
    k.pos = f.pos;
    detail::KernelEval(module, f, !f.is_entry, options, out.pool, k).run();
    out.kernels.push_back(std::move(k));
  }
}

}  // namespace lp::ptx
