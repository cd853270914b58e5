#include "analyzer/ptx/PtxEval.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <set>

#include "analyzer/ptx/PtxCfg.h"
#include "analyzer/support/Governor.h"
#include "hw/BankModel.h"

namespace lp::ptx {

using term::TermId;
using term::TermPool;
using term::VarId;
using term::VarInfo;
using term::VarKind;

namespace {

constexpr TermId kUnset = ~TermId{0};

struct BudgetExceeded {
  size_t pos;
  std::string what;
};

/// The values one lane holds at a program point, and whether the lane gets there.
struct State {
  std::vector<TermId> regs;
  TermId reach = 0;
  bool exact = true;  ///< reach is not over-approximated
  std::map<std::pair<std::string, int64_t>, TermId> params;  ///< the .param space (call sequences)
};

struct RegionOut {
  std::vector<std::pair<int, State>> exits;
  std::vector<State> latches;
};

std::optional<RegType> type_part(const std::string& part) { return parse_type("." + part); }

// The instruction's operation type: its last component that is a type (".u32" in add.s32? no:
// the last one), e.g. ld.shared.v4.u32 -> .u32.
std::optional<RegType> op_type(const Instruction& ins) {
  for (auto it = ins.parts.rbegin(); it != ins.parts.rend(); ++it)
    if (auto t = type_part(*it)) return t;
  return std::nullopt;
}

bool is_signed(const RegType& t) { return t.name.size() > 1 && t.name[1] == 's'; }

int vector_count(const Instruction& ins) {
  if (ins.has("v2")) return 2;
  if (ins.has("v4")) return 4;
  if (ins.has("v8")) return 8;
  return 1;
}

// Instructions whose result is a function of their operands only: uniform operands give a
// uniform result, even where the operation itself is not modelled.
bool pure_operation(const std::string& op) {
  static const std::set<std::string> kPure = {
      "abs", "add", "sub", "mul", "mad", "fma", "div", "rem", "min", "max", "neg", "sqrt", "rsqrt", "rcp", "sin",
      "cos", "lg2", "ex2", "tanh", "cvt", "set", "setp", "selp", "slct", "and", "or", "xor", "not", "cnot", "popc",
      "clz", "brev", "bfind", "bfe", "bfi", "prmt", "shl", "shr", "shf", "lop3", "testp", "copysign", "fns", "dp4a",
      "dp2a", "sad", "mul24", "mad24", "bmsk", "szext", "mov", "cvta", "vabsdiff", "vadd", "vsub", "vmad", "vmax",
      "vmin", "vset", "vshl", "vshr", "vabsdiff2", "vabsdiff4", "vadd2", "vadd4", "vavrg2", "vavrg4", "vmax2", "vmax4",
      "vmin2", "vmin4", "vset2", "vset4", "vsub2", "vsub4", "movmatrix"};
  return kPure.count(op) != 0;
}

std::string line_of(const Module& m, size_t pos) { return std::to_string(line_col_of(*m.source, pos).first); }

class KernelEval {
 public:
  KernelEval(const Module& m, const Function& kernel, bool standalone, const EvalOptions& opt, TermPool& pool,
             KernelResult& out)
      : m_(m), kernel_(kernel), standalone_(standalone), opt_(opt), P_(pool), out_(out) {}

  void run() {
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

 private:
  struct Frame {
    const Function* fn;
    const Cfg* cfg;
    std::optional<size_t> call_pos;  ///< the PTX offset of the call that entered; none for the kernel
    std::optional<size_t> call_loc;
  };

  // ---- threads of the block -------------------------------------------------------------------
  bool reads_tid_yz(const Function& f, std::set<const Function*>& seen) {
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

  VarId uniform(const std::string& name, int width, uint64_t lo, uint64_t hi, int align_log2 = 0,
                std::optional<std::string> approximated = std::nullopt) {
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
  VarId keyed_uniform(const std::string& key, const std::string& name, int width, uint64_t lo, uint64_t hi) {
    VarInfo v;
    v.name = name;
    v.kind = VarKind::Uniform;
    v.width = width;
    v.lo = lo;
    v.hi = hi;
    return P_.keyed_var(out_.name + "|" + key, v);
  }
  TermId opaque(const std::string& reason, int width, bool loaded_data = false) {
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
  static int64_t product(const std::array<int64_t, 3>& d) { return d[0] * d[1] * d[2]; }

  /// The value every stated launch gives to `part`, when they all state the same one.
  template <class Part>
  auto common_stated(Part&& part) const -> std::optional<std::decay_t<decltype(*part(std::declval<const KernelLaunch&>()))>> {
    if (!stated_ || stated_->empty()) return std::nullopt;
    const auto first = part(stated_->front());
    if (!first) return std::nullopt;
    for (const KernelLaunch& l : *stated_)
      if (part(l) != first) return std::nullopt;
    return *first;
  }

  void setup_threads() {
    const hw::LaunchLimits& L = opt_.arch->launch;
    auto it = opt_.launches.find(kernel_.name);
    if (it != opt_.launches.end() && !it->second.empty()) stated_ = &it->second;
    out_.launch.stated = stated_ != nullptr;
    const auto& req = kernel_.reqntid;
    // A block the kernel requires (.reqntid), or the one block every stated launch gives.
    std::optional<std::array<int64_t, 3>> block = req;
    if (!block) block = common_stated([](const KernelLaunch& l) { return l.block; });
    int64_t max_threads = L.max_threads_per_block;
    if (block) max_threads = product(*block);
    else if (kernel_.maxntid) max_threads = std::min(max_threads, product(*kernel_.maxntid));
    max_threads = std::clamp<int64_t>(max_threads, 1, int64_t{1} << 20);
    const int64_t warps = (max_threads + hw::kWarpLanes - 1) / hw::kWarpLanes;
    out_.launch.warp = uniform("warp", 32, 0, static_cast<uint64_t>(warps - 1));
    warp_ = P_.var_term(*out_.launch.warp);
    const TermId t = P_.add(P_.mul(warp_, P_.constant(hw::kWarpLanes, 32)), P_.lane());  // linear thread index
    std::set<const Function*> seen;
    bool stated_multi_d = false;
    if (stated_)
      for (const KernelLaunch& l : *stated_) stated_multi_d |= l.block && ((*l.block)[1] > 1 || (*l.block)[2] > 1);
    // A kernel that reads neither %tid.y/z nor %ntid.y/z is launched with a one-dimensional block
    // unless a launch says otherwise (docs/ptx.md, the launch domain).
    multi_d_ = (block && ((*block)[1] > 1 || (*block)[2] > 1)) || stated_multi_d || reads_tid_yz(kernel_, seen);
    out_.launch.one_dimensional = !multi_d_;
    launch_ok_ = P_.boolean(true);
    if (block) {
      for (size_t d = 0; d < 3; ++d) ntid_[d] = P_.constant(static_cast<uint64_t>((*block)[d]), 32);
    } else {
      for (size_t d = 0; d < 3; ++d) {
        if (d > 0 && !multi_d_) {
          ntid_[d] = P_.constant(1, 32);
          continue;
        }
        const VarId v = uniform(std::string("ntid.") + "xyz"[d], 32, 1,
                                static_cast<uint64_t>(std::min(max_threads, L.max_block_dim[d])));
        out_.launch.ntid[d] = v;
        ntid_[d] = P_.var_term(v);
      }
      // Each extent is at most 1024, so the product cannot wrap in 32 bits.
      if (multi_d_)
        launch_ok_ = P_.ule(P_.mul(P_.mul(ntid_[0], ntid_[1]), ntid_[2]), P_.constant(static_cast<uint64_t>(max_threads), 32));
    }
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
  TermId launch_value(const std::string& name, uint64_t lo, uint64_t hi, std::optional<int64_t> fixed = std::nullopt) {
    auto it = launch_values_.find(name);
    if (it != launch_values_.end()) return it->second;
    const TermId v = fixed ? P_.constant(static_cast<uint64_t>(*fixed), 32) : P_.var_term(uniform(name, 32, lo, hi));
    launch_values_.emplace(name, v);
    return v;
  }

  std::optional<int64_t> stated_grid(size_t d) const {
    return common_stated([d](const KernelLaunch& l) {
      return l.grid ? std::optional<int64_t>((*l.grid)[d]) : std::nullopt;
    });
  }

  /// The dynamic shared memory of the launch, in bytes: the architecture's shared memory less the
  /// kernel's static symbols at most.
  TermId dynamic_smem() {
    const auto fixed = common_stated([](const KernelLaunch& l) { return l.dynamic_smem; });
    return launch_value("dynamic_smem", 0, static_cast<uint64_t>(std::max<int64_t>(0, opt_.arch->max_smem_bytes_per_block - static_smem_bytes())), fixed);
  }

  int64_t static_smem_bytes() const {
    int64_t total = 0;
    for (const SharedSymbol& s : m_.shared) total += s.bytes.value_or(0);
    for (const SharedSymbol& s : kernel_.shared) total += s.bytes.value_or(0);
    return total;
  }

  /// What an access to dynamic shared memory must stay inside: the launch's dynamic shared memory
  /// when every stated launch gives it, else the most the architecture allows (an access past that
  /// is wrong for every launch).
  TermId dynamic_extent() {
    if (stated_ && std::all_of(stated_->begin(), stated_->end(), [](const KernelLaunch& l) { return l.dynamic_smem.has_value(); }))
      return dynamic_smem();
    return P_.constant(static_cast<uint64_t>(opt_.arch->max_smem_bytes_per_block), 32);
  }

  static TermId relation(TermPool& P, TermId v, ParamFact::Relation r, int64_t value) {
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
  TermId finish_launch() {
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
      if (l.block && !kernel_.reqntid)
        for (size_t d = 0; d < 3; ++d) c = P_.bit_and(c, P_.eq(ntid_[d], P_.constant(static_cast<uint64_t>((*l.block)[d]), 32)));
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

  TermId special(const std::string& name, size_t pos) {
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

  // ---- symbols ----
  TermId shared_base(const SharedSymbol& s) {
    const int align_log2 = std::min(63, __builtin_ctzll(static_cast<uint64_t>(std::max<int64_t>(1, s.align))));
    const uint64_t room = static_cast<uint64_t>(std::max<int64_t>(0, opt_.arch->max_smem_bytes_per_block - s.bytes.value_or(0)));
    VarInfo v;
    v.name = s.name;
    v.kind = VarKind::Uniform;
    v.width = 32;
    v.lo = 0;
    v.hi = std::max<uint64_t>(room, 0);
    v.align_log2 = align_log2;
    // Placed by the cubin: one value, aligned as far as its low zero bits go (what the residue
    // enumeration and the alignment proofs read from a variable).
    if (auto k = opt_.placement.find(out_.name); k != opt_.placement.end())
      if (auto placed = k->second.find(s.name); placed != k->second.end()) {
        v.lo = v.hi = placed->second;
        v.align_log2 = placed->second == 0 ? 31 : std::min(31, __builtin_ctzll(placed->second));
      }
    const VarId id = P_.keyed_var(out_.name + "|smem|" + s.name, v);
    symbols_[id] = &s;
    return P_.var_term(id);
  }

  TermId symbol_address(const Frame& fr, const Operand& o, int width) {
    if (o.name == kWarpSizeIdentifier) return P_.constant(hw::kWarpLanes, width);
    TermId base;
    if (const SharedSymbol* s = m_.shared_symbol(*fr.fn, o.name)) base = P_.resize(shared_base(*s), width);
    else base = P_.var_term(keyed_uniform("&" + o.name, "&" + o.name, width, 0, term::mask_of(width)));
    return P_.add(base, P_.constant(static_cast<uint64_t>(o.offset), width));
  }

  // ---- operands ----
  int reg_bits(const Frame& fr, const std::string& name) const {
    auto it = fr.cfg->reg_index.find(name);
    return it == fr.cfg->reg_index.end() ? 32 : fr.cfg->reg_bits[static_cast<size_t>(it->second)];
  }

  TermId read_reg(const Frame& fr, State& s, const std::string& name, size_t pos) {
    auto it = fr.cfg->reg_index.find(name);
    if (it == fr.cfg->reg_index.end()) return special(name, pos);
    TermId& v = s.regs[static_cast<size_t>(it->second)];
    if (v == kUnset)
      v = opaque(fmt::format("{} is read before it is written (line {})", name, line_of(m_, pos)),
                 fr.cfg->reg_bits[static_cast<size_t>(it->second)]);
    return v;
  }

  /// The value of a source operand at `width` bits (sign-extended when `sign` and wider).
  TermId get(const Frame& fr, State& s, const Operand& o, int width, bool sign = false) {
    TermId v;
    switch (o.kind) {
      case Operand::Kind::Register: {
        v = read_reg(fr, s, o.name, o.pos);
        if (P_.width(v) < width && sign) v = P_.sext(v, width);
        v = P_.resize(v, width);
        if (o.negated) v = P_.bit_not(v);
        return v;
      }
      case Operand::Kind::Immediate: return P_.constant(o.imm, width);
      case Operand::Kind::Symbol: return symbol_address(fr, o, width);
      case Operand::Kind::Vector: {
        if (o.elems.empty()) break;
        const int ew = std::max(1, width / static_cast<int>(o.elems.size()));
        TermId acc = P_.constant(0, width);
        for (size_t k = 0; k < o.elems.size(); ++k) {
          const TermId e = P_.zext(get(fr, s, o.elems[k], ew), width);
          acc = P_.bit_or(acc, P_.shl(e, P_.constant(static_cast<uint64_t>(ew) * k, width)));
        }
        return acc;
      }
      default: break;
    }
    return opaque(fmt::format("operand at line {} is not a value", line_of(m_, o.pos)), width);
  }

  void set_reg(const Frame& fr, State& s, const std::string& name, TermId v, std::optional<TermId> guard) {
    auto it = fr.cfg->reg_index.find(name);
    if (it == fr.cfg->reg_index.end()) return;
    TermId& slot = s.regs[static_cast<size_t>(it->second)];
    v = P_.resize(v, fr.cfg->reg_bits[static_cast<size_t>(it->second)]);
    if (guard && slot != kUnset) v = P_.ite(*guard, v, slot);
    slot = v;
  }

  /// Writes `v` (of the operation's width) to a destination operand: a register, a vector of
  /// registers (split into equal parts), or `_`.
  void set(const Frame& fr, State& s, const Operand& o, TermId v, std::optional<TermId> guard) {
    if (o.kind == Operand::Kind::Register) return set_reg(fr, s, o.name, v, guard);
    if (o.kind == Operand::Kind::Vector && !o.elems.empty()) {
      const int w = P_.width(v);
      const int ew = std::max(1, w / static_cast<int>(o.elems.size()));
      for (size_t k = 0; k < o.elems.size(); ++k)
        set(fr, s, o.elems[k], P_.trunc(P_.lshr(v, P_.constant(static_cast<uint64_t>(ew) * k, w)), ew), guard);
    }
  }

  /// Sets every register of a destination to the same kind of unknown; `loaded_data`: a per-lane
  /// value is data the kernel loads (term::VarInfo::loaded_data).
  void set_unknown(const Frame& fr, State& s, const Operand& o, bool uniform_value, const std::string& what,
                   std::optional<TermId> guard, bool loaded_data = false) {
    if (o.kind == Operand::Kind::Register) {
      const int w = reg_bits(fr, o.name);
      const TermId v = uniform_value ? P_.var_term(uniform(what, w, 0, term::mask_of(w))) : opaque(what, w, loaded_data);
      set_reg(fr, s, o.name, v, guard);
    }
    for (const Operand& e : o.elems) set_unknown(fr, s, e, uniform_value, what, guard, loaded_data);
    if (o.pair) {
      const TermId v = uniform_value ? P_.var_term(uniform(what, 1, 0, 1)) : opaque(what, 1, loaded_data);
      set_reg(fr, s, *o.pair, v, guard);
    }
  }

  bool operand_uniform(const Frame& fr, State& s, const Operand& o) {
    switch (o.kind) {
      case Operand::Kind::Register: return !P_.lane_dependent(read_reg(fr, s, o.name, o.pos));
      case Operand::Kind::Vector:
      case Operand::Kind::List:
        return std::all_of(o.elems.begin(), o.elems.end(), [&](const Operand& e) { return operand_uniform(fr, s, e); });
      case Operand::Kind::Address:
        return std::all_of(o.elems.begin(), o.elems.end(), [&](const Operand& e) { return operand_uniform(fr, s, e); });
      default: return true;
    }
  }

  /// An instruction the evaluator does not model: its results are uniform unknowns when it is a
  /// pure function of uniform operands, else opaque with the reason.
  void generic(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard) {
    if (!writes_first_operand(ins)) return;
    bool uniform_inputs = pure_operation(ins.parts[0]);
    for (size_t k = 1; k < ins.operands.size() && uniform_inputs; ++k) uniform_inputs = operand_uniform(fr, s, ins.operands[k]);
    const std::string where = fmt::format("{} (line {})", ins.opcode, line_of(m_, ins.pos));
    set_unknown(fr, s, ins.operands[0], uniform_inputs,
                uniform_inputs ? where : fmt::format("the result of {} is not modelled", where), guard);
  }

  // ---- sites ----
  SiteOrigin origin_at(size_t pos, std::optional<size_t> loc) const {
    SiteOrigin o;
    o.pos = pos;
    o.debug_loc = loc;
    for (const Frame& f : stack_)
      if (f.call_pos) {
        o.call_positions.push_back(*f.call_pos);
        o.call_debug_locs.push_back(f.call_loc);
      }
    return o;
  }

  void record(State& s, const Instruction& ins, SiteKind kind, std::string instr, int bytes, TermId address,
              std::optional<TermId> guard, std::optional<std::string> unknown = std::nullopt, std::string note = {},
              std::optional<std::string> cost_unknown = std::nullopt) {
    if (probing_ > 0) return;
    Site site;
    site.kind = kind;
    site.opcode = ins.opcode;
    site.instr = std::move(instr);
    site.bytes = bytes;
    site.address = P_.resize(address, 32);
    site.active = guard ? P_.bit_and(s.reach, *guard) : s.reach;
    site.active_exact = s.exact;
    site.unknown = std::move(unknown);
    site.cost_unknown = std::move(cost_unknown);
    site.note = std::move(note);
    site.origin = origin_at(ins.pos, ins.debug_loc);
    std::vector<VarId> bases;
    for (VarId v : P_.vars_of(site.address))
      if (symbols_.count(v)) bases.push_back(v);
    site.extent = P_.constant(static_cast<uint64_t>(opt_.arch->max_smem_bytes_per_block), 32);
    if (bases.size() == 1) {
      const SharedSymbol* sym = symbols_.at(bases[0]);
      site.symbol = sym->name;
      site.symbol_bytes = sym->bytes;
      site.symbol_base = bases[0];
      site.extent = sym->bytes ? P_.constant(static_cast<uint64_t>(*sym->bytes), 32) : dynamic_extent();
    }
    if (!site.unknown && P_.opaque(site.address)) {
      site.unknown = P_.opaque_reason(site.address);
      site.unknown_is_data = P_.only_loaded_data(site.address);
    }
    out_.sites.push_back(std::move(site));
  }

  void not_per_lane(State& s, const Instruction& ins, std::optional<TermId> guard, const std::string& why) {
    record(s, ins, SiteKind::NotPerLane, "", 0, P_.constant(0, 32), guard, std::nullopt, why);
  }

  /// The shared-window address of an address operand of a shared-space access.
  TermId address_of(const Frame& fr, State& s, const Operand& o, int width) {
    if (o.kind != Operand::Kind::Address)
      return opaque(fmt::format("operand at line {} is not an address", line_of(m_, o.pos)), width);
    TermId base = P_.constant(0, width);
    if (!o.elems.empty()) {
      const Operand& b = o.elems[0];
      if (b.kind == Operand::Kind::Register) {
        base = read_reg(fr, s, b.name, b.pos);
        base = P_.resize(base, std::max(width, P_.width(base)));
      } else {
        base = symbol_address(fr, b, width);
      }
    }
    return P_.add(base, P_.constant(static_cast<uint64_t>(o.offset), P_.width(base)));
  }

  /// For a generic address: its shared-window address when it is the shared window's base plus
  /// an offset (cvta.shared), nullopt when it does not point into shared memory as far as the
  /// model can tell, or an opaque reason when it mixes the window with something else.
  std::optional<TermId> generic_to_shared(TermId generic, std::string& problem) {
    const std::vector<VarId> vars = P_.vars_of(generic);
    const VarId window = static_cast<VarId>(P_.node(shared_window_).value);
    if (!std::count(vars.begin(), vars.end(), window)) return std::nullopt;
    const TermId off = P_.sub(P_.resize(generic, 64), shared_window_);
    const std::vector<VarId> left = P_.vars_of(off);
    if (std::count(left.begin(), left.end(), window)) {
      problem = "a generic address that is not the shared window's base plus an offset";
      return std::nullopt;
    }
    return P_.trunc(off, 32);
  }

  enum class Space { Shared, Cluster, Generic, Param, Local, Other };
  static Space space_of(const Instruction& ins) {
    for (const std::string& p : ins.parts) {
      if (p == "shared" || p == "shared::cta") return Space::Shared;
      if (p == "shared::cluster") return Space::Cluster;
      if (p == "param") return Space::Param;
      if (p == "local") return Space::Local;
      if (p == "global" || p == "const") return Space::Other;
    }
    return Space::Generic;
  }

  static std::string catalog_name(bool load, int bytes) {
    const std::string op = load ? "ld.shared." : "st.shared.";
    switch (bytes) {
      case 1: return op + "u8";
      case 2: return op + "u16";
      case 4: return op + "b32";
      case 8: return op + "v2.b32";
      case 16: return op + "v4.b32";
      default: return "";
    }
  }

  // ld / st / atom / red on any space.
  void memory(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard) {
    const std::string& op = ins.parts[0];
    const bool load = op == "ld" || op == "ldu";
    const bool atomic = op == "atom" || op == "red";
    const Space space = space_of(ins);
    const auto type = op_type(ins);
    const int elem_bits = type ? type->bits : 32;
    const int bytes = std::max(1, elem_bits / 8) * vector_count(ins);
    const Operand* addr = nullptr;
    for (const Operand& o : ins.operands)
      if (o.kind == Operand::Kind::Address) {
        addr = &o;
        break;
      }
    if (space == Space::Param) return param_access(fr, s, ins, guard, load);
    const int aw = space == Space::Shared || space == Space::Cluster ? 32 : m_.address_size;
    const TermId a = addr ? address_of(fr, s, *addr, aw) : opaque("no address operand", aw);
    std::optional<TermId> shared_addr;
    std::string problem;
    if (space == Space::Shared) shared_addr = P_.resize(a, 32);
    else if (space == Space::Generic) shared_addr = generic_to_shared(a, problem);
    if (space == Space::Cluster) {
      record(s, ins, SiteKind::PerLane, "", bytes, P_.resize(a, 32), guard,
             std::string("distributed shared memory (shared::cluster) is not modelled"));
    } else if (!problem.empty()) {
      record(s, ins, SiteKind::PerLane, "", bytes, P_.resize(a, 32), guard, problem);
    } else if (shared_addr) {
      if (atomic) record(s, ins, SiteKind::Atomic, "", bytes, *shared_addr, guard);
      else record(s, ins, SiteKind::PerLane, catalog_name(load, bytes), bytes, *shared_addr, guard);
    }
    if (!writes_first_operand(ins)) return;
    // A load from a warp-uniform address gives every lane the same value; local memory is
    // per thread whatever the address.
    const std::vector<VarId> address_vars = P_.vars_of(a);
    const bool may_be_local = space == Space::Generic && std::count(address_vars.begin(), address_vars.end(),
                                                                   static_cast<VarId>(P_.node(local_window_).value));
    const bool uniform_value = load && !atomic && space != Space::Local && !P_.lane_dependent(a) && !may_be_local;
    const std::string what = fmt::format("{} (line {})", ins.opcode, line_of(m_, ins.pos));
    // A spilled register read back from local memory is the model's gap, not the kernel's data.
    set_unknown(fr, s, ins.operands[0], uniform_value,
                uniform_value ? "value loaded by " + what : "the value loaded by " + what + " differs per lane", guard,
                space != Space::Local && !may_be_local);
  }

  void param_access(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard, bool load) {
    const Operand* addr = nullptr;
    for (const Operand& o : ins.operands)
      if (o.kind == Operand::Kind::Address) addr = &o;
    if (!addr || addr->elems.empty() || addr->elems[0].kind != Operand::Kind::Symbol) {
      if (load) generic(fr, s, ins, guard);
      return;
    }
    const std::string& name = addr->elems[0].name;
    const auto type = op_type(ins);
    const int w = type ? std::min(64, type->bits) : 32;
    const int n = vector_count(ins);
    const int step = std::max(1, w / 8);
    if (!load) {
      const Operand& value = ins.operands.back();
      for (int k = 0; k < n; ++k) {
        const Operand& e = value.kind == Operand::Kind::Vector && static_cast<size_t>(k) < value.elems.size() ? value.elems[static_cast<size_t>(k)] : value;
        s.params[{name, addr->offset + k * step}] = get(fr, s, e, w);
      }
      return;
    }
    const Operand& dst = ins.operands[0];
    for (int k = 0; k < n; ++k) {
      const Operand& d = dst.kind == Operand::Kind::Vector && static_cast<size_t>(k) < dst.elems.size() ? dst.elems[static_cast<size_t>(k)] : dst;
      const int64_t off = addr->offset + k * step;
      TermId v;
      auto it = s.params.find({name, off});
      if (it != s.params.end() && P_.width(it->second) == w) {
        v = it->second;
      } else if (is_kernel_param(fr, name) && !standalone_) {
        const std::string key = fmt::format("{}+{}:{}", name, off, w);
        // A value every stated launch gives (`param n == 64`) is a constant, not an unknown.
        const auto fixed = off != 0 ? std::nullopt : common_stated([&](const KernelLaunch& l) {
          for (const ParamFact& f : l.params)
            if (f.param == name && f.relation == ParamFact::Relation::Eq) return std::optional<int64_t>(f.value);
          return std::optional<int64_t>();
        });
        v = fixed ? P_.constant(static_cast<uint64_t>(*fixed) & term::mask_of(w), w)
                  : P_.var_term(keyed_uniform(key, off ? fmt::format("{}+{}", name, off) : name, w, 0, term::mask_of(w)));
        if (off == 0 && !fixed) param_values_.emplace(std::pair{name, int64_t{w}}, v);
      } else {
        v = opaque(fmt::format("parameter {} of {} is not known here", name, fr.fn->name), w);
      }
      set(fr, s, d, v, guard);
    }
  }

  bool is_kernel_param(const Frame& fr, const std::string& name) const {
    return fr.fn == &kernel_ &&
           std::any_of(kernel_.params.begin(), kernel_.params.end(), [&](const Param& p) { return p.name == name; });
  }

  // ---- arithmetic ----
  TermId shift_amount(TermId amount, int w) {
    amount = P_.resize(amount, std::max(32, P_.width(amount)));
    if (w >= P_.width(amount)) return P_.zext(amount, w);
    const TermId wc = P_.constant(static_cast<uint64_t>(w), P_.width(amount));
    return P_.trunc(P_.ite(P_.ult(amount, wc), amount, wc), w);
  }

  TermId compare(const std::string& cmp, TermId a, TermId b, bool sgn) {
    if (cmp == "eq") return P_.eq(a, b);
    if (cmp == "ne") return P_.ne(a, b);
    if (cmp == "lt") return sgn ? P_.slt(a, b) : P_.ult(a, b);
    if (cmp == "le") return sgn ? P_.sle(a, b) : P_.ule(a, b);
    if (cmp == "gt") return sgn ? P_.slt(b, a) : P_.ult(b, a);
    if (cmp == "ge") return sgn ? P_.sle(b, a) : P_.ule(b, a);
    if (cmp == "lo") return P_.ult(a, b);
    if (cmp == "ls") return P_.ule(a, b);
    if (cmp == "hi") return P_.ult(b, a);
    if (cmp == "hs") return P_.ule(b, a);
    return kUnset;
  }

  TermId lop3(TermId a, TermId b, TermId c, uint64_t lut) {
    const int w = P_.width(a);
    TermId acc = P_.constant(0, w);
    for (int i = 0; i < 8; ++i) {
      if (!((lut >> i) & 1)) continue;
      const TermId x = (i & 4) ? a : P_.bit_not(a);
      const TermId y = (i & 2) ? b : P_.bit_not(b);
      const TermId z = (i & 1) ? c : P_.bit_not(c);
      acc = P_.bit_or(acc, P_.bit_and(x, P_.bit_and(y, z)));
    }
    return acc;
  }

  TermId prmt(TermId a, TermId b, uint64_t sel) {
    TermId out = P_.constant(0, 32);
    for (int i = 0; i < 4; ++i) {
      const uint64_t nib = (sel >> (4 * i)) & 0xf;
      const uint64_t idx = nib & 7;
      const TermId src = idx < 4 ? a : b;
      TermId byte = P_.bit_and(P_.lshr(src, P_.constant(8 * (idx % 4), 32)), P_.constant(0xff, 32));
      if (nib & 8) byte = P_.bit_and(P_.ashr(P_.shl(byte, P_.constant(24, 32)), P_.constant(31, 32)), P_.constant(0xff, 32));
      out = P_.bit_or(out, P_.shl(byte, P_.constant(static_cast<uint64_t>(8 * i), 32)));
    }
    return out;
  }

  // shfl.sync (PTX ISA 9.0, section 9.7.9.6): the value of `a` in the source lane j, or the lane's
  // own value when j is out of its segment.
  void shfl(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard) {
    if (ins.operands.size() < 4) return generic(fr, s, ins, guard);
    std::string mode;
    for (const std::string& p : ins.parts)
      if (p == "up" || p == "down" || p == "bfly" || p == "idx") mode = p;
    const TermId a = get(fr, s, ins.operands[1], 32);
    const TermId bval = P_.bit_and(get(fr, s, ins.operands[2], 32), P_.constant(31, 32));
    const TermId c = get(fr, s, ins.operands[3], 32);
    const TermId cval = P_.bit_and(c, P_.constant(31, 32));
    const TermId segmask = P_.bit_and(P_.lshr(c, P_.constant(8, 32)), P_.constant(31, 32));
    const TermId lane = P_.lane();
    const TermId max_lane = P_.bit_or(P_.bit_and(lane, segmask), P_.bit_and(cval, P_.bit_not(segmask)));
    const TermId min_lane = P_.bit_and(lane, segmask);
    TermId j, pval;
    if (mode == "up") {
      j = P_.sub(lane, bval);
      pval = P_.sle(max_lane, j);
    } else if (mode == "down") {
      j = P_.add(lane, bval);
      pval = P_.sle(j, max_lane);
    } else if (mode == "bfly") {
      j = P_.bit_xor(lane, bval);
      pval = P_.sle(j, max_lane);
    } else if (mode == "idx") {
      j = P_.bit_or(min_lane, P_.bit_and(bval, P_.bit_not(segmask)));
      pval = P_.sle(j, max_lane);
    } else {
      return generic(fr, s, ins, guard);
    }
    const TermId src = P_.ite(pval, j, lane);
    const TermId value = P_.substitute(a, {{P_.lane_var(), src}});
    set(fr, s, ins.operands[0], value, guard);
    if (ins.operands[0].pair) set_reg(fr, s, *ins.operands[0].pair, pval, guard);
  }

  // The integer instructions of PTX ISA 9.0 sections 9.7.1-9.7.8 and 9.7.9.x that compute addresses.
  void arithmetic(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard) {
    const std::string& op = ins.parts[0];
    const auto type = op_type(ins);
    const auto& ops = ins.operands;
    if (!type || type->is_float || ins.has("sat") || ins.has("relu") ||
        (ins.has("cc") && op != "add" && op != "sub" && op != "mad") || ops.empty())
      return generic(fr, s, ins, guard);
    const int w = std::min(64, type->bits);
    const bool sgn = is_signed(*type);
    auto src = [&](size_t k, int width = 0) { return get(fr, s, ops.at(k), width ? width : w, sgn); };
    auto out = [&](TermId v) { set(fr, s, ops[0], v, guard); };
    const size_t n = ops.size();
    if (op == "mov" && n == 2) return out(get(fr, s, ops[1], w));
    if ((op == "add" || op == "sub") && n == 3) return out(op == "add" ? P_.add(src(1), src(2)) : P_.sub(src(1), src(2)));
    if ((op == "mul" || op == "mad") && n == (op == "mul" ? 3u : 4u)) {
      if (ins.has("wide")) {
        const TermId x = sgn ? P_.sext(src(1), 2 * w) : P_.zext(src(1), 2 * w);
        const TermId y = sgn ? P_.sext(src(2), 2 * w) : P_.zext(src(2), 2 * w);
        TermId r = P_.mul(x, y);
        if (op == "mad") r = P_.add(r, get(fr, s, ops[3], 2 * w));
        return out(r);
      }
      TermId r = ins.has("hi") ? P_.mulhi(src(1), src(2), sgn) : P_.mul(src(1), src(2));
      if (op == "mad") r = P_.add(r, src(3));
      return out(r);
    }
    if ((op == "div" || op == "rem") && n == 3) {
      const TermId d = src(2);
      if (!P_.const_value(d) || *P_.const_value(d) == 0) return generic(fr, s, ins, guard);
      if (op == "div") return out(sgn ? P_.sdiv(src(1), d) : P_.udiv(src(1), d));
      return out(sgn ? P_.srem(src(1), d) : P_.urem(src(1), d));
    }
    if ((op == "and" || op == "or" || op == "xor") && n == 3) {
      const TermId x = src(1), y = src(2);
      return out(op == "and" ? P_.bit_and(x, y) : op == "or" ? P_.bit_or(x, y) : P_.bit_xor(x, y));
    }
    if (op == "not" && n == 2) return out(P_.bit_not(src(1)));
    if ((op == "min" || op == "max") && n == 3) {
      const TermId x = src(1), y = src(2);
      const TermId lt = sgn ? P_.slt(x, y) : P_.ult(x, y);
      return out(op == "min" ? P_.ite(lt, x, y) : P_.ite(lt, y, x));
    }
    if (op == "neg" && n == 2) return out(P_.neg(src(1)));
    if (op == "abs" && n == 2) {
      const TermId x = src(1);
      return out(P_.ite(P_.slt(x, P_.constant(0, w)), P_.neg(x), x));
    }
    if (op == "shl" && n == 3) return out(P_.shl(src(1), shift_amount(get(fr, s, ops[2], 32), w)));
    if (op == "shr" && n == 3) {
      const TermId amount = shift_amount(get(fr, s, ops[2], 32), w);
      return out(sgn ? P_.ashr(src(1), amount) : P_.lshr(src(1), amount));
    }
    if (op == "shf" && n == 4 && w == 32) {
      const TermId a = get(fr, s, ops[1], 32), b = get(fr, s, ops[2], 32), c = get(fr, s, ops[3], 32);
      const TermId amount = ins.has("wrap") ? P_.bit_and(c, P_.constant(31, 32))
                                            : P_.ite(P_.ult(c, P_.constant(32, 32)), c, P_.constant(32, 32));
      const TermId wide = P_.bit_or(P_.shl(P_.zext(b, 64), P_.constant(32, 64)), P_.zext(a, 64));
      const TermId amount64 = P_.zext(amount, 64);
      if (ins.has("l")) return out(P_.trunc(P_.lshr(P_.shl(wide, amount64), P_.constant(32, 64)), 32));
      return out(P_.trunc(P_.lshr(wide, amount64), 32));
    }
    if (op == "bfe" && n == 4) {
      const auto pos = P_.const_value(get(fr, s, ops[2], 32));
      const auto len = P_.const_value(get(fr, s, ops[3], 32));
      if (!pos || !len) return generic(fr, s, ins, guard);
      const uint64_t p = *pos & 0xff, l = *len & 0xff;
      const TermId a = src(1);
      if (l == 0) return out(P_.constant(0, w));
      if (!sgn) {
        const TermId field = P_.lshr(a, P_.constant(std::min<uint64_t>(p, static_cast<uint64_t>(w)), w));
        return out(l >= static_cast<uint64_t>(w) ? field : P_.bit_and(field, P_.constant((uint64_t{1} << l) - 1, w)));
      }
      if (p + l <= static_cast<uint64_t>(w))
        return out(P_.ashr(P_.shl(a, P_.constant(static_cast<uint64_t>(w) - p - l, w)), P_.constant(static_cast<uint64_t>(w) - l, w)));
      return out(P_.ashr(a, P_.constant(std::min<uint64_t>(p, static_cast<uint64_t>(w - 1)), w)));
    }
    if (op == "bfi" && n == 5) {
      const auto pos = P_.const_value(get(fr, s, ops[3], 32));
      const auto len = P_.const_value(get(fr, s, ops[4], 32));
      if (!pos || !len) return generic(fr, s, ins, guard);
      const uint64_t p = *pos & 0xff, l = *len & 0xff;
      const TermId f = src(1), b = src(2);
      if (l == 0 || p >= static_cast<uint64_t>(w)) return out(b);
      const uint64_t bits = std::min<uint64_t>(l, static_cast<uint64_t>(w) - p);
      const uint64_t mask = (bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1) << p;
      const TermId m = P_.constant(mask, w);
      return out(P_.bit_or(P_.bit_and(b, P_.bit_not(m)), P_.bit_and(P_.shl(f, P_.constant(p, w)), m)));
    }
    if (op == "prmt" && n == 4 && w == 32 && ins.parts.size() == 2) {
      const auto sel = P_.const_value(get(fr, s, ops[3], 32));
      if (!sel) return generic(fr, s, ins, guard);
      return out(prmt(src(1), src(2), *sel));
    }
    if (op == "lop3" && n == 5 && !ops[0].pair) {
      const auto lut = P_.const_value(get(fr, s, ops[4], 32));
      if (!lut) return generic(fr, s, ins, guard);
      return out(lop3(src(1), src(2), src(3), *lut & 0xff));
    }
    if (op == "selp" && n == 4) return out(P_.ite(get(fr, s, ops[3], 1), src(1), src(2)));
    return generic(fr, s, ins, guard);
  }

  void setp(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard) {
    const auto type = op_type(ins);
    const auto& ops = ins.operands;
    if (!type || type->is_float || ops.size() < 3 || ins.parts.size() < 3) return generic(fr, s, ins, guard);
    const int w = std::min(64, type->bits);
    const bool sgn = is_signed(*type);
    const TermId a = get(fr, s, ops[1], w, sgn), b = get(fr, s, ops[2], w, sgn);
    const TermId cmp = compare(ins.parts[1], a, b, sgn);
    if (cmp == kUnset) return generic(fr, s, ins, guard);
    TermId p = cmp, q = P_.bit_not(cmp);
    std::string bool_op;
    for (const std::string& part : ins.parts)
      if (part == "and" || part == "or" || part == "xor") bool_op = part;
    if (!bool_op.empty()) {
      if (ops.size() < 4) return generic(fr, s, ins, guard);
      const TermId c = get(fr, s, ops[3], 1);
      auto combine = [&](TermId x) {
        return bool_op == "and" ? P_.bit_and(x, c) : bool_op == "or" ? P_.bit_or(x, c) : P_.bit_xor(x, c);
      };
      p = combine(p);
      q = combine(q);
    }
    set(fr, s, ops[0], p, guard);
    if (ops[0].pair) set_reg(fr, s, *ops[0].pair, q, guard);
  }

  void cvt(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard) {
    std::vector<RegType> types;
    for (const std::string& p : ins.parts)
      if (auto t = type_part(p)) types.push_back(*t);
    if (types.size() != 2 || types[0].is_float || types[1].is_float || ins.has("sat") || ins.operands.size() != 2 ||
        types[0].bits > 64 || types[1].bits > 64)
      return generic(fr, s, ins, guard);
    const RegType& d = types[0];
    const RegType& a = types[1];
    TermId v = get(fr, s, ins.operands[1], a.bits, is_signed(a));
    if (d.bits < a.bits) v = P_.trunc(v, d.bits);
    else v = is_signed(a) ? P_.sext(v, d.bits) : P_.zext(v, d.bits);
    const int dest = ins.operands[0].kind == Operand::Kind::Register ? reg_bits(fr, ins.operands[0].name) : d.bits;
    if (dest > d.bits) v = is_signed(d) ? P_.sext(v, dest) : P_.zext(v, dest);
    set(fr, s, ins.operands[0], v, guard);
  }

  void cvta(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard) {
    const auto type = op_type(ins);
    if (ins.operands.size() != 2 || !type) return generic(fr, s, ins, guard);
    const int w = type->bits;
    const bool to = ins.has("to");
    const TermId a = get(fr, s, ins.operands[1], w);
    TermId window = kUnset;
    if (ins.has("shared") || ins.has("shared::cta")) window = shared_window_;
    else if (ins.has("local")) window = local_window_;
    if (window == kUnset) return set(fr, s, ins.operands[0], a, guard);  // global, const, param: same numbers
    const TermId win = P_.resize(window, w);
    set(fr, s, ins.operands[0], to ? P_.sub(a, win) : P_.add(win, a), guard);
  }

  void mov(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard) {
    const auto type = op_type(ins);
    if (ins.operands.size() != 2 || !type) return generic(fr, s, ins, guard);
    const int w = std::min(64, type->bits);
    set(fr, s, ins.operands[0], get(fr, s, ins.operands[1], w), guard);
  }

  // ---- the instruction dispatcher ----
  void exec(const Frame& fr, State& s, const Instruction& ins) {
    std::optional<TermId> guard;
    if (ins.guard) guard = get(fr, s, *ins.guard, 1);
    if (guard && P_.const_value(*guard) == 0) return;
    const std::string& op = ins.parts[0];
    const std::string sub = ins.parts.size() > 1 ? ins.parts[1] : "";
    if (op == "mov") return mov(fr, s, ins, guard);
    if (op == "setp") return setp(fr, s, ins, guard);
    if (op == "cvt") return cvt(fr, s, ins, guard);
    if (op == "cvta") return cvta(fr, s, ins, guard);
    if (op == "ld" || op == "ldu" || op == "st" || op == "atom" || op == "red") return memory(fr, s, ins, guard);
    if (op == "shfl") return shfl(fr, s, ins, guard);
    if (op == "call") return call(fr, s, ins, guard);
    if (op == "ldmatrix" || op == "stmatrix") return matrix(fr, s, ins, guard);
    if (op == "cp") return copy(fr, s, ins, guard);
    if (op == "wgmma") {
      if (sub == "mma_async") not_per_lane(s, ins, guard, "wgmma reads its shared-memory operands through matrix descriptors");
      return generic(fr, s, ins, guard);
    }
    if (op == "tcgen05") {
      if (sub == "mma" || sub == "cp" || sub == "alloc" || sub == "shift")
        not_per_lane(s, ins, guard, "tcgen05 addresses shared memory through descriptors or one address per warp");
      return generic(fr, s, ins, guard);
    }
    if (op == "mbarrier") {
      not_per_lane(s, ins, guard, "mbarrier objects synchronise; their accesses are not data traffic the bank model covers");
      return generic(fr, s, ins, guard);
    }
    if (op == "wmma" && (sub == "load" || sub == "store") && (ins.has("shared") || ins.has("shared::cta") || space_of(ins) == Space::Generic)) {
      not_per_lane(s, ins, guard, "wmma.load/store: PTX does not say which lane gives which address");
      return generic(fr, s, ins, guard);
    }
    if (op == "vote" || op == "activemask" || op == "redux") {
      if (!writes_first_operand(ins)) return;
      return set_unknown(fr, s, ins.operands[0], true, fmt::format("{} (line {})", ins.opcode, line_of(m_, ins.pos)), guard);
    }
    if (op == "elect" && !ins.operands.empty()) {
      const TermId leader = P_.var_term(uniform(fmt::format("elected@{}", line_of(m_, ins.pos)), 32, 0, hw::kWarpLanes - 1));
      set(fr, s, ins.operands[0], leader, guard);
      if (ins.operands[0].pair) set_reg(fr, s, *ins.operands[0].pair, P_.eq(P_.lane(), leader), guard);
      return;
    }
    if (op == "add" || op == "sub" || op == "mul" || op == "mad" || op == "div" || op == "rem" || op == "and" ||
        op == "or" || op == "xor" || op == "not" || op == "min" || op == "max" || op == "neg" || op == "abs" ||
        op == "shl" || op == "shr" || op == "shf" || op == "bfe" || op == "bfi" || op == "prmt" || op == "lop3" ||
        op == "selp")
      return arithmetic(fr, s, ins, guard);
    generic(fr, s, ins, guard);
  }

  void matrix(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard) {
    const bool load = ins.parts[0] == "ldmatrix";
    int count = 0;
    for (const std::string& p : ins.parts)
      if (p == "x1" || p == "x2" || p == "x4") count = p[1] - '0';
    const bool trans = ins.has("trans");
    const Operand* addr = nullptr;
    for (const Operand& o : ins.operands)
      if (o.kind == Operand::Kind::Address) addr = &o;
    const bool plain = ins.has("m8n8") && (ins.has("b16") || !op_type(ins)) && count > 0;
    const TermId a = addr ? address_of(fr, s, *addr, 32) : opaque("no address operand", 32);
    std::string problem;
    TermId sh = P_.resize(a, 32);
    if (space_of(ins) == Space::Generic) {
      auto g = generic_to_shared(a, problem);
      if (g) sh = *g;
      else if (problem.empty()) problem = "the address is not recognised as a shared-memory address";
    }
    std::optional<std::string> unknown;
    if (!problem.empty()) unknown = problem;
    else if (!plain) unknown = "only the m8n8 .b16 shapes of ldmatrix/stmatrix have a bank model";
    record(s, ins, SiteKind::MatrixRows, fmt::format("{}.x{}{}", load ? "ldmatrix" : "stmatrix", count, trans ? ".trans" : ""),
           16, sh, guard, unknown);
    if (load) generic(fr, s, ins, guard);
  }

  void copy(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard) {
    const std::string sub = ins.parts.size() > 1 ? ins.parts[1] : "";
    if (sub == "async" && ins.parts.size() > 2 && (ins.parts[2] == "bulk" || ins.parts[2] == "mbarrier")) {
      if (ins.parts[2] == "bulk") not_per_lane(s, ins, guard, "bulk copies (TMA) move whole tiles from one address per warp, not per lane");
      return;
    }
    if (sub == "reduce") return not_per_lane(s, ins, guard, "bulk reductions (TMA) are not per-lane accesses");
    if (sub != "async" || ins.parts.size() < 3 || (ins.parts[2] != "ca" && ins.parts[2] != "cg")) return;
    // cp.async.ca|cg.shared{::cta}.global [dst], [src], cp-size{, src-size}{, cache-policy}
    if (ins.operands.size() < 3 || ins.operands[0].kind != Operand::Kind::Address) return;
    const TermId size = get(fr, s, ins.operands[2], 32);
    const auto bytes = P_.const_value(size);
    const TermId dst = address_of(fr, s, ins.operands[0], 32);
    if (!bytes || (*bytes != 4 && *bytes != 8 && *bytes != 16)) {
      record(s, ins, SiteKind::AsyncCopy, "", 0, dst, guard, std::string("cp.async's copy size is not 4, 8 or 16"));
      return;
    }
    // A source size or an ignore-src predicate zero-fills the bytes not copied. Measured (docs/ptx.md,
    // tests/data/sm90_cp_async_zfill*.tsv): one source size for the whole warp, 0 or the copy size,
    // costs what the plain copy costs; so does a .ca copy whose lanes each copy all of their bytes or
    // none (a per-lane 0-or-full size, the ignore-src predicate), which ptxas emits as LDGSTS with an
    // ignore predicate and whose zero-filled lanes write shared memory as the others do. A .cg copy
    // with such a mask was measured both at and above the plain copy's cost, and sizes strictly
    // between 0 and the copy size (LDGSTS...ZFILL) above it: those are not modelled.
    std::optional<std::string> zero_fill;
    const bool cache_all = ins.parts[2] == "ca";
    if (ins.operands.size() >= 4 && ins.operands[3].kind != Operand::Kind::Address) {
      const bool predicate = ins.operands[3].kind == Operand::Kind::Register && reg_bits(fr, ins.operands[3].name) == 1;
      const TermId src_size = get(fr, s, ins.operands[3], predicate ? 1 : 32);
      // 0 or the copy size (a power of two) for every value: a multiple of it no larger than it.
      auto zero_or_full = [&](TermId t) {
        return P_.max_value(t) <= *bytes && P_.trailing_zeros(t) >= __builtin_ctzll(*bytes);
      };
      const term::Node n = P_.node(src_size);
      const bool all_or_none =
          predicate || zero_or_full(src_size) || (n.op == term::Op::Ite && zero_or_full(n.b) && zero_or_full(n.c));
      const bool per_lane = P_.lane_dependent(src_size);
      if (!all_or_none)
        zero_fill = "cp.async with a source size that may lie strictly between 0 and the copy size zero-fills part of a "
                    "lane's bytes (LDGSTS...ZFILL), measured to cost more wavefronts than the plain copy; not modelled";
      else if (per_lane && !cache_all)
        zero_fill = "a 16-byte cp.async.cg whose lanes copy or zero-fill by a per-lane mask was measured both at and "
                    "above the plain copy's cost (tests/data/sm90_cp_async_zfill*.tsv); not modelled";
    }
    // The cache qualifier is part of the instruction: .ca and .cg write shared memory differently
    // (hw/SmemInstr.h); .cg exists for 16-byte copies only.
    if (ins.parts[2] == "cg" && *bytes != 16) {
      record(s, ins, SiteKind::AsyncCopy, "", 0, dst, guard, std::string("cp.async.cg copies 16 bytes only (PTX ISA)"));
      return;
    }
    record(s, ins, SiteKind::AsyncCopy, fmt::format("cp.async.{}.{}", ins.parts[2], *bytes), static_cast<int>(*bytes), dst,
           guard, std::nullopt, {}, zero_fill);
  }

  // ---- calls: the callee's body evaluated in place (inlined) ----
  void call(const Frame&, State& s, const Instruction& ins, std::optional<TermId> guard) {
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

  const Cfg& cfg_of(const Function& f) {
    auto it = cfgs_.find(&f);
    if (it == cfgs_.end()) it = cfgs_.emplace(&f, build_cfg(f)).first;
    return it->second;
  }

  void call_function(const Function& f, State entry, std::vector<State>& returns,
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
  State merge(std::vector<State>& in) {
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

  void step(size_t pos) {
    checkpoint();  // the run's time and memory budget
    if (++steps_ > opt_.max_steps)
      throw BudgetExceeded{pos, fmt::format("the kernel needs more than {} instruction evaluations (loops and inlined calls "
                                            "included); it is not analysed", opt_.max_steps)};
  }

  template <class Deliver>
  void exec_block(const Frame& fr, int b, State s, Deliver&& deliver) {
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
  void run_region(std::optional<int> loop, State header_state, RegionOut& out) {
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

  // A loop: a probe pass over the body with every carried register a fresh symbol gives each
  // register's update; the update is classified (invariant, induction variable entry + n*step,
  // a finite cycle of values, entry + V*2^k, or unknown); the body is then evaluated once with
  // those models at the header, for the loop's iteration count n, under the assumption that the
  // back edge was taken at iteration n-1.
  void process_loop(int id, std::vector<State>& entries, std::vector<std::pair<int, State>>& exits) {
    const Frame& fr = stack_.back();
    const Cfg& cfg = *fr.cfg;
    const Loop& loop = cfg.loops[static_cast<size_t>(id)];
    const Function& f = *fr.fn;
    const std::string where = fmt::format("line {}", line_of(m_, f.body[cfg.blocks[static_cast<size_t>(loop.header)].begin].pos));
    State E = merge(entries);
    const VarId first_var = static_cast<VarId>(P_.var_count());
    const TermId n = P_.var_term(uniform("n@" + where, 32, 0, 0xffffffffu));
    const VarId nv = static_cast<VarId>(P_.node(n).value);
    std::map<int, TermId> model;
    TermId assumption = P_.boolean(true);
    bool monotone = false;  // the assumption is exactly "iteration n is reached", lane by lane
    if (probe_depth_ < opt_.max_probe_depth) {
      State probe = E;
      probe.reach = P_.boolean(true);  // the back edge's condition relative to the loop's entry
      std::map<int, TermId> probes;
      std::unordered_map<VarId, int> probe_reg;
      for (int r : loop.carried) {
        VarInfo v;
        v.name = fmt::format("x{}", r);
        v.kind = VarKind::Probe;
        v.width = cfg.reg_bits[static_cast<size_t>(r)];
        const VarId pv = P_.new_var(v);
        probes[r] = P_.var_term(pv);
        probe_reg[pv] = r;
        probe.regs[static_cast<size_t>(r)] = probes[r];
      }
      ++probing_;
      ++probe_depth_;
      RegionOut o;
      run_region(id, probe, o);
      --probing_;
      --probe_depth_;
      if (o.latches.empty()) {
        for (int r : loop.carried) model[r] = E.regs[static_cast<size_t>(r)];
      } else {
        State back = merge(o.latches);
        std::vector<TermId> no_wrap;
        uint64_t window = 0;
        classify(loop, E, back, probes, probe_reg, n, where, model, no_wrap, window);
        // bc: the back edge is taken, in terms of the models; A(n) = n == 0 || bc(n - 1).
        std::unordered_map<VarId, TermId> to_model;
        for (auto& [r, x] : probes)
          if (model[r] != kUnset) to_model[static_cast<VarId>(P_.node(x).value)] = model[r];
        TermId bc = P_.substitute(back.reach, to_model);
        if (P_.has_probe(bc)) bc = opaque("the loop's exit condition at " + where + " is not modelled", 1);
        const TermId prev = P_.substitute(bc, {{nv, P_.sub(n, P_.constant(1, 32))}});
        assumption = P_.bit_or(P_.eq(n, P_.constant(0, 32)), prev);
        monotone = monotone_exit(bc, n, no_wrap);
        for (TermId c : no_wrap) assumption = P_.bit_and(assumption, c);
        // Iteration n is reached only when the back edge was taken at every earlier iteration, not
        // only at n-1. A sequence that settles (a counter shifted to 0) makes bc(n-1) true again
        // past the loop's end, so the earlier iterations while its values change are required too.
        for (uint64_t k = 0; k < window; ++k)
          assumption = P_.bit_and(assumption,
                                  P_.bit_or(P_.ule(n, P_.constant(k, 32)), P_.substitute(bc, {{nv, P_.constant(k, 32)}})));
      }
    } else {
      for (int r : loop.carried)
        model[r] = opaque(fmt::format("loop-carried register at {} (loops nested too deeply to summarise)", where),
                          cfg.reg_bits[static_cast<size_t>(r)]);
    }
    State H = E;
    for (int r : loop.carried) H.regs[static_cast<size_t>(r)] = model[r];
    H.reach = P_.bit_and(E.reach, assumption);
    H.exact = E.exact && (monotone || !P_.lane_dependent(assumption));
    RegionOut o;
    run_region(id, H, o);
    exits = std::move(o.exits);
    reconverge(loop, E, first_var, where, exits);
  }

  // Whether the back edge's condition bc(n-1) implies it at every earlier iteration, so that
  // n == 0 || bc(n-1) is exactly "iteration n is reached" even when it differs between lanes: bc
  // compares a counter that grows by a positive lane-uniform step each iteration with a bound the
  // loop does not change (`for (i = threadIdx.x; i < n; i += blockDim.x)`: counter < bound or
  // counter <= bound), and the counter does not wrap up to iteration n-1 (added to `no_wrap`: the
  // assumption every 32-bit counter has, docs/ptx.md). Its values then increase, and a bound it has
  // not reached at n-1 it had not reached before.
  bool monotone_exit(TermId bc, TermId n, std::vector<TermId>& no_wrap) {
    const VarId nv = static_cast<VarId>(P_.node(n).value);
    auto depends_on_n = [&](TermId t) {
      const std::vector<VarId> vs = P_.vars_of(t);
      return std::find(vs.begin(), vs.end(), nv) != vs.end();
    };
    const term::Node& top = P_.node(bc);
    const bool at_most = top.op == term::Op::Not;  // !(bound < counter): counter <= bound
    const term::Node& cmp = P_.node(at_most ? top.a : bc);
    if (cmp.op != term::Op::Slt && cmp.op != term::Op::Ult) return false;
    const bool is_signed = cmp.op == term::Op::Slt;
    const TermId counter = at_most ? cmp.b : cmp.a, bound = at_most ? cmp.a : cmp.b;
    const int w = P_.width(counter);
    if (w > 32 || depends_on_n(bound) || !depends_on_n(counter) || P_.opaque(counter) || P_.opaque(bound)) return false;
    // counter = first + n * step: one term of its sum holds n, as n or as n times an n-free factor.
    const TermId nw = P_.resize(n, w);
    std::optional<TermId> step;
    for (const auto& [atom, coef] : P_.sum_of(counter).atoms) {
      if (!depends_on_n(atom)) continue;
      const term::Node& m = P_.node(atom);
      std::optional<TermId> factor;
      if (atom == nw) factor = P_.constant(1, w);
      else if (m.op == term::Op::Mul && m.a == nw && !depends_on_n(m.b)) factor = m.b;
      else if (m.op == term::Op::Mul && m.b == nw && !depends_on_n(m.a)) factor = m.a;
      if (!factor || step) return false;
      step = P_.mul(*factor, P_.constant(coef, w));
    }
    if (!step || P_.lane_dependent(*step) || P_.opaque(*step) || P_.node(*step).umin == 0 ||
        P_.max_value(*step) >= (uint64_t{1} << (w - 1)))
      return false;
    const TermId first = P_.substitute(counter, {{nv, P_.constant(0, 32)}});
    const TermId last = P_.sub(n, P_.constant(1, 32));
    auto widen = [&](TermId t) { return is_signed ? P_.sext(t, 64) : P_.zext(t, 64); };
    const TermId exact = P_.add(widen(first), P_.mul(P_.zext(last, 64), P_.zext(*step, 64)));
    no_wrap.push_back(P_.bit_or(P_.eq(n, P_.constant(0, 32)), P_.eq(exact, widen(P_.substitute(counter, {{nv, last}})))));
    return true;
  }

  // Lanes that leave a loop at different iterations (a block-stride loop over a tile, a per-lane
  // break) all arrive at its one exit, the loop assumed to terminate: there every lane that entered
  // is active, exactly so when nothing in the loop ends a lane (ret, exit, trap, a call). A value
  // the loop wrote is then the same for every lane only when it does not depend on the iteration;
  // otherwise it is opaque. Without this, the code after the loop would see, for each iteration,
  // only the lanes that leave at it.
  void reconverge(const Loop& loop, const State& E, VarId first_var, const std::string& where,
                  std::vector<std::pair<int, State>>& exits) {
    if (exits.empty()) return;
    const int target = exits[0].first;
    for (const auto& [t, st] : exits)
      if (t != target) return;
    auto iteration_dependent = [&](TermId t) {
      for (VarId v : P_.vars_of(t))
        if (v >= first_var && unkeyed_uniforms_.count(v)) return true;
      return false;
    };
    // Divergent when what decides a lane's exit, beyond the lanes that entered, depends on the
    // lane and on the iteration.
    std::set<TermId> entered;
    conjuncts(E.reach, entered);
    bool diverges = false;
    for (const auto& [t, st] : exits) {
      std::set<TermId> parts;
      conjuncts(st.reach, parts);
      for (TermId c : parts)
        diverges = diverges || (!entered.count(c) && P_.lane_dependent(c) && iteration_dependent(c));
    }
    if (!diverges) return;
    std::vector<State> states;
    for (auto& [t, st] : exits) states.push_back(std::move(st));
    State out = E;
    out.params = merge(states).params;
    out.exact = E.exact && !ends_lanes(loop);
    const Cfg& cfg = *stack_.back().cfg;
    for (int r : loop.carried) {
      const TermId v = states[0].regs[static_cast<size_t>(r)];
      bool same = true;
      for (const State& st : states) same = same && st.regs[static_cast<size_t>(r)] == v;
      if (same && (v == kUnset || !iteration_dependent(v))) out.regs[static_cast<size_t>(r)] = v;
      else
        out.regs[static_cast<size_t>(r)] =
            opaque(fmt::format("a value of the loop at {}, which lanes leave at different iterations", where),
                   cfg.reg_bits[static_cast<size_t>(r)]);
    }
    exits.clear();
    exits.emplace_back(target, std::move(out));
  }

  void conjuncts(TermId t, std::set<TermId>& out) const {
    const term::Node& n = P_.node(t);
    if (n.op == term::Op::And && n.width == 1) {
      conjuncts(n.a, out);
      conjuncts(n.b, out);
    } else {
      out.insert(t);
    }
  }

  static bool ends_lane(const std::string& op) { return op == "ret" || op == "exit" || op == "trap"; }

  // Whether an instruction of the loop may end a lane or leave it elsewhere than at the loop's exit.
  bool ends_lanes(const Loop& loop) const {
    const Frame& fr = stack_.back();
    for (int b : loop.blocks_rpo) {
      const Block& blk = fr.cfg->blocks[static_cast<size_t>(b)];
      for (size_t i = blk.begin; i < blk.end; ++i) {
        const std::string& op = fr.fn->body[i].parts[0];
        if (ends_lane(op) || op == "call") return true;
      }
    }
    return false;
  }

  void classify(const Loop& loop, const State& E, const State& back, const std::map<int, TermId>& probes,
                const std::unordered_map<VarId, int>& probe_reg, TermId n, const std::string& where,
                std::map<int, TermId>& model, std::vector<TermId>& no_wrap, uint64_t& window) {
    const Frame& fr = stack_.back();
    std::vector<int> pending;
    for (int r : loop.carried) {
      const TermId x = probes.at(r);
      const TermId e = E.regs[static_cast<size_t>(r)];
      const TermId u = back.regs[static_cast<size_t>(r)];
      const int w = fr.cfg->reg_bits[static_cast<size_t>(r)];
      if (u == kUnset || u == x) {
        model[r] = e;
        continue;
      }
      if (!P_.has_probe(u)) {  // recomputed every iteration from loop-invariant values
        model[r] = e == kUnset ? u : P_.ite(P_.eq(n, P_.constant(0, 32)), e, u);
        continue;
      }
      if (e == kUnset) {
        model[r] = kUnset;
        pending.push_back(r);
        continue;
      }
      const TermId step = P_.sub(u, x);
      if (!P_.has_probe(step)) {
        model[r] = P_.add(e, P_.mul(P_.resize(n, w), step));
        // A 32-bit counter of the loop does not overflow (C++'s signed loop counters cannot;
        // docs/ptx.md): its value is the exact sum e + n*step.
        if (w == 32 && !P_.lane_dependent(e) && !P_.lane_dependent(step)) {
          const TermId exact = P_.add(P_.sext(e, 64), P_.mul(P_.sext(step, 64), P_.zext(n, 64)));
          no_wrap.push_back(P_.eq(exact, P_.sext(model[r], 64)));
        }
        continue;
      }
      if (const auto g = geometric(x, e, u, n)) {
        model[r] = g->first;
        window = std::max(window, g->second);
        continue;
      }
      if (const auto seq = settling_sequence(x, e, u, n, probe_reg)) {
        model[r] = seq->first;
        window = std::max(window, seq->second);
        continue;
      }
      model[r] = kUnset;
      pending.push_back(r);
    }
    // A finite cycle: registers whose updates depend only on each other (stage counters, the
    // buffer offsets computed from them) are iterated together from their entry values; when the
    // tuple of values repeats, every iteration holds one of the tuples seen, chosen by one selector.
    std::set<int> group;
    for (int r : pending)
      if (E.regs[static_cast<size_t>(r)] != kUnset) group.insert(r);
    for (bool changed = true; changed;) {
      changed = false;
      for (auto it = group.begin(); it != group.end();) {
        bool closed = true;
        for (VarId v : P_.vars_of(back.regs[static_cast<size_t>(*it)])) {
          auto pr = probe_reg.find(v);
          if (pr != probe_reg.end() && !group.count(pr->second)) closed = false;
        }
        if (closed) {
          ++it;
        } else {
          it = group.erase(it);
          changed = true;
        }
      }
    }
    if (!group.empty()) {
      const std::vector<int> regs(group.begin(), group.end());
      std::vector<std::vector<TermId>> states{{}};
      for (int r : regs) states[0].push_back(E.regs[static_cast<size_t>(r)]);
      bool cycled = false;
      for (int k = 0; k < 16 && !cycled; ++k) {
        std::unordered_map<VarId, TermId> at;
        for (size_t i = 0; i < regs.size(); ++i)
          at[static_cast<VarId>(P_.node(probes.at(regs[i])).value)] = states.back()[i];
        std::vector<TermId> next;
        for (int r : regs) next.push_back(P_.substitute(back.regs[static_cast<size_t>(r)], at));
        if (std::find(states.begin(), states.end(), next) != states.end()) cycled = true;
        else states.push_back(std::move(next));
      }
      if (cycled) {
        const TermId sel = P_.var_term(uniform(fmt::format("stage@{}", where), 32, 0, states.size() - 1));
        for (size_t i = 0; i < regs.size(); ++i) {
          TermId v = states.back()[i];
          for (size_t k = states.size() - 1; k-- > 0;) v = P_.ite(P_.eq(sel, P_.constant(k, 32)), states[k][i], v);
          model[regs[i]] = v;
        }
        pending.erase(std::remove_if(pending.begin(), pending.end(), [&](int r) { return group.count(r) != 0; }),
                      pending.end());
      }
    }
    // entry + V*2^k: the step, with the other registers' models in place, is lane-uniform and a
    // multiple of 2^k at every iteration.
    for (bool progress = true; progress && !pending.empty();) {
      progress = false;
      for (auto it = pending.begin(); it != pending.end();) {
        const int r = *it;
        const TermId x = probes.at(r);
        const TermId e = E.regs[static_cast<size_t>(r)];
        const int w = fr.cfg->reg_bits[static_cast<size_t>(r)];
        std::unordered_map<VarId, TermId> others;
        for (auto& [q, xq] : probes)
          if (q != r && model[q] != kUnset) others[static_cast<VarId>(P_.node(xq).value)] = model[q];
        const TermId u = back.regs[static_cast<size_t>(r)];
        // Recomputed every iteration from other registers the model knows (a byte offset the
        // compiler derives from a halving counter): iteration n's value is the update applied to
        // their values at iteration n-1. Exact.
        if (derived_from(u, x, others, probe_reg)) {
          const TermId prev = P_.sub(n, P_.constant(1, 32));
          std::unordered_map<VarId, TermId> at_prev;
          for (auto& [v, m] : others) at_prev[v] = P_.substitute(m, {{static_cast<VarId>(P_.node(n).value), prev}});
          const TermId next = P_.substitute(u, at_prev);
          model[r] = e == kUnset ? next : P_.ite(P_.eq(n, P_.constant(0, 32)), e, next);
          it = pending.erase(it);
          progress = true;
          continue;
        }
        const TermId step = P_.substitute(P_.sub(u, x), others);
        if (e != kUnset && !P_.has_probe(step) && !P_.lane_dependent(step)) {
          const int k = P_.trailing_zeros(step);
          if (k >= w) {
            model[r] = e;
          } else {
            const TermId V = P_.var_term(uniform(fmt::format("v{}@{}", r, where), w, 0, term::mask_of(w) >> k, 0,
                                                "a loop value the model over-approximates (the loop may never produce it)"));
            model[r] = P_.add(e, P_.mul(V, P_.constant(uint64_t{1} << k, w)));
          }
          it = pending.erase(it);
          progress = true;
        } else {
          ++it;
        }
      }
    }
    for (int r : pending)
      model[r] = opaque(fmt::format("a register carried around the loop at {} is not an induction variable the model knows", where),
                        fr.cfg->reg_bits[static_cast<size_t>(r)]);
  }

  // x' = x << c, x * 2^c, x >> c (logical or arithmetic) for a constant c: the register at
  // iteration n is its entry shifted by n*c. The amount is clamped at the width, past which every
  // shift gives the same value, so n*c cannot wrap. Exact. Also the iterations after which the
  // value no longer changes.
  std::optional<std::pair<TermId, uint64_t>> geometric(TermId x, TermId e, TermId u, TermId n) {
    const int w = P_.width(x);
    const term::Node& un = P_.node(u);
    auto amount = [&](uint64_t c) {
      const TermId wc = P_.constant(static_cast<uint64_t>(w), 32);
      const TermId clamped = P_.ite(P_.ult(n, wc), n, wc);
      return P_.resize(P_.mul(clamped, P_.constant(c, 32)), w);
    };
    auto settled_after = [&](uint64_t c) { return (static_cast<uint64_t>(w) + c - 1) / c + 1; };
    if ((un.op == term::Op::LShr || un.op == term::Op::AShr) && un.a == x && P_.is_const(un.b)) {
      const uint64_t c = P_.node(un.b).value;
      return std::pair{un.op == term::Op::LShr ? P_.lshr(e, amount(c)) : P_.ashr(e, amount(c)), settled_after(c)};
    }
    const term::TermPool::Sum sum = P_.sum_of(u);
    if (sum.constant == 0 && sum.atoms.size() == 1 && sum.atoms[0].first == x) {
      const uint64_t coef = sum.atoms[0].second & term::mask_of(w);
      if (coef > 1 && (coef & (coef - 1)) == 0) {
        const auto c = static_cast<uint64_t>(__builtin_ctzll(coef));
        return std::pair{P_.shl(e, amount(c)), settled_after(c)};
      }
    }
    return std::nullopt;
  }

  // Any other update of a register by itself and loop-invariant values whose sequence from the
  // entry value settles (v_{k+1} = v_k: a halving counter rounded toward zero, a mask filled
  // bit by bit) within kMaxSettle iterations: the value at iteration n is v_min(n, k). Exact.
  // Also the iterations after which the value no longer changes.
  std::optional<std::pair<TermId, uint64_t>> settling_sequence(TermId x, TermId e, TermId u, TermId n,
                                                              const std::unordered_map<VarId, int>& probe_reg) {
    for (VarId v : P_.vars_of(u))
      if (probe_reg.count(v) && P_.var_term(v) != x) return std::nullopt;
    const VarId xv = static_cast<VarId>(P_.node(x).value);
    std::vector<TermId> seq{e};
    while (seq.size() <= kMaxSettle) {
      const TermId next = P_.substitute(u, {{xv, seq.back()}});
      if (next == seq.back()) {
        TermId v = seq.back();
        for (size_t k = seq.size() - 1; k-- > 0;) v = P_.ite(P_.eq(n, P_.constant(k, 32)), seq[k], v);
        return std::pair{v, static_cast<uint64_t>(seq.size())};
      }
      seq.push_back(next);
    }
    return std::nullopt;
  }

  // Whether `u` reads no probe but those of other registers, each with a model in `others`.
  bool derived_from(TermId u, TermId x, const std::unordered_map<VarId, TermId>& others,
                    const std::unordered_map<VarId, int>& probe_reg) const {
    bool any = false;
    for (VarId v : P_.vars_of(u)) {
      if (!probe_reg.count(v)) continue;
      if (P_.var_term(v) == x || !others.count(v)) return false;
      any = true;
    }
    return any;
  }

  /// Iterations a settling sequence is followed for: a shift by one bit of a 64-bit register settles within 65.
  static constexpr size_t kMaxSettle = 65;

  const Module& m_;
  const Function& kernel_;
  bool standalone_;
  const EvalOptions& opt_;
  TermPool& P_;
  KernelResult& out_;
  std::map<const Function*, Cfg> cfgs_;
  std::deque<Frame> stack_;  // a deque: frames stay put while calls push more
  std::vector<State> returns_;
  std::map<VarId, const SharedSymbol*> symbols_;
  std::set<VarId> unkeyed_uniforms_;  ///< uniforms made fresh at each evaluation (a loop's iteration, a loaded value)
  int probing_ = 0, probe_depth_ = 0;
  size_t steps_ = 0;
  TermId warp_ = 0, thread_exists_ = 0, launch_ok_ = 0, shared_window_ = 0, local_window_ = 0;
  std::array<TermId, 3> tid_{}, ntid_{};
  bool multi_d_ = false;
  const std::vector<KernelLaunch>* stated_ = nullptr;  ///< the launches stated for this kernel
  std::map<std::string, TermId> launch_values_;         ///< launch registers read, by name
  std::map<std::pair<std::string, int64_t>, TermId> param_values_;  ///< kernel parameters read: (name, offset)
};

}  // namespace

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
    KernelEval(module, f, !f.is_entry, options, out.pool, k).run();
    out.kernels.push_back(std::move(k));
  }
}

}  // namespace lp::ptx
