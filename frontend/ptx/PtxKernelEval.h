#pragma once
// The per-kernel evaluator behind analyze() (PtxEval.h): its lane state, its frames and the
// declarations of its parts, defined in PtxEval.cpp (the launch, calls and control flow),
// PtxEvalInstructions.cpp, PtxEvalMemory.cpp and PtxEvalLoops.cpp.
#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "frontend/ptx/PtxCfg.h"
#include "frontend/ptx/PtxEval.h"
#include "frontend/ptx/PtxModule.h"
#include "frontend/term/Term.h"

namespace lp::ptx::detail {

using term::TermId;
using term::TermPool;
using term::VarId;
using term::VarInfo;
using term::VarKind;

constexpr TermId kUnset = ~TermId{0};

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

// The instruction's operation type: its last component that is a type (".u32" in add.s32? no:
// the last one), e.g. ld.shared.v4.u32 -> .u32.
std::optional<RegType> op_type(const Instruction& ins);

std::string line_of(const Module& m, size_t pos);

class KernelEval {
 public:
  KernelEval(const Module& m, const Function& kernel, bool standalone, const EvalOptions& opt, TermPool& pool,
             KernelResult& out)
      : m_(m), kernel_(kernel), standalone_(standalone), opt_(opt), P_(pool), out_(out) {}

  void run();

 private:
  struct Frame {
    const Function* fn;
    const Cfg* cfg;
    std::optional<size_t> call_pos;  ///< the PTX offset of the call that entered; none for the kernel
    std::optional<size_t> call_loc;
  };

  // ---- threads of the block and the launch (PtxEval.cpp) ----
  bool reads_tid_yz(const Function& f, std::set<const Function*>& seen);
  VarId uniform(const std::string& name, int width, uint64_t lo, uint64_t hi, int align_log2 = 0,
                std::optional<std::string> approximated = std::nullopt);
  VarId keyed_uniform(const std::string& key, const std::string& name, int width, uint64_t lo, uint64_t hi);
  TermId opaque(const std::string& reason, int width, bool loaded_data = false);
  static int64_t product(const std::array<int64_t, 3>& d);

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

  void setup_threads();
  TermId launch_value(const std::string& name, uint64_t lo, uint64_t hi, std::optional<int64_t> fixed = std::nullopt);
  std::optional<int64_t> stated_grid(size_t d) const;
  TermId dynamic_smem();
  int64_t static_smem_bytes() const;
  TermId dynamic_extent();
  static TermId relation(TermPool& P, TermId v, ParamFact::Relation r, int64_t value);
  TermId finish_launch();
  TermId special(const std::string& name, size_t pos);

  // ---- calls and control flow (PtxEval.cpp) ----
  void call(const Frame&, State& s, const Instruction& ins, std::optional<TermId> guard);
  const Cfg& cfg_of(const Function& f);
  void call_function(const Function& f, State entry, std::vector<State>& returns,
                     std::optional<std::pair<size_t, std::optional<size_t>>> call_site);
  State merge(std::vector<State>& in);
  void step(size_t pos);
  template <class Deliver>
  void exec_block(const Frame& fr, int b, State s, Deliver&& deliver);
  void run_region(std::optional<int> loop, State header_state, RegionOut& out);

  // ---- operands, arithmetic and the instruction dispatcher (PtxEvalInstructions.cpp) ----
  int reg_bits(const Frame& fr, const std::string& name) const;
  TermId read_reg(const Frame& fr, State& s, const std::string& name, size_t pos);
  TermId get(const Frame& fr, State& s, const Operand& o, int width, bool sign = false);
  void set_reg(const Frame& fr, State& s, const std::string& name, TermId v, std::optional<TermId> guard);
  void set(const Frame& fr, State& s, const Operand& o, TermId v, std::optional<TermId> guard);
  void set_unknown(const Frame& fr, State& s, const Operand& o, bool uniform_value, const std::string& what,
                   std::optional<TermId> guard, bool loaded_data = false);
  bool operand_uniform(const Frame& fr, State& s, const Operand& o);
  void generic(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard);
  TermId shift_amount(TermId amount, int w);
  TermId compare(const std::string& cmp, TermId a, TermId b, bool sgn);
  TermId lop3(TermId a, TermId b, TermId c, uint64_t lut);
  TermId prmt(TermId a, TermId b, uint64_t sel);
  void shfl(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard);
  void arithmetic(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard);
  void setp(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard);
  void cvt(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard);
  void cvta(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard);
  void mov(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard);
  void exec(const Frame& fr, State& s, const Instruction& ins);

  // ---- symbols, address spaces and shared-memory sites (PtxEvalMemory.cpp) ----
  enum class Space { Shared, Cluster, Generic, Param, Local, Other };
  TermId shared_base(const SharedSymbol& s);
  TermId symbol_address(const Frame& fr, const Operand& o, int width);
  SiteOrigin origin_at(size_t pos, std::optional<size_t> loc) const;
  void record(State& s, const Instruction& ins, SiteKind kind, std::string instr, int bytes, TermId address,
              std::optional<TermId> guard, std::optional<std::string> unknown = std::nullopt, std::string note = {},
              std::optional<std::string> cost_unknown = std::nullopt);
  void not_per_lane(State& s, const Instruction& ins, std::optional<TermId> guard, const std::string& why);
  TermId address_of(const Frame& fr, State& s, const Operand& o, int width);
  std::optional<TermId> generic_to_shared(TermId generic, std::string& problem);
  static Space space_of(const Instruction& ins);
  static std::string catalog_name(bool load, int bytes);
  void memory(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard);
  void param_access(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard, bool load);
  bool is_kernel_param(const Frame& fr, const std::string& name) const;
  void matrix(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard);
  void copy(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard);

  // ---- loop summaries (PtxEvalLoops.cpp) ----
  void process_loop(int id, std::vector<State>& entries, std::vector<std::pair<int, State>>& exits);
  bool monotone_exit(TermId bc, TermId n, std::vector<TermId>& no_wrap);
  void reconverge(const Loop& loop, const State& E, VarId first_var, const std::string& where,
                  std::vector<std::pair<int, State>>& exits);
  void conjuncts(TermId t, std::set<TermId>& out) const;
  static bool ends_lane(const std::string& op);
  bool ends_lanes(const Loop& loop) const;
  void classify(const Loop& loop, const State& E, const State& back, const std::map<int, TermId>& probes,
                const std::unordered_map<VarId, int>& probe_reg, TermId n, const std::string& where,
                std::map<int, TermId>& model, std::vector<TermId>& no_wrap, uint64_t& window);
  std::optional<std::pair<TermId, uint64_t>> geometric(TermId x, TermId e, TermId u, TermId n);
  std::optional<std::pair<TermId, uint64_t>> settling_sequence(TermId x, TermId e, TermId u, TermId n,
                                                              const std::unordered_map<VarId, int>& probe_reg);
  bool derived_from(TermId u, TermId x, const std::unordered_map<VarId, TermId>& others,
                    const std::unordered_map<VarId, int>& probe_reg) const;

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

}  // namespace lp::ptx::detail
