// The PTX reader, continued: function bodies (labels, guarded instructions and their operands), and
// after parsing, the check that every register, label and symbol used is declared.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "frontend/ptx/PtxReader.h"

namespace lp::ptx {

namespace {

// Special registers (PTX ISA 9.0 chapter 10); `%tid` with a component is `%tid.x`.
bool special_register(const std::string& name) {
  static const std::set<std::string> kBase = {
      "%tid", "%ntid", "%laneid", "%warpid", "%nwarpid", "%ctaid", "%nctaid", "%smid", "%nsmid", "%gridid",
      "%is_explicit_cluster", "%clusterid", "%nclusterid", "%cluster_ctaid", "%cluster_nctaid", "%cluster_ctarank",
      "%cluster_nctarank", "%lanemask_eq", "%lanemask_le", "%lanemask_lt", "%lanemask_ge", "%lanemask_gt", "%clock",
      "%clock_hi", "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi", "%total_smem_size",
      "%aggr_smem_size", "%dynamic_smem_size", "%current_graph_exec", "%reserved_smem_offset_begin",
      "%reserved_smem_offset_end", "%reserved_smem_offset_cap", "%reserved_smem_offset_0", "%reserved_smem_offset_1"};
  // The .v4 registers, read by component; the fourth, `.w`, is unused and reads 0.
  static const std::set<std::string> kVector = {"%tid", "%ntid", "%ctaid", "%nctaid", "%clusterid", "%nclusterid",
                                                "%cluster_ctaid", "%cluster_nctaid"};
  const size_t dot = name.find('.');
  const std::string base = name.substr(0, dot);
  // %envreg0..%envreg31, %pm0..%pm7 and %pm0_64..%pm7_64.
  auto numbered = [&](const std::string& prefix, int count, const std::string& suffix) {
    if (base.size() <= prefix.size() + suffix.size() || base.rfind(prefix, 0) != 0 ||
        base.compare(base.size() - suffix.size(), suffix.size(), suffix) != 0)
      return false;
    const std::string digits = base.substr(prefix.size(), base.size() - prefix.size() - suffix.size());
    if (digits.size() > 2 || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
        (digits.size() == 2 && digits[0] == '0'))
      return false;
    return std::stoi(digits) < count;
  };
  if (dot == std::string::npos && (numbered("%envreg", 32, "") || numbered("%pm", 8, "") || numbered("%pm", 8, "_64")))
    return true;
  if (!kBase.count(base)) return false;
  if (dot == std::string::npos) return true;
  const std::string comp = name.substr(dot + 1);
  return kVector.count(base) && (comp == "x" || comp == "y" || comp == "z" || comp == "w");
}

}  // namespace

namespace detail {

// ---- function bodies ----

void Reader::body(Function& f, size_t open) {
  int depth = 1;
  while (depth > 0) {
    if (tok_.kind == Token::Kind::End) fail(open, "unterminated function body: expected '}'");
    if (accept("{")) {
      if (++depth > limits_.max_nesting)
        fail(tok_.pos, fmt::format("blocks nested more than {} deep", limits_.max_nesting));
      continue;
    }
    if (accept("}")) {
      --depth;
      continue;
    }
    if (is(".loc")) {
      loc_directive();
      continue;
    }
    if (is(".file")) {
      file_directive();
      continue;
    }
    if (accept(".reg")) {
      reg_decl(f);
      continue;
    }
    if (is(".shared") || is(".local") || is(".param") || is(".const") || is(".global")) {
      variable(false, &f);
      continue;
    }
    if (accept(".pragma")) {
      skip_to_semicolon();
      continue;
    }
    if (tok_.kind == Token::Kind::Ident && tok_.text[0] != '.' && tok_.text[0] != '%') {
      // A label, a call prototype, or an instruction.
      const size_t pos = tok_.pos;
      std::string word = tok_.text;
      advance();
      if (accept(":")) {
        if (accept(".callprototype") || accept(".branchtargets")) {
          declared_.insert(word);
          skip_to_semicolon();
          continue;
        }
        if (f.labels.count(word)) fail(pos, fmt::format("label '{}' is defined twice", word));
        f.labels[word] = f.body.size();
        continue;
      }
      instruction(f, std::nullopt, word, pos);
      continue;
    }
    if (accept("@")) {
      Operand g;
      g.pos = tok_.pos;
      g.negated = accept("!");
      g.kind = Operand::Kind::Register;
      g.name = ident("a predicate register");
      const size_t pos = tok_.pos;
      std::string word = ident("an instruction");
      instruction(f, g, word, pos);
      continue;
    }
    expected("an instruction, a label or a declaration");
  }
}

Operand Reader::operand() {
  Operand o;
  o.pos = tok_.pos;
  if (accept("{")) {
    o.kind = Operand::Kind::Vector;
    if (!is("}")) do o.elems.push_back(operand()); while (accept(","));
    expect("}");
    return o;
  }
  if (accept("(")) {
    o.kind = Operand::Kind::List;
    if (!is(")")) do o.elems.push_back(operand()); while (accept(","));
    expect(")");
    return o;
  }
  if (accept("[")) {
    o.kind = Operand::Kind::Address;
    if (tok_.kind == Token::Kind::Ident) {
      Operand base;
      base.pos = tok_.pos;
      base.name = tok_.text;
      base.kind = tok_.text[0] == '%' ? Operand::Kind::Register : Operand::Kind::Symbol;
      advance();
      o.elems.push_back(base);
      if (is("+") || is("-")) {
        const bool minus = is("-");
        advance();
        const size_t pos = tok_.pos;
        const bool neg2 = accept("-");
        const uint64_t v = number("an offset");
        if (v > static_cast<uint64_t>(INT32_MAX) * 4) fail(pos, "address offset out of range");
        o.offset = (minus != neg2) ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
      }
      while (accept(",")) o.elems.push_back(operand());  // texture/surface forms
    } else {
      const size_t pos = tok_.pos;
      const bool neg = accept("-");
      const uint64_t v = number("an address");
      if (v > static_cast<uint64_t>(INT32_MAX) * 4) fail(pos, "address out of range");
      o.offset = neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
    }
    expect("]");
    return o;
  }
  if (accept("!")) {
    o = operand();
    o.negated = true;
    return o;
  }
  if (is("-") || tok_.kind == Token::Kind::Number) {
    const bool neg = accept("-");
    o.kind = Operand::Kind::Immediate;
    o.imm = number("a number");
    if (neg) o.imm = 0 - o.imm;
    return o;
  }
  if (tok_.kind == Token::Kind::Ident) {
    o.name = tok_.text;
    advance();
    if (o.name == "_") {
      o.kind = Operand::Kind::Sink;
      return o;
    }
    o.kind = o.name[0] == '%' ? Operand::Kind::Register : Operand::Kind::Symbol;
    if (o.kind == Operand::Kind::Symbol && (is("+") || is("-"))) {  // sym+8
      const bool minus = is("-");
      advance();
      const uint64_t v = number("an offset");
      if (v > static_cast<uint64_t>(INT32_MAX) * 4) fail(o.pos, "offset out of range");
      o.offset = minus ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
    }
    if (accept("|")) o.pair = ident("a predicate register");
    return o;
  }
  expected("an operand");
}

void Reader::instruction(Function& f, std::optional<Operand> guard, std::string opcode, size_t pos) {
  if (f.body.size() >= limits_.max_instructions)
    fail(pos, fmt::format("more than {} instructions in one function", limits_.max_instructions));
  Instruction ins;
  ins.guard = std::move(guard);
  ins.pos = ins.guard ? ins.guard->pos - 1 : pos;
  ins.opcode = opcode;
  size_t b = 0;
  while (b <= opcode.size()) {
    size_t e = opcode.find('.', b);
    if (e == std::string::npos) e = opcode.size();
    ins.parts.push_back(opcode.substr(b, e - b));
    b = e + 1;
  }
  if (!known_instruction(ins.parts[0])) fail(pos, fmt::format("unknown instruction '{}'", opcode));
  if (!is(";")) do ins.operands.push_back(operand()); while (accept(","));
  expect(";");
  ins.debug_loc = current_loc_;
  f.body.push_back(std::move(ins));
}

// ---- after parsing: every register, label and symbol used is declared ----

void Reader::check_register(const Function& f, const std::string& name, size_t pos) {
  if (special_register(name)) return;
  if (!f.reg_type(name)) fail(pos, fmt::format("use of undeclared register '{}'", name));
}

void Reader::check_operand(const Function& f, Operand& o, bool label_ok) {
  // Register names need no '%' (PTX ISA 4.4): a declared register named like an identifier.
  if (o.kind == Operand::Kind::Symbol && f.reg_type(o.name)) o.kind = Operand::Kind::Register;
  switch (o.kind) {
    case Operand::Kind::Register:
      check_register(f, o.name, o.pos);
      break;
    case Operand::Kind::Symbol: {
      const bool known = o.name == kWarpSizeIdentifier || declared_.count(o.name) || f.labels.count(o.name) || f.local_params.count(o.name) ||
                         std::any_of(f.params.begin(), f.params.end(), [&](const Param& p) { return p.name == o.name; }) ||
                         std::any_of(f.returns.begin(), f.returns.end(), [&](const Param& p) { return p.name == o.name; }) ||
                         std::any_of(f.shared.begin(), f.shared.end(), [&](const SharedSymbol& s) { return s.name == o.name; });
      if (!known) fail(o.pos, fmt::format("use of undeclared identifier '{}'", o.name));
      (void)label_ok;
      break;
    }
    default:
      break;
  }
  if (o.pair) check_register(f, *o.pair, o.pos);
  for (Operand& e : o.elems) check_operand(f, e, label_ok);
}

void Reader::validate() {
  for (Function& f : mod_->functions) {
    for (Instruction& ins : f.body) {
      if (ins.guard) check_register(f, ins.guard->name, ins.guard->pos);
      const bool branch = ins.parts[0] == "bra" || ins.parts[0] == "brx";
      for (Operand& o : ins.operands) {
        if (branch && o.kind == Operand::Kind::Symbol && !f.labels.count(o.name) && !declared_.count(o.name))
          fail(o.pos, fmt::format("branch to undefined label '{}'", o.name));
        check_operand(f, o, branch);
      }
    }
  }
}

}  // namespace detail

}  // namespace lp::ptx
