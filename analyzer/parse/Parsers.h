#pragma once
// Entry points of the layout parsers. Each reads one layout at the cursor and leaves the cursor
// after it; parse_layout reads a whole text, detecting (or being told) its notation.
#include <memory>
#include <optional>

#include "analyzer/diag/Diagnostic.h"
#include "analyzer/ir/Layout.h"
#include "analyzer/ir/Print.h"
#include "analyzer/parse/Cursor.h"

namespace lp {

/// CuTe's print format: `(_4,_3):(_1,_4)`, `_1@0` bases, `Sw<B,M,S> o O o L`,
/// `Sw<3,4,3> o smem_ptr[16b](unset) o L`, and the 1-D descriptor form `<8 : 2>`.
Layout parse_cute(Cursor& c);
/// CuTe's C++ spelling: `composition(Swizzle<3,3,3>{}, Layout<Shape<_8,_64>, Stride<_64,_1>>{})`,
/// `make_layout(make_shape(8,64), make_stride(64,1))`, `ComposedLayout<...>`.
Layout parse_cpp_spelling(Cursor& c);
/// TIRx: `S[...] + R[...] + O[...]`, offset terms, `TileLayout(...)`, `ComposeLayout(...)`.
Layout parse_tirx(Cursor& c);
/// Seed 003's descriptor grammar: `(1@0, 8@1)`, nesting, fractions, multi-dim bases.
Layout parse_descriptor(Cursor& c);

struct ParsedLayout {
  Layout layout;
  Notation notation;
  /// Where declared parameters were used (empty unless the caller declared some); `layout` is
  /// then the instance with every parameter at its largest value.
  std::vector<ParamUse> param_uses;
};

/// Parses all of `src` as one layout. Throws DiagnosticError on any malformed input.
/// With symbols, extents and strides may be integer expressions over them (Cursor::parse_int_expr):
/// declared parameters (`M`, `2*M+8`) and bound constants (`2*D+8`, `D/2`).
ParsedLayout parse_layout(std::shared_ptr<const SourceText> src,
                          std::optional<Notation> notation = std::nullopt, ParseLimits limits = {},
                          Symbols symbols = {});

/// Convenience for tests and the CLI: a layout given as a string named `name`.
ParsedLayout parse_layout_text(std::string text, std::string name = "<layout>",
                               std::optional<Notation> notation = std::nullopt,
                               const std::vector<ParamSpec>* params = nullptr);

/// The notation parse_layout would pick for `text` (from its first tokens).
Notation detect_notation(std::string_view text);
/// Whether `text` (after blanks) is CuTe's C++ spelling rather than its print format.
bool is_cpp_spelling(std::string_view text);

}  // namespace lp
