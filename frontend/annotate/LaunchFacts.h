#pragma once
// The clauses of a `launch` statement (Statement.h, LaunchDecl): how a CUDA kernel is launched.
// One reader for every place a launch is written: a `// layoutproof: launch ...` comment in a
// CUDA source, a `[ptx.launch]` value of `.layoutproof.toml`, and `check --launch`.
#include <functional>

#include "frontend/annotate/Statement.h"
#include "analyzer/parse/Cursor.h"

namespace lp::annotate {

/// Reads the clauses from the cursor to the end of its text; `loc_of` maps a cursor offset to
/// the location diagnostics and the declaration name. Throws DiagnosticError.
LaunchDecl read_launch_clauses(Cursor& c, const std::function<SourceLoc(size_t)>& loc_of);

/// "block(32, 8) dynamic_smem(1024) param n % 32 == 0": the clauses as a user writes them.
std::string launch_text(const LaunchDecl& d);

}  // namespace lp::annotate
