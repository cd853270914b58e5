// The evaluator's instruction semantics: operands read and written per lane, the integer
// arithmetic that computes addresses, setp/cvt/cvta/mov/shfl, and the dispatcher over opcodes.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "frontend/ptx/PtxKernelEval.h"
#include "hw/BankModel.h"

namespace lp::ptx::detail {

namespace {

std::optional<RegType> type_part(const std::string& part) { return parse_type("." + part); }

bool is_signed(const RegType& t) { return t.name.size() > 1 && t.name[1] == 's'; }

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

}  // namespace

std::optional<RegType> op_type(const Instruction& ins) {
  for (auto it = ins.parts.rbegin(); it != ins.parts.rend(); ++it)
    if (auto t = type_part(*it)) return t;
  return std::nullopt;
}

// ---- operands ----
int KernelEval::reg_bits(const Frame& fr, const std::string& name) const {
  auto it = fr.cfg->reg_index.find(name);
  return it == fr.cfg->reg_index.end() ? 32 : fr.cfg->reg_bits[static_cast<size_t>(it->second)];
}

TermId KernelEval::read_reg(const Frame& fr, State& s, const std::string& name, size_t pos) {
  auto it = fr.cfg->reg_index.find(name);
  if (it == fr.cfg->reg_index.end()) return special(name, pos);
  TermId& v = s.regs[static_cast<size_t>(it->second)];
  if (v == kUnset)
    v = opaque(fmt::format("{} is read before it is written (line {})", name, line_of(m_, pos)),
               fr.cfg->reg_bits[static_cast<size_t>(it->second)]);
  return v;
}

/// The value of a source operand at `width` bits (sign-extended when `sign` and wider).
TermId KernelEval::get(const Frame& fr, State& s, const Operand& o, int width, bool sign) {
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

void KernelEval::set_reg(const Frame& fr, State& s, const std::string& name, TermId v, std::optional<TermId> guard) {
  auto it = fr.cfg->reg_index.find(name);
  if (it == fr.cfg->reg_index.end()) return;
  TermId& slot = s.regs[static_cast<size_t>(it->second)];
  v = P_.resize(v, fr.cfg->reg_bits[static_cast<size_t>(it->second)]);
  if (guard && slot != kUnset) v = P_.ite(*guard, v, slot);
  slot = v;
}

/// Writes `v` (of the operation's width) to a destination operand: a register, a vector of
/// registers (split into equal parts), or `_`.
void KernelEval::set(const Frame& fr, State& s, const Operand& o, TermId v, std::optional<TermId> guard) {
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
void KernelEval::set_unknown(const Frame& fr, State& s, const Operand& o, bool uniform_value, const std::string& what,
                             std::optional<TermId> guard, bool loaded_data) {
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

bool KernelEval::operand_uniform(const Frame& fr, State& s, const Operand& o) {
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
void KernelEval::generic(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard) {
  if (!writes_first_operand(ins)) return;
  bool uniform_inputs = pure_operation(ins.parts[0]);
  for (size_t k = 1; k < ins.operands.size() && uniform_inputs; ++k) uniform_inputs = operand_uniform(fr, s, ins.operands[k]);
  const std::string where = fmt::format("{} (line {})", ins.opcode, line_of(m_, ins.pos));
  set_unknown(fr, s, ins.operands[0], uniform_inputs,
              uniform_inputs ? where : fmt::format("the result of {} is not modelled", where), guard);
}

// ---- arithmetic ----
TermId KernelEval::shift_amount(TermId amount, int w) {
  amount = P_.resize(amount, std::max(32, P_.width(amount)));
  if (w >= P_.width(amount)) return P_.zext(amount, w);
  const TermId wc = P_.constant(static_cast<uint64_t>(w), P_.width(amount));
  return P_.trunc(P_.ite(P_.ult(amount, wc), amount, wc), w);
}

TermId KernelEval::compare(const std::string& cmp, TermId a, TermId b, bool sgn) {
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

TermId KernelEval::lop3(TermId a, TermId b, TermId c, uint64_t lut) {
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

TermId KernelEval::prmt(TermId a, TermId b, uint64_t sel) {
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
void KernelEval::shfl(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard) {
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
void KernelEval::arithmetic(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard) {
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

void KernelEval::setp(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard) {
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

void KernelEval::cvt(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard) {
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

void KernelEval::cvta(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard) {
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

void KernelEval::mov(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard) {
  const auto type = op_type(ins);
  if (ins.operands.size() != 2 || !type) return generic(fr, s, ins, guard);
  const int w = std::min(64, type->bits);
  set(fr, s, ins.operands[0], get(fr, s, ins.operands[1], w), guard);
}

// ---- the instruction dispatcher ----
void KernelEval::exec(const Frame& fr, State& s, const Instruction& ins) {
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

}  // namespace lp::ptx::detail
