#pragma once
// A PTX module as the reader gives it (PTX ISA 9.0, chapters 4-11): the module directives, the
// shared-memory symbols, and each function's parameters, registers, instructions and labels, every
// piece with its byte offset into the PTX text. Instructions keep their operands unevaluated; the
// symbolic evaluator (PtxEval.h) gives them meaning.
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/diag/Diagnostic.h"
#include "analyzer/support/ReadFile.h"

namespace lp::ptx {

/// A register's type: its width in bits (1 for .pred) and the type's letter (b, u, s, f, pred).
struct RegType {
  std::string name;  ///< ".u32", ".pred", ...
  int bits = 32;
  bool is_float = false;
};

/// The width of a PTX fundamental type (".u32" -> 32, ".pred" -> 1, ".f16x2" -> 32); nullopt for
/// a name that is not one.
std::optional<RegType> parse_type(const std::string& name);

struct Operand {
  enum class Kind {
    Register,  ///< %r1, %tid.x (name as written)
    Immediate, ///< 12, -4, 0x1F, 0f3F800000 (bits in imm)
    Symbol,    ///< a variable, function, parameter or label name
    Vector,    ///< {a, b, ...} (elems)
    Address,   ///< [base + offset] (elems: the base, absent for an absolute address)
    List,      ///< (a, b, ...) of call
    Sink,      ///< _
  };
  Kind kind = Kind::Immediate;
  std::string name;
  bool negated = false;       ///< !%p
  uint64_t imm = 0;
  int64_t offset = 0;         ///< Address: the byte offset after the base
  std::vector<Operand> elems;
  std::optional<std::string> pair;  ///< the predicate of a `%r|%p` destination
  size_t pos = 0;             ///< byte offset in the PTX text
};

/// A `.loc FILE LINE COL [, function_name LABEL] [, inlined_at FILE LINE COL]` position.
struct DebugLoc {
  int file = 0, line = 0, col = 0;
  std::optional<std::array<int, 3>> inlined_at;
  std::string function_label;
};

struct Instruction {
  std::optional<Operand> guard;      ///< @%p or @!%p
  std::string opcode;                ///< "ld.shared.v4.u32"
  std::vector<std::string> parts;    ///< "ld", "shared", "v4", "u32"
  std::vector<Operand> operands;
  size_t pos = 0;                    ///< byte offset of the opcode (or the guard)
  std::optional<size_t> debug_loc;   ///< index into Module::locs: the .loc in force
  bool has(const std::string& part) const;
};

struct Param {
  std::string name;
  int bytes = 0;  ///< size of the parameter (an array's total size)
  std::optional<RegType> type;
  size_t pos = 0;
};

/// A `.shared` variable: static (with its size) or `.extern` (dynamic shared memory, no size).
struct SharedSymbol {
  std::string name;
  int64_t align = 1;
  std::optional<int64_t> bytes;  ///< nullopt: extern, sized at launch
  size_t pos = 0;
};

struct Function {
  std::string name;
  bool is_entry = false;
  bool has_body = false;
  size_t pos = 0;
  std::vector<Param> returns, params;
  std::map<std::string, RegType> regs;  ///< single registers
  struct RegRange {
    std::string prefix;
    int64_t count = 0;
    RegType type;
  };
  std::vector<RegRange> ranges;         ///< %r<100>: %r0 .. %r99
  std::map<std::string, int> local_params;  ///< `.param` declared in the body (call sequences): bytes
  std::vector<SharedSymbol> shared;     ///< function-scope .shared (demoted variables)
  std::vector<Instruction> body;
  std::map<std::string, size_t> labels; ///< label -> index of the next instruction
  std::optional<std::array<int64_t, 3>> maxntid, reqntid;
  std::optional<std::array<int64_t, 3>> reqnctapercluster;  ///< the cluster shape the kernel requires
  bool explicitcluster = false;           ///< launched with clusters (`.explicitcluster`)
  std::optional<int64_t> minnctapersm;    ///< a register-allocation hint; it does not constrain a launch
  std::optional<int64_t> maxclusterrank;  ///< the most CTAs a cluster of this kernel may have

  std::optional<RegType> reg_type(const std::string& name) const;
};

struct Module {
  std::shared_ptr<const SourceText> source;
  std::string version, target;  ///< "9.0", "sm_80"
  int address_size = 64;
  std::vector<Function> functions;
  std::vector<SharedSymbol> shared;          ///< module-scope .shared
  std::map<std::string, int64_t> variables;  ///< other module variables (.global, .const): bytes
  std::map<int, std::string> files;          ///< .file N "path"
  std::vector<DebugLoc> locs;
  std::map<std::string, std::string> debug_strings;  ///< $L__info_stringN -> text (function names)

  const Function* function(const std::string& name) const;
  const SharedSymbol* shared_symbol(const Function& f, const std::string& name) const;
};

/// One frame of a source position: the position and the function it is in (a `function_name`
/// label of the debug strings, empty for the kernel itself or when the PTX does not say).
struct SourceFrame {
  int file = 0, line = 0, col = 0;
  std::string function_label;
};

/// The frames of `.loc` number `index`, outermost first: its position, then each `inlined_at`
/// (PTX ISA 9.0, section 11.6.2), resolved through the nearest earlier `.loc` at that position.
std::vector<SourceFrame> source_frames(const Module& module, size_t index);

/// Limits on what the reader accepts; past one, a located diagnostic.
struct ReadLimits {
  size_t max_bytes = kMaxSourceFileBytes;
  size_t max_instructions = size_t{2} << 20;
  int max_nesting = 64;
  int64_t max_registers = int64_t{1} << 24;  ///< registers one range may declare
};

/// Reads a whole PTX module. Throws DiagnosticError (file:line:col, the line, a caret, what was
/// expected) at the first malformed statement, unknown instruction, undeclared register or label,
/// or exceeded limit.
Module read_ptx(std::shared_ptr<const SourceText> source, const ReadLimits& limits = {});

/// PTX's one predefined identifier that is not a special register (PTX ISA 9.0, section 4.4,
/// Identifiers, table "Predefined Identifiers"): the warp's size in threads, a constant.
inline constexpr std::string_view kWarpSizeIdentifier = "WARP_SZ";

/// Whether `opcode`'s first component is a PTX instruction name (PTX ISA 9.0, chapter 9).
bool known_instruction(const std::string& base);

}  // namespace lp::ptx
