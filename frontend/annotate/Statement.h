#pragma once
// The typed AST of LayoutProof annotations (docs/annotations.md). Every node is a value type;
// catalog entries (instructions, fragments, architectures) are pointers into the hardware
// model's static catalogs, which live for the whole program. Every SourceLoc points into the
// ORIGINAL file's SourceText (file, line, column of the byte the node was read from).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "analyzer/algebra/CuteLayout.h"
#include "analyzer/diag/Diagnostic.h"
#include "analyzer/parse/Parsers.h"
#include "analyzer/parse/TilerParser.h"
#include "analyzer/support/Vocabulary.h"
#include "hw/Arch.h"
#include "hw/BankModel.h"
#include "hw/Fragments.h"
#include "hw/SmemInstr.h"
#include "hw/TmaSwizzle.h"

namespace lp::annotate {

/// An identifier as written, e.g. a buffer name.
struct Name {
  std::string text;
  SourceLoc loc;
};

/// A decimal integer as written.
struct Number {
  int64_t value = 0;
  SourceLoc loc;
};

/// A layout in any notation the layout parsers accept, already parsed.
struct LayoutExpr {
  std::string text;  ///< as written; bytes of continuation prefixes replaced by spaces
  SourceLoc loc;     ///< its first byte in the file
  /// The cut of the file it was parsed from: line_base/col_base are the file's line and column
  /// of its first byte, so layout diagnostics and re-parses name the file's own position.
  std::shared_ptr<const SourceText> source;
  ParsedLayout parsed;
  /// Inside a `for` loop: the parsed layout printed (print_cute_or_tirx), so the instance's
  /// values stand where the text has loop variables; empty outside loops and with parameters.
  std::string instance;
  /// What a counterexample or a report quotes: the instance's print, else the text as written.
  const std::string& instance_text() const { return instance.empty() ? text : instance; }
};

/// An element type. Invariant: bits is the size hw::element_bits gives the name (8..128).
struct Dtype {
  std::string name;
  int bits = 0;
  SourceLoc loc;
};

enum class Space { Smem, Tmem, Regs, Global };
/// A buffer statement's keyword for each space.
inline constexpr Vocabulary<Space, 4> kSpaceNames{
    {{Space::Smem, "smem"}, {Space::Tmem, "tmem"}, {Space::Regs, "regs"}, {Space::Global, "global"}}};
const char* space_name(Space s);

struct FragmentRef {
  Name name;
  const hw::Fragment* fragment = nullptr;  ///< never null in a parsed statement
};

/// A quoted name of a CuTe expression (`"SmemLayoutQ"`, `"GMMA::Layout_K_SW128_Atom<half_t>"`):
/// the text between the quotes with escapes resolved; `loc` is the opening quote.
struct CuteName {
  std::string text;
  SourceLoc loc;
};

/// `smem|tmem|regs|global NAME [: DTYPE] = LAYOUT [align N] [cute "EXPR"]`,
/// `regs NAME [: DTYPE] = fragment F`.
/// Invariants: exactly one of layout and fragment; fragment only in Regs; dtype present in Smem
/// and Global; align and cute only in Smem and Global, align a power of two.
struct BufferDecl {
  Space space = Space::Smem;
  Name name;
  std::optional<Dtype> dtype;
  std::optional<LayoutExpr> layout;
  std::optional<FragmentRef> fragment;
  std::optional<Number> align;
  /// The CuTe expression the layout stands for: a `cute "EXPR" = LAYOUT` written by a probe
  /// (docs/cute.md) must be the same function (rule LP012).
  std::optional<CuteName> cute;
};

/// `cute "EXPR" = LAYOUT`: what a CuTe expression evaluates to, as a probe wrote it (docs/cute.md).
/// The names are shared by every file of a check run.
struct CuteDef {
  CuteName name;
  LayoutExpr layout;
};

/// `param NAME = LO..HI [% MULTIPLE]`. `index` is its position in ParseResult::params, which is
/// what ParamTerm::params in later layouts refer to. Invariant: 1 <= lo <= hi, multiple >= 1,
/// some multiple of `multiple` lies in [lo, hi].
struct ParamDecl {
  Name name;
  Number lo, hi;
  std::optional<Number> multiple;
  size_t index = 0;
};

/// `param NAME = EXPR`: a derived parameter, one size written once (`param S = 2*D`). EXPR is
/// affine in one earlier parameter; NAME stands for that term wherever a layout writes it, so it
/// is not a variable of its own and a counterexample names the parameter it derives from.
struct DerivedParamDecl {
  Name name;
  SourceLoc expr_loc;
  ParamTerm term;  ///< over ParseResult::params
};

/// `arch sm_XX`: the architecture of the accesses that follow it in the file.
struct ArchDecl {
  Name name;
  const hw::Arch* arch = nullptr;
};

/// `access [NAME:] BUFFER INSTR (lanes|offsets) LAYOUT`. BUFFER names an smem buffer declared earlier.
/// `active 0..15, 24` after an access's lanes: the lanes of the warp that execute it (a guard
/// predicate such as `threadIdx.x < 16`); bit t for lane t. Invariant: not empty.
struct ActiveLanes {
  hw::LaneMask mask = hw::kAllLanes;
  SourceLoc loc;  ///< the `active` keyword
};

struct AccessDecl {
  std::optional<Name> name;
  Name buffer;
  Name instr_name;
  const hw::SmemInstr* instr = nullptr;  ///< never null in a parsed statement
  LayoutExpr lanes;
  const hw::Arch* arch = nullptr;  ///< from the last `arch` statement before it; null if none
  std::optional<ActiveLanes> active;  ///< absent: every lane executes it
  /// `offsets LAYOUT` instead of `lanes LAYOUT`: the lane map gives each lane's element offset
  /// from the buffer's base directly (as the code computes it, any swizzle included); the
  /// buffer's layout then only bounds the offsets. Invariant: the lane map's strides are integers.
  bool element_offsets = false;
};

/// `swizzle none|32B|64B|128B` (and `128B_base32B`, tcgen05 descriptors only).
struct SwizzleRef {
  hw::SmemSwizzle mode = hw::SmemSwizzle::None;
  bool atom_32b = false;  ///< tcgen05's 128-byte swizzle with 32-byte atomicity
  SourceLoc loc;
};

enum class TmaDirection { Load, Store };

/// `tma load|store [NAME:] BUFFER box (D0, D1, ...) swizzle MODE`. Invariant: box dims >= 1.
struct TmaDecl {
  TmaDirection direction = TmaDirection::Load;
  SourceLoc direction_loc;
  std::optional<Name> name;
  Name buffer;
  std::vector<Number> box;
  SourceLoc box_loc;  ///< the opening parenthesis
  SwizzleRef swizzle;
};

enum class DescKind { Wgmma, Tcgen05 };
enum class Major { K, MN };

struct MajorRef {
  Major major = Major::K;
  SourceLoc loc;
};

/// `wgmma|tcgen05 desc [NAME:] BUFFER swizzle MODE [major K|MN]`; major is absent when not written.
struct DescDecl {
  DescKind kind = DescKind::Wgmma;
  std::optional<Name> name;
  Name buffer;
  SwizzleRef swizzle;
  std::optional<MajorRef> major;
};

/// A CuTe tiler, `[T0, T1, ...]` (items: layouts, extents, `_`, nested tilers), already parsed.
struct TilerExpr {
  std::string text;  ///< as written, brackets included
  SourceLoc loc;     ///< its '['
  Tiler tiler;
};

/// An operand of compose/divide: a declared name, a layout in backquotes, or (as B of `A o B` and
/// as the tiler of a divide) a tiler.
using Operand = std::variant<Name, LayoutExpr, TilerExpr>;

/// `compose NAME = A o B`: the code computes composition(A, B); B may be a tiler (by-mode).
struct ComposeDecl {
  Name name;
  Operand a, b;
};

enum class DivideKind { Logical, Zipped, Tiled, Flat };
/// CuTe's names of the divides, which `divide` statements spell.
inline constexpr Vocabulary<DivideKind, 4> kDivideNames{{{DivideKind::Logical, "logical_divide"},
                                                         {DivideKind::Zipped, "zipped_divide"},
                                                         {DivideKind::Tiled, "tiled_divide"},
                                                         {DivideKind::Flat, "flat_divide"}}};
const char* divide_name(DivideKind k);

/// `divide NAME = logical_divide(A, TILER)` (also zipped_, tiled_, flat_divide).
struct DivideDecl {
  Name name;
  DivideKind kind = DivideKind::Logical;
  SourceLoc kind_loc;
  Operand a, tiler;
};

enum class ProductKind { Logical, Blocked, Raked, TileToShape };
/// CuTe's names of the products (and tile_to_shape), which `product` statements spell.
inline constexpr Vocabulary<ProductKind, 4> kProductNames{{{ProductKind::Logical, "logical_product"},
                                                           {ProductKind::Blocked, "blocked_product"},
                                                           {ProductKind::Raked, "raked_product"},
                                                           {ProductKind::TileToShape, "tile_to_shape"}}};
const char* product_name(ProductKind k);

/// `product NAME = logical_product(A, B)` (also blocked_product, raked_product: B a layout), or
/// `product NAME = tile_to_shape(A, (_8,_16))`. Invariant: `target` is set exactly for tile_to_shape
/// (a flat shape, every extent >= 1), `b` for the others.
struct ProductDecl {
  Name name;
  ProductKind kind = ProductKind::Logical;
  SourceLoc kind_loc;
  Operand a;
  std::optional<Operand> b;
  std::optional<std::vector<algebra::Int>> target;
};

/// `AXIS=LO..HI`, inclusive. The axis is a name (`TLane`, `laneid`) or a CuTe basis index
/// (`0`, written as digits; `text` holds them). Invariant: lo <= hi.
struct AxisRangeExpr {
  Name axis;
  bool basis = false;  ///< written as a number
  Number lo, hi;
};

enum class ExpectKind { Injective, ConflictFree, Wavefronts, Covers, Illegal, Compiled };

/// `compiled "KERNEL" at ["FILE":]LINE [where NAME = VALUE, ...]` after `expect ACCESS`: the
/// compiled instructions the access describes (rule LP015). KERNEL is a regular expression
/// (ECMAScript) searched in the kernels' demangled names; FILE, when given, is a path suffix of the
/// source file, else the file the annotation is in; VALUE fixes an unknown of the compiled address
/// (`warp`, `ntid.x`, a parameter or loop value as findings name it). Invariants: the regular
/// expression compiles; line >= 1; names distinct.
struct CompiledRef {
  CuteName kernel;
  std::optional<CuteName> file;
  Number line;
  std::vector<std::pair<CuteName, Number>> values;
};

/// `expect NAME PROPERTY`; `covers NAME RANGES` is the same as `expect NAME covers RANGES`.
/// Invariants: max_wavefronts set exactly for Wavefronts (>= 1); ranges non-empty exactly for
/// Covers; compiled set exactly for Compiled. The subject's kind suits the property (an access
/// for conflict-free, wavefronts and compiled; something with a layout for injective and covers).
struct ExpectStmt {
  Name subject;
  ExpectKind kind = ExpectKind::Injective;
  SourceLoc kind_loc;
  std::optional<Number> max_wavefronts;
  std::vector<AxisRangeExpr> ranges;
  std::optional<CompiledRef> compiled;
};

/// `param P OP VALUE` or `param P % M == 0` in a launch: P is a kernel parameter's name in the
/// source (`width`) or its position (`2`). Invariant: for MultipleOf, value >= 1.
struct LaunchParamFact {
  enum class Relation { Eq, Ne, Lt, Le, Gt, Ge, MultipleOf };
  Name param;
  bool by_position = false;  ///< written as a number: the parameter's position, from 0
  Relation relation = Relation::Eq;
  Number value;
};

/// `launch [kernel "NAME"] [block(X[, Y[, Z]])] [grid(X[, Y[, Z]])] [dynamic_smem(BYTES)] [param ...]...`:
/// one way a CUDA kernel is launched (docs/ptx.md, the launch domain). In a CUDA source it
/// describes the kernel defined after it, or the kernel it names; several `launch` statements for
/// one kernel are the launches it has. It says nothing to the annotation rules. Invariants: at
/// least one clause; extents >= 1; dynamic_smem >= 0.
struct LaunchDecl {
  std::optional<CuteName> kernel;  ///< `kernel "NAME"`: the demangled name, template arguments allowed
  std::optional<std::vector<Number>> block, grid;  ///< 1 to 3 extents as written
  SourceLoc block_loc, grid_loc;
  std::optional<Number> dynamic_smem;
  std::vector<LaunchParamFact> params;
};

/// Parses a launch's clauses (the text after `launch`) from a text of its own: a `[ptx.launch]`
/// value of `.layoutproof.toml` or a `--launch` option. Throws DiagnosticError located in `source`.
LaunchDecl parse_launch_text(std::shared_ptr<const SourceText> source);

/// `allow RULE-ID "reason"`: suppresses the rule's findings on one statement.
struct Suppression {
  Name rule;           ///< lowercase letters, digits and hyphens
  std::string reason;  ///< non-empty; runs of whitespace collapsed to one space
  SourceLoc loc;       ///< the `allow` keyword
  SourceLoc reason_loc;
};

/// `; at "FILE":LINE`: the statement was generated, and FILE:LINE is where (a probe's call site,
/// docs/cute.md); findings on it are reported there. `begin`/`end` are the statement's byte range
/// in its own file. Invariant: line >= 1.
struct Origin {
  std::string file;
  int64_t line = 1;
  SourceLoc loc;  ///< the `at` keyword
  size_t begin = 0, end = 0;
};

/// Where a statement parsed inside `for` loops belongs: the values its loop variables had
/// ("D=64", nested loops "D=64,NCOLS=8") and the innermost loop's `for` keyword. Names the
/// statement declares carry the label (`tile_K[D=64]`), so each instance has its own.
struct Instance {
  std::string label;
  SourceLoc loop;
};

/// One annotation statement. `allows` gathers the standalone `allow` statements just before it
/// and its own trailing `; allow ...` clauses; standalone `allow` statements are not statements
/// of their own in the AST.
struct Statement {
  SourceLoc loc;  ///< the first keyword
  std::variant<BufferDecl, ParamDecl, DerivedParamDecl, ArchDecl, AccessDecl, TmaDecl, DescDecl, ComposeDecl, DivideDecl,
               ProductDecl, ExpectStmt, CuteDef, LaunchDecl>
      body;
  std::vector<Suppression> allows;
  std::optional<Origin> origin;
  std::optional<Instance> instance;  ///< absent outside `for` loops
};

}  // namespace lp::annotate
