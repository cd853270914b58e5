#include "frontend/sass/SassConstants.h"

#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace lp::sass {

namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// "R12" / "UR4" -> (uniform, 12); RZ and URZ read as zero and are never written.
struct RegName {
  bool uniform = false;
  int index = 0;
  bool zero = false;
};

std::optional<RegName> reg_name(std::string_view s) {
  RegName r;
  if (starts_with(s, "UR")) {
    r.uniform = true;
    s.remove_prefix(2);
  } else if (starts_with(s, "R")) {
    s.remove_prefix(1);
  } else {
    return std::nullopt;
  }
  if (s == "Z") {
    r.zero = true;
    return r;
  }
  if (s.empty() || s.size() > 3 || s.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  r.index = std::stoi(std::string(s));
  return r;
}

bool is_predicate(std::string_view s) {
  if (!s.empty() && s.front() == '!') s.remove_prefix(1);
  if (starts_with(s, "U")) s.remove_prefix(1);
  return s == "PT" || (s.size() == 2 && s[0] == 'P' && s[1] >= '0' && s[1] <= '7');
}

std::optional<uint64_t> immediate(std::string_view s) {
  bool negative = false;
  if (!s.empty() && s.front() == '-') {
    negative = true;
    s.remove_prefix(1);
  }
  if (s.empty() || s.size() > 18) return std::nullopt;
  const bool hex = starts_with(s, "0x");
  const std::string_view digits = hex ? s.substr(2) : s;
  if (digits.empty() || digits.find_first_not_of(hex ? "0123456789abcdefABCDEF" : "0123456789") != std::string_view::npos)
    return std::nullopt;
  const uint64_t v = std::stoull(std::string(digits), nullptr, hex ? 16 : 10);
  return negative ? uint64_t{0} - v : v;
}

// The IEEE binary16 bits of a decimal nvdisasm prints for a half immediate, when the decimal is
// exactly a half (nvdisasm prints them exactly); nullopt otherwise.
std::optional<uint16_t> half_bits(std::string_view s) {
  if (s.empty() || s.size() > 40 || s.find_first_not_of("0123456789.eE+-") != std::string_view::npos) return std::nullopt;
  const double v = std::strtod(std::string(s).c_str(), nullptr);
  if (!std::isfinite(v)) return std::nullopt;
  const uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  const double a = std::fabs(v);
  if (a == 0) return sign;
  int e = 0;
  std::frexp(a, &e);  // a = f * 2^e, f in [0.5, 1)
  --e;                // a = g * 2^e, g in [1, 2)
  if (e > 15) return std::nullopt;
  if (e < -14) {      // subnormal: a multiple of 2^-24 below 2^-14
    const double m = std::ldexp(a, 24);
    if (m != std::floor(m) || m >= 1024) return std::nullopt;
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(m));
  }
  const double m = std::ldexp(a, 10 - e) - 1024;  // the 10 fraction bits
  if (m != std::floor(m) || m < 0 || m >= 1024) return std::nullopt;
  return static_cast<uint16_t>(sign | static_cast<uint16_t>((e + 15) << 10) | static_cast<uint16_t>(m));
}

class Evaluator {
 public:
  explicit Evaluator(uint32_t cta_rank) : cta_rank_(cta_rank) {}

  // Evaluates one instruction; false where the straight-line entry ends.
  bool step(const Instruction& ins, std::vector<ConstantStore>& stores) {
    const std::string& op = ins.opcode;
    const std::string base = ins.name();
    if (base == "BRA" || base == "BRX" || base == "JMP" || base == "JMX" || base == "CALL" || base == "RET" ||
        base == "EXIT" || base == "BREAK" || base == "BPT")
      return false;
    if (base == "STG" || base == "ST") {
      if (!ins.guard && ins.operands.size() == 2) record_store(ins.operands[0], ins.operands[1], stores);
      return true;
    }
    std::vector<std::string_view> ops;  // predicates (carry outs, conditions) left out
    for (const std::string& o : ins.operands) {
      std::string_view v = o;
      if (const size_t reuse = v.find(".reuse"); reuse != std::string_view::npos) v = v.substr(0, reuse);
      if (!is_predicate(v)) ops.push_back(v);
    }
    if (ops.empty()) return true;
    const std::optional<RegName> dest = reg_name(ops[0]);
    if (!dest) return true;  // writes no register (or only a predicate)
    const std::optional<uint64_t> result = ins.guard ? std::nullopt : evaluate(op, base, ops);
    if (result) {
      set(*dest, 0, static_cast<uint32_t>(*result));
      if (op == "CS2R") set(*dest, 1, static_cast<uint32_t>(*result >> 32));
    } else if (many_results(base)) {
      values_.clear();
    } else {
      for (int k = 0; k < results(op); ++k) forget(*dest, k);
    }
    return true;
  }

 private:
  std::optional<uint64_t> read(std::string_view s) const {
    bool negate = false;
    if (!s.empty() && s.front() == '-' && !immediate(s)) {
      negate = true;
      s.remove_prefix(1);
    }
    std::optional<uint64_t> v;
    if (const std::optional<RegName> r = reg_name(s)) {
      if (r->zero) v = 0;
      else if (auto it = values_.find(key(*r, 0)); it != values_.end()) v = it->second;
    } else if (s == "SRZ") {
      v = 0;
    } else if (s == "SR_CgaCtaId") {
      v = cta_rank_;
    } else {
      v = immediate(s);
    }
    if (v && negate) v = uint64_t{0} - *v;
    return v;
  }

  std::optional<uint64_t> evaluate(const std::string& op, const std::string& base, const std::vector<std::string_view>& ops) const {
    auto arg = [&](size_t i) { return i < ops.size() ? read(ops[i]) : std::nullopt; };
    const uint64_t m32 = 0xffffffffu;
    if (op == "MOV" || op == "UMOV" || op == "MOV32I" || op == "R2UR" || op == "S2R" || op == "S2UR") {
      if (ops.size() != 2) return std::nullopt;
      return arg(1);
    }
    if (op == "HFMA2.MMA" || op == "HFMA2") {  // d = -RZ * RZ + (H1, H0): ptxas's way to move a constant
      if (ops.size() != 5 || (ops[1] != "-RZ" && ops[1] != "RZ") || ops[2] != "RZ") return std::nullopt;
      const auto hi = half_bits(ops[3]), lo = half_bits(ops[4]);
      if (!hi || !lo) return std::nullopt;
      return uint64_t{*hi} << 16 | *lo;
    }
    if (op == "CS2R") return ops.size() == 2 && ops[1] == "SRZ" ? std::optional<uint64_t>(0) : std::nullopt;
    if (op == "IADD3" || op == "UIADD3" || op == "VIADD" || op == "IADD" || op == "UIADD") {
      uint64_t sum = 0;
      for (size_t i = 1; i < ops.size(); ++i) {
        const std::optional<uint64_t> v = arg(i);
        if (!v) return std::nullopt;
        sum += *v;
      }
      return sum & m32;
    }
    if (base == "IMAD" || base == "UIMAD") {  // d = a * b + c; .WIDE/.HI/.X are not 32-bit results
      if (op.find(".WIDE") != std::string::npos || op.find(".HI") != std::string::npos || op.find(".X") != std::string::npos ||
          ops.size() != 4)
        return std::nullopt;
      const auto a = arg(1), b = arg(2), c = arg(3);
      if (!a || !b || !c) return std::nullopt;
      return (*a * *b + *c) & m32;
    }
    if (op == "LEA" || op == "ULEA") {  // d = (a << s) + b
      if (ops.size() != 4) return std::nullopt;
      const auto a = arg(1), b = arg(2), s = arg(3);
      if (!a || !b || !s || *s > 31) return std::nullopt;
      return ((*a << *s) + *b) & m32;
    }
    if (op == "SHF.L.U32" || op == "USHF.L.U32") {
      if (ops.size() != 4) return std::nullopt;
      const auto a = arg(1), s = arg(2), hi = arg(3);
      if (!a || !s || !hi || *hi != 0 || *s > 31) return std::nullopt;
      return (*a << *s) & m32;
    }
    if (op == "SHF.R.U32.HI" || op == "USHF.R.U32.HI") {  // d = c >> s with a zero low word
      if (ops.size() != 4) return std::nullopt;
      const auto lo = arg(1), s = arg(2), c = arg(3);
      if (!lo || *lo != 0 || !s || !c || *s > 31) return std::nullopt;
      return (*c & m32) >> *s;
    }
    if (op == "LOP3.LUT" || op == "ULOP3.LUT") {
      if (ops.size() != 5) return std::nullopt;
      const auto a = arg(1), b = arg(2), c = arg(3), lut = arg(4);
      if (!a || !b || !c || !lut || *lut > 0xff) return std::nullopt;
      uint64_t r = 0;
      for (int bit = 0; bit < 32; ++bit) {
        const unsigned i = static_cast<unsigned>(((*a >> bit) & 1) << 2 | ((*b >> bit) & 1) << 1 | ((*c >> bit) & 1));
        r |= ((*lut >> i) & 1) << bit;
      }
      return r;
    }
    return std::nullopt;
  }

  // `[Rn.64+imm]`, the last bracket of `desc[URk][Rn.64+imm]`; the value a register.
  void record_store(std::string_view address, std::string_view value, std::vector<ConstantStore>& stores) const {
    const size_t open = address.rfind('[');
    if (open == std::string_view::npos || address.back() != ']') return;
    std::string_view inside = address.substr(open + 1, address.size() - open - 2);
    std::string_view offset;
    if (const size_t plus = inside.find('+'); plus != std::string_view::npos) {
      offset = inside.substr(plus + 1);
      inside = inside.substr(0, plus);
    }
    if (const size_t dot = inside.find(".64"); dot == std::string_view::npos || dot + 3 != inside.size()) return;
    const std::optional<RegName> r = reg_name(inside.substr(0, inside.size() - 3));
    if (!r) return;
    std::optional<uint64_t> lo = r->zero ? std::optional<uint64_t>(0) : find(*r, 0);
    std::optional<uint64_t> hi = r->zero ? std::optional<uint64_t>(0) : find(*r, 1);
    const std::optional<uint64_t> imm = offset.empty() ? std::optional<uint64_t>(0) : immediate(offset);
    const std::optional<uint64_t> v = read(value);
    if (!lo || !hi || !imm || !v) return;
    stores.push_back(ConstantStore{(*hi << 32 | *lo) + *imm, static_cast<uint32_t>(*v)});
  }

  // Registers an instruction writes from its first operand on: its width's, by its modifiers.
  static int results(const std::string& op) {
    if (op.find(".128") != std::string::npos || op.find(".X4") != std::string::npos) return 4;
    if (op.find(".64") != std::string::npos || op.find(".WIDE") != std::string::npos || op.find(".X2") != std::string::npos ||
        op == "CS2R")
      return 2;
    return 1;
  }
  // Matrix, texture and surface instructions write register tuples their modifiers do not spell.
  static bool many_results(const std::string& base) {
    for (const char* b : {"HMMA", "IMMA", "DMMA", "BMMA", "HGMMA", "IGMMA", "BGMMA", "QGMMA", "LDSM", "MOVM", "TEX", "TLD", "TLD4",
                          "TMML", "TXD", "TXQ", "SULD", "SUATOM", "LDTRAM", "UTMALDG", "UTMACCTL"})
      if (base == b) return true;
    return false;
  }

  static std::string key(const RegName& r, int k) { return (r.uniform ? "UR" : "R") + std::to_string(r.index + k); }
  std::optional<uint64_t> find(const RegName& r, int k) const {
    auto it = values_.find(key(r, k));
    return it == values_.end() ? std::nullopt : std::optional<uint64_t>(it->second);
  }
  void set(const RegName& r, int k, uint32_t v) {
    if (!r.zero) values_[key(r, k)] = v;
  }
  void forget(const RegName& r, int k) {
    if (!r.zero) values_.erase(key(r, k));
  }

  uint32_t cta_rank_;
  std::map<std::string, uint64_t> values_;
};

}  // namespace

std::vector<ConstantStore> entry_constant_stores(const Function& f, uint32_t cta_rank) {
  Evaluator e(cta_rank);
  std::vector<ConstantStore> stores;
  for (const Instruction& ins : f.code) {
    if (ins.labelled) break;  // a branch target: values may arrive from elsewhere
    if (!e.step(ins, stores)) break;
  }
  return stores;
}

}  // namespace lp::sass
