#pragma once
// A small bit-vector term language for what one lane of a warp computes: a hash-consed DAG of
// fixed-width (1..64 bit) operations over constants and variables, with exact concrete
// evaluation. Arithmetic wraps modulo 2^width exactly as PTX integer instructions (and Z3's
// bit-vectors) do, so a term is a faithful encoding of the instructions it came from.
//
// Variables say what is known about a value that is not a constant:
//   Lane     the lane index 0..31 inside the warp (the only per-lane variable that is modelled);
//   Uniform  one value shared by every lane of the warp (a kernel parameter, the block index,
//            the warp index, a shared symbol's base, a loop's iteration count, a value loaded
//            from a warp-uniform address), with an optional range and alignment;
//   Opaque   a per-lane value that is not modelled (a load from a per-lane address, an
//            instruction the front end does not know): anything that depends on one is unknown,
//            with the variable's reason;
//   Probe    a loop-carried value while a loop's body is being summarised (internal).
// Bool values are width-1 terms. Every node records whether it depends on the lane, on an
// opaque or a probe variable, so a question like "is this address lane-uniform?" is O(1).
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace lp::term {

using TermId = uint32_t;
using VarId = uint32_t;

enum class Op : uint8_t {
  Const, Var,
  Add, Mul, MulHiU, MulHiS, UDiv, SDiv, URem, SRem,
  Shl, LShr, AShr, And, Or, Xor, Not,
  ZExt, SExt, Trunc,  ///< to the node's width
  Ite,                ///< a ? b : c, a of width 1
  Eq, Ult, Slt,       ///< width 1
};

enum class VarKind : uint8_t { Lane, Uniform, Opaque, Probe };

struct VarInfo {
  std::string name;
  VarKind kind = VarKind::Uniform;
  int width = 32;
  uint64_t lo = 0, hi = ~uint64_t{0};  ///< unsigned range [lo, hi] (inclusive); hi is clipped to the width
  int align_log2 = 0;       ///< the low align_log2 bits are zero
  /// Opaque: why the value is not modelled. Over-approximated: why the domain is wider than the
  /// values the program can give it.
  std::string reason;
  /// Uniform values whose domain the model over-approximates (a loop's iteration count, a loop
  /// value's congruence class, a special register whose values PTX does not state): a
  /// counterexample at such a value may not be reachable.
  bool over_approximated = false;
  /// Opaque: a value the kernel loads from memory (or an atomic returns), different per lane: data,
  /// not a gap of the model; an access that depends on it is unknown for that reason alone.
  bool loaded_data = false;
};

/// The values a uniform variable may take: lo..hi whose low align_log2 bits are zero.
struct VarDomain {
  uint64_t lo = 0, hi = 0;
  int align_log2 = 0;
  friend bool operator==(const VarDomain&, const VarDomain&) = default;
};

/// Flags of a node (and of everything below it).
enum : uint8_t { kLaneDep = 1, kOpaqueDep = 2, kProbeDep = 4, kApproxDep = 8 };

struct Node {
  Op op = Op::Const;
  uint8_t width = 32;
  uint8_t flags = 0;
  uint16_t depth = 1;
  TermId a = 0, b = 0, c = 0;
  uint64_t value = 0;  ///< Const: the bits; Var: the VarId
  uint64_t umax = 0;   ///< an upper bound of the unsigned value, for every value of the variables
  uint64_t umin = 0;   ///< a lower bound of the same (a block extent is at least 1: a divisor that is never 0)
};

/// Too many nodes or a term too deep: what a hostile input runs into. The front end turns it into
/// a located diagnostic; nothing is silently truncated.
class TermLimitError : public std::runtime_error {
 public:
  explicit TermLimitError(const std::string& what) : std::runtime_error(what) {}
};

inline constexpr uint64_t mask_of(int width) { return width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1; }

class TermPool {
 public:
  /// Bounds on the DAG: nodes in the pool, and the depth of any one term.
  static constexpr size_t kMaxNodes = size_t{4} << 20;
  static constexpr int kMaxDepth = 2000;

  TermPool();

  // ---- variables ----
  VarId new_var(VarInfo info);
  /// The variable `name` (created with `info` the first time): kernel parameters and special
  /// registers read twice are the same value.
  VarId keyed_var(const std::string& key, const VarInfo& info);
  const VarInfo& var(VarId v) const { return vars_[v]; }
  size_t var_count() const { return vars_.size(); }
  TermId lane() const { return lane_term_; }
  VarId lane_var() const { return lane_var_; }
  TermId var_term(VarId v) const { return var_terms_.at(v); }

  // ---- construction (simplifying, hash-consed) ----
  TermId constant(uint64_t value, int width);
  TermId boolean(bool b) { return constant(b ? 1 : 0, 1); }
  TermId add(TermId a, TermId b);
  TermId sub(TermId a, TermId b);
  TermId neg(TermId a);
  TermId mul(TermId a, TermId b);
  TermId mulhi(TermId a, TermId b, bool is_signed);
  TermId udiv(TermId a, TermId b);
  TermId sdiv(TermId a, TermId b);
  TermId urem(TermId a, TermId b);
  TermId srem(TermId a, TermId b);
  TermId shl(TermId a, TermId amount);
  TermId lshr(TermId a, TermId amount);
  TermId ashr(TermId a, TermId amount);
  TermId bit_and(TermId a, TermId b);
  TermId bit_or(TermId a, TermId b);
  TermId bit_xor(TermId a, TermId b);
  TermId bit_not(TermId a);
  TermId zext(TermId a, int width);
  TermId sext(TermId a, int width);
  TermId trunc(TermId a, int width);
  /// zext or trunc to `width` (identity when equal).
  TermId resize(TermId a, int width);
  TermId ite(TermId cond, TermId then_t, TermId else_t);
  TermId eq(TermId a, TermId b);
  TermId ne(TermId a, TermId b) { return bit_not(eq(a, b)); }
  TermId ult(TermId a, TermId b);
  TermId ule(TermId a, TermId b) { return bit_not(ult(b, a)); }
  TermId slt(TermId a, TermId b);
  TermId sle(TermId a, TermId b) { return bit_not(slt(b, a)); }

  // ---- inspection ----
  const Node& node(TermId t) const { return nodes_[t]; }
  int width(TermId t) const { return nodes_[t].width; }
  bool is_const(TermId t) const { return nodes_[t].op == Op::Const; }
  std::optional<uint64_t> const_value(TermId t) const {
    return is_const(t) ? std::optional<uint64_t>(nodes_[t].value) : std::nullopt;
  }
  bool lane_dependent(TermId t) const { return nodes_[t].flags & kLaneDep; }
  bool opaque(TermId t) const { return nodes_[t].flags & kOpaqueDep; }
  bool has_probe(TermId t) const { return nodes_[t].flags & kProbeDep; }
  bool over_approximated(TermId t) const { return nodes_[t].flags & kApproxDep; }
  uint64_t max_value(TermId t) const { return nodes_[t].umax; }
  size_t size() const { return nodes_.size(); }

  /// The variables `t` depends on, ascending.
  std::vector<VarId> vars_of(TermId t) const;
  /// The reason of the first opaque variable under `t` (empty when none).
  std::string opaque_reason(TermId t) const;
  /// Whether `t` depends on opaque variables and every one of them is loaded data.
  bool only_loaded_data(TermId t) const;
  /// `t` as a sum: sum of coefficient * atom, plus a constant (atoms are the non-sum terms).
  struct Sum {
    std::vector<std::pair<TermId, uint64_t>> atoms;
    uint64_t constant = 0;
  };
  Sum sum_of(TermId t) const;
  /// Low bits of `t` known to be zero for every value of its variables.
  int trailing_zeros(TermId t) const;
  /// `t` with variables replaced (each by a term of its width).
  TermId substitute(TermId t, const std::unordered_map<VarId, TermId>& with);
  /// Readable form for messages, e.g. "(lane*4 + smem)"; long terms are elided.
  std::string print(TermId t, size_t max_chars = 200) const;

 private:
  TermId make(Node n);
  TermId add_linear(const std::vector<std::pair<TermId, uint64_t>>& atoms, uint64_t constant, int width);
  void fold_euclid(std::map<TermId, uint64_t>& merged, uint64_t& constant, uint64_t m) const;
  void linear_form(TermId t, uint64_t scale, std::vector<std::pair<TermId, uint64_t>>& atoms, uint64_t& constant,
                   size_t& budget) const;
  TermId commutative(Op op, TermId a, TermId b);
  TermId shift(Op op, TermId a, TermId amount);
  uint64_t bound_of(const Node& n) const;
  uint64_t lower_bound_of(const Node& n) const;
  /// (h + l) >> k and (h + l) & (2^k - 1) for a sum whose atoms split into multiples of 2^k (h)
  /// and a rest below 2^k (l), without wrap-around: h >> k, and l. nullopt when it does not split.
  std::optional<std::pair<TermId, TermId>> split_at_bit(TermId sum, int k);
  void print_into(TermId t, std::string& out, size_t max_chars) const;

  struct NodeHash {
    size_t operator()(const Node& n) const;
  };
  struct NodeEq {
    bool operator()(const Node& x, const Node& y) const;
  };
  std::vector<Node> nodes_;
  std::unordered_map<Node, TermId, NodeHash, NodeEq> index_;
  std::vector<VarInfo> vars_;
  std::vector<TermId> var_terms_;
  std::unordered_map<std::string, VarId> keyed_;
  /// trunc's results by term and width: terms share operands (the pool is a DAG), and truncating
  /// through them without this would visit a shared operand once per path to it.
  std::unordered_map<uint64_t, TermId> truncated_;
  VarId lane_var_ = 0;
  TermId lane_term_ = 0;
};

/// Values of the variables, by VarId; evaluates terms exactly (bits, masked to each width).
class Evaluator {
 public:
  explicit Evaluator(const TermPool& pool);
  void set(VarId v, uint64_t value);
  uint64_t value_of(VarId v) const { return env_[v]; }
  /// The bits of `t`; variables not set are 0. Division by zero gives what Z3 gives (all ones
  /// for udiv, the dividend for urem), so the two agree everywhere.
  uint64_t eval(TermId t);

 private:
  const TermPool& pool_;
  std::vector<uint64_t> env_;
  std::vector<uint64_t> cache_;
  /// A cached value is current when its stamp is the generation, or, for a lane-free term, when
  /// it was computed since the last change of a variable other than the lane.
  std::vector<uint64_t> stamp_;
  uint64_t generation_ = 1;
  uint64_t uniform_generation_ = 1;
};

/// Sign-extends the low `width` bits of `bits` to 64.
int64_t to_signed(uint64_t bits, int width);

}  // namespace lp::term
