#pragma once
// The small operands of the algebra's operations as written on a command line: a swizzle alone,
// an integer as CuTe prints it, a flat shape. Each reads a whole text; malformed text is a
// diagnostic located in it (DiagnosticError), like every other parser here.
#include <memory>
#include <optional>
#include <vector>

#include "analyzer/algebra/CuteLayout.h"
#include "analyzer/ir/Swizzle.h"
#include "analyzer/parse/Cursor.h"

namespace lp {

/// `Sw<B,M,S>`, CuTe's C++ `Swizzle<B,M,S>` (an optional `{}` after it) or the DSL's `S<B,M,S>`,
/// and nothing else. Nullopt when the text is something else (a swizzled layout `Sw<B,M,S> o ...`
/// starts like one); a diagnostic for malformed parameters.
std::optional<Swizzle> parse_swizzle_operand(std::shared_ptr<const SourceText> src);

/// `_8` (static) or `8` (dynamic), and nothing else. Nullopt when the text is something else (a
/// layout such as `8:1` starts like an integer); a diagnostic for a literal beyond 64 bits.
std::optional<algebra::Int> parse_cute_integer(std::shared_ptr<const SourceText> src);

/// A flat shape `(_8,16)`, or a single extent `8`; every extent at least 1, their product within
/// 64 bits.
std::vector<algebra::Int> parse_flat_shape(std::shared_ptr<const SourceText> src);
/// The same at the cursor, which is left after the shape.
std::vector<algebra::Int> parse_flat_shape_at(Cursor& c);

/// Reads a swizzle's `<B,M,S>` at the cursor (after its word) and checks it (Swizzle::check).
Swizzle parse_swizzle_parameters(Cursor& c, std::string_view closing);

/// `_4` (static) or `4` (dynamic), also `_-1`, at the cursor.
algebra::Int parse_cute_int(Cursor& c, std::string_view what);

}  // namespace lp
