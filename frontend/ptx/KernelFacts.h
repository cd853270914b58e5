#pragma once
// The PTX front end's facts about one compiled module, for the rules (the one door with the
// annotations: rules/Rule.h's FileContext): each kernel's shared-memory instructions placed at the
// user's source line, with their hardware instruction and their per-lane address and activity
// terms evaluated in the kernel's launch domain, and what could not be read or analysed. The rules
// judge these facts (LP002, LP010, LP011, LP014); nothing here decides a property.
//
// The launch domain (docs/ptx.md): the hardware's limits and the kernel's directives always; then
// the launches stated for the kernel, from the first of these that has any: `check --launch`, the
// configuration's `[ptx.launch]`, `// layoutproof: launch ...` comments at the kernel in its source,
// and the launches its translation unit's host code makes with constant shapes (`check --cuda`).
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "frontend/annotate/Statement.h"
#include "frontend/cuda/CudaSource.h"
#include "analyzer/diag/Diagnostic.h"
#include "frontend/ptx/PtxEval.h"
#include "frontend/ptx/PtxModule.h"
#include "frontend/ptx/SharedPlacement.h"
#include "hw/Arch.h"
#include "hw/SmemInstr.h"

namespace lp::ptx {

/// A source file as the PTX's `.file` directive names it, and a line of it.
struct SourceLine {
  std::string file;
  int line = 0;
};

/// Where an instruction is shown: the user's source line of its outermost frame when that file may
/// be read (else the PTX line), with the inlined frames (runs of library frames collapsed, see
/// FrontEndInputs::all_frames) and the PTX instruction as notes.
struct Placement {
  SourceLoc loc;
  std::vector<Note> notes;
  int ptx_line = 0;
  /// Every frame's source file (as the PTX's `.file` names it) and line, outermost first, whether
  /// or not the checker reads the file: what an annotation's `expect ... compiled` is matched to.
  std::vector<SourceLine> lines;
};

/// A launch stated outside the PTX and its source: an entry of `[ptx.launch]` or a `--launch`.
struct StatedLaunch {
  std::string kernel;  ///< the kernel's demangled name, template arguments allowed; "*": every kernel
  annotate::LaunchDecl facts;
};

/// What the front end reads besides the PTX text.
struct FrontEndInputs {
  /// Source files findings may quote and launch comments are read from, besides those under the
  /// working directory and the PTX's directory (e.g. `--cuda`'s input).
  std::set<std::string> extra_sources;
  std::vector<StatedLaunch> option_launches, config_launches;
  /// The launches of the translation unit's host code (`--cuda`), when it was read.
  std::optional<std::vector<cuda::HostLaunch>> host_launches;
  /// Only the kernels whose demangled or PTX name this regular expression (ECMAScript) finds are
  /// analysed (`check --kernel`); none: every kernel. The caller has checked that it compiles.
  std::optional<std::string> kernel_filter;
  /// Every inlined frame as a note (`check --frames all`); otherwise a run of frames in files the
  /// checker does not read (a library's headers) is one note naming the innermost.
  bool all_frames = false;
  /// Assembles a PTX text for its target (ptxas) and returns the cubin's disassembly (`nvdisasm
  /// -gp`: each instruction with its PTX line), throwing std::exception with the reason when it cannot: how the shared variables'
  /// placement is read (SharedPlacement.h). None: they keep their PTX `.align` alone.
  std::function<std::string(const std::string& ptx, const std::string& target)> disassemble;
  /// What `disassemble`'s output depends on besides the PTX (its tools and their versions): part of
  /// the cache key.
  std::string disassembler_key;
  /// The PTX's file when the text is shown under another name (a PTX the run compiled and does
  /// not keep: `<PTX of a.cu for sm_90>`); none: the text's name is its path.
  std::optional<std::string> ptx_path;
};

/// One shared-memory instruction of a kernel.
struct AccessFact {
  size_t site = 0;  ///< into the kernel's KernelResult::sites
  Placement at;
  std::string what;                      ///< "ld.shared.f32 (PTX line 133)"
  const hw::SmemInstr* instr = nullptr;  ///< null: no bank model (shared-memory atomics)
  std::optional<std::string> unknown;    ///< why the access cannot be decided at all
  std::optional<std::string> cost_unknown;  ///< why its bank cost alone cannot be decided (ptx::Site::cost_unknown)
  /// ptxas runs this access merged with others into one wider SASS instruction (MergedAccess.h):
  /// its bank conflicts are the merged instruction's, judged once, at the member first in PTX order.
  struct Merged {
    std::string opcode;                    ///< "LDS.128 (ptxas merged 4 ld.shared.f32)"
    std::string what;                      ///< "LDS.128 (ptxas merged 4 ld.shared.f32, PTX lines 51, 52, 54 and 56)"
    Note members;                          ///< "ptxas runs the 4 PTX instructions as one LDS.128 ..."
    const hw::SmemInstr* instr = nullptr;  ///< the catalog's instruction the SASS is
    size_t lowest_site = 0;                ///< KernelResult::sites index whose address the merged access has
    bool judged_here = false;
  };
  std::optional<Merged> merged;
};

struct KernelFacts {
  size_t result = 0;  ///< into Analysis::kernels
  std::string name;   ///< demangled
  std::vector<AccessFact> accesses;     ///< per-lane accesses (LP002)
  std::vector<AccessFact> descriptors;  ///< descriptor traffic, no per-lane addresses (LP010)
  std::vector<std::pair<Placement, std::string>> issues;  ///< parts of the kernel not analysed
  /// How a uniform unknown is shown: a parameter's PTX name -> "width (parameter 2)".
  std::map<std::string, std::string> uniform_names;
  /// A uniform unknown's name as findings show it: a parameter by its source name (and a part of a
  /// parameter, "width (parameter 2)+8"), a shared symbol demangled, others as they are.
  std::string shown_uniform(const std::string& name) const;
  /// The launch domain the kernel was evaluated in, and where it comes from (for --verbose).
  std::string launch;
  /// Where its shared variables lie: as the cubin places them, or at any offset their `.align`
  /// allows and why (for --verbose).
  std::string placement;
  /// Whether its accesses are judged as the cubin runs them (merged accesses), and why not (--verbose).
  std::string sass;
  /// The kernel's definition in its source when the checker reads it, else its `.entry` in the PTX.
  SourceLoc where;
};

/// A stated launch that contradicts the kernel's directives or the hardware (rule LP014).
struct LaunchProblem {
  SourceLoc loc;
  std::string message;
  std::vector<Note> notes;
};

struct CompiledModule {
  std::shared_ptr<const SourceText> ptx;
  std::optional<Diagnostic> read_error;  ///< the PTX could not be read (rule LP011)
  const hw::Arch* arch = nullptr;
  std::string arch_note;                 ///< when the model is not the `.target`'s own
  Module module;
  Analysis analysis;
  std::vector<KernelFacts> kernels;
  std::vector<LaunchProblem> launch_problems;

  const KernelResult& result(const KernelFacts& k) const { return analysis.kernels[k.result]; }
  const Site& site(const KernelFacts& k, const AccessFact& a) const { return result(k).sites[a.site]; }
};

/// Reads, analyses and places one PTX file (`ptx`: its path as the name, unless
/// `inputs.ptx_path` gives it, and its text).
std::unique_ptr<CompiledModule> read_compiled_module(std::shared_ptr<const SourceText> ptx, const FrontEndInputs& inputs);
std::unique_ptr<CompiledModule> read_compiled_module(const std::string& path, std::string text, const FrontEndInputs& inputs);

/// What else than the PTX text the front end's results depend on, as text: part of a cache key.
std::string inputs_key(const FrontEndInputs& inputs);
/// The source files the PTX at `ptx_path` names that the front end reads (their placement and their
/// `launch` comments), each with its content or "unread" under the reading policy of this run (the
/// working directory, the PTX's directory): the rest of a compiled module's cache key.
std::string sources_key(const std::string& ptx_path, std::string_view ptx_text, const FrontEndInputs& inputs);

/// `name` demangled (itself when it is not a mangled C++ name).
std::string demangled(const std::string& name);

}  // namespace lp::ptx
