#pragma once
// CuTe tilers as written: `[T0, T1, ...]` whose items are layouts in CuTe's print format or C++
// spelling, extents (`8` or `_8`, which CuTe reads as `8:_1`), `_` (keep the mode) and nested
// tuples; or a single layout. The divides, products and by-mode compositions take them.
#include <memory>

#include "analyzer/ir/Tiler.h"
#include "analyzer/parse/Cursor.h"

namespace lp {

/// Reads one tiler at the cursor and leaves the cursor after it. Malformed text, a layout the
/// algebra cannot hold (a swizzle, a replica) and nesting deeper than the limit are diagnostics
/// located in the text.
Tiler parse_tiler(Cursor& c);

/// Parses all of `src` as one tiler. Throws DiagnosticError on any malformed input.
/// `constants`: bound names an extent may use (`[D/2, _]`).
Tiler parse_tiler(std::shared_ptr<const SourceText> src, ParseLimits limits = {},
                  const std::vector<BoundConstant>* constants = nullptr);

}  // namespace lp
