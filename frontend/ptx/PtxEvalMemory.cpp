// The evaluator's memory instructions: shared symbols' bases, the address spaces of ld/st/atom/red
// and of the .param space, ldmatrix/stmatrix and cp.async, each recorded as a Site.
#include <fmt/format.h>

#include <algorithm>

#include "frontend/ptx/PtxKernelEval.h"
#include "hw/BankModel.h"
#include "hw/HwError.h"
#include "hw/SmemInstr.h"

namespace lp::ptx::detail {

namespace {

int vector_count(const Instruction& ins) {
  if (ins.has("v2")) return 2;
  if (ins.has("v4")) return 4;
  if (ins.has("v8")) return 8;
  return 1;
}

}  // namespace

// ---- symbols ----
TermId KernelEval::shared_base(const SharedSymbol& s) {
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

TermId KernelEval::symbol_address(const Frame& fr, const Operand& o, int width) {
  if (o.name == kWarpSizeIdentifier) return P_.constant(hw::kWarpLanes, width);
  TermId base;
  if (const SharedSymbol* s = m_.shared_symbol(*fr.fn, o.name)) base = P_.resize(shared_base(*s), width);
  else base = P_.var_term(keyed_uniform("&" + o.name, "&" + o.name, width, 0, term::mask_of(width)));
  return P_.add(base, P_.constant(static_cast<uint64_t>(o.offset), width));
}

// ---- sites ----
SiteOrigin KernelEval::origin_at(size_t pos, std::optional<size_t> loc) const {
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

void KernelEval::record(State& s, const Instruction& ins, SiteKind kind, std::string instr, int bytes, TermId address,
                        std::optional<TermId> guard, std::optional<std::string> unknown, std::string note,
                        std::optional<std::string> cost_unknown) {
  if (probing_ > 0) return;
  Site site;
  site.kind = kind;
  site.opcode = ins.opcode;
  // The catalog's instruction, once: what the facts and every rule judge.
  if (!instr.empty()) try {
      site.instr = &hw::smem_instr(instr);
    } catch (const hw::HwError& e) {
      if (!unknown) unknown = e.what();
    }
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

void KernelEval::not_per_lane(State& s, const Instruction& ins, std::optional<TermId> guard, const std::string& why) {
  record(s, ins, SiteKind::NotPerLane, "", 0, P_.constant(0, 32), guard, std::nullopt, why);
}

/// The shared-window address of an address operand of a shared-space access.
TermId KernelEval::address_of(const Frame& fr, State& s, const Operand& o, int width) {
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
std::optional<TermId> KernelEval::generic_to_shared(TermId generic, std::string& problem) {
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

KernelEval::Space KernelEval::space_of(const Instruction& ins) {
  for (const std::string& p : ins.parts) {
    if (p == "shared" || p == "shared::cta") return Space::Shared;
    if (p == "shared::cluster") return Space::Cluster;
    if (p == "param") return Space::Param;
    if (p == "local") return Space::Local;
    if (p == "global" || p == "const") return Space::Other;
  }
  return Space::Generic;
}

std::string KernelEval::catalog_name(bool load, int bytes) {
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
void KernelEval::memory(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard) {
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
    if (op == "st" && probing_ == 0 && !ins.operands.empty()) {
      const Operand& data = ins.operands.back();
      std::vector<TermId>& stored = out_.sites.back().stored;
      if (data.kind == Operand::Kind::Vector)
        for (const Operand& e : data.elems) stored.push_back(get(fr, s, e, elem_bits));
      else if (data.kind == Operand::Kind::Register || data.kind == Operand::Kind::Immediate)
        stored.push_back(get(fr, s, data, elem_bits));
    }
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

void KernelEval::param_access(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard, bool load) {
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

bool KernelEval::is_kernel_param(const Frame& fr, const std::string& name) const {
  return fr.fn == &kernel_ &&
         std::any_of(kernel_.params.begin(), kernel_.params.end(), [&](const Param& p) { return p.name == name; });
}

void KernelEval::matrix(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard) {
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

void KernelEval::copy(const Frame& fr, State& s, const Instruction& ins, std::optional<TermId> guard) {
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

}  // namespace lp::ptx::detail
