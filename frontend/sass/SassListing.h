#pragma once
// A cubin as NVIDIA's disassembler prints it (`nvdisasm -g CUBIN`, CUDA 12-13): each function's
// SASS instructions with their source line, and the size of each kernel's shared-memory section
// (`.nv.shared.KERNEL`, which on sm_80 and later starts with the 1 KB the system reserves). The
// text format is nvdisasm's, not a documented ISA: what this reader does not recognise is kept as
// text, never guessed, and readers of the listing treat it as unknown.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lp::sass {

/// A source position nvdisasm's line table gives an instruction (`//## File "F", line N`): the
/// innermost frame. With `-gp` the file is ".nv_debug_ptx_txt" and the line the PTX's.
struct SourceLine {
  std::string file;
  int line = 0;
};

/// One SASS instruction: `/*0090*/ @!P0 LEA R13, R17.reuse, UR6, 0x2 ;`.
struct Instruction {
  uint64_t offset = 0;                ///< byte offset in the function's code
  std::optional<std::string> guard;   ///< "P0", "!P0", "UP1"
  std::string opcode;                 ///< with its modifiers: "LDS.128", "STG.E.STRONG.SYS"
  std::vector<std::string> operands;  ///< as written, split at top-level commas
  std::optional<SourceLine> source;  ///< `nvdisasm -g`
  std::optional<int> ptx_line;       ///< `nvdisasm -gp`: the line of the PTX ptxas compiled it from
  bool labelled = false;              ///< a label precedes it: control may join here

  /// The opcode without its modifiers: "LDS" for "LDS.U.128".
  std::string name() const { return opcode.substr(0, opcode.find('.')); }
};

struct Function {
  std::string name;  ///< the symbol (mangled)
  std::vector<Instruction> code;
};

struct Listing {
  std::vector<Function> functions;
  /// Bytes of each kernel's shared-memory section, by kernel symbol (`.nv.shared.KERNEL`).
  std::map<std::string, uint64_t> shared_section_bytes;

  const Function* function(std::string_view name) const;
};

/// A SASS load's or store's bytes per lane by its modifiers (`LDS.U8` 1, `LDS.S16` 2, `STS` 4,
/// `LDS.64` 8, `STS.128` 16).
int access_bytes(const std::string& opcode);

/// Reads nvdisasm's text. Throws std::runtime_error naming the line when an instruction line
/// cannot be split into its parts (a format this reader does not know).
Listing read_listing(std::string_view text);

}  // namespace lp::sass
