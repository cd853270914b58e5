#pragma once
// The PTX compiles of `check --cuda` and `check -p`: each CUDA translation unit compiled to PTX
// for each architecture it is built for, several at once, under the run's budget, into a
// directory the user keeps (`--keep-ptx`) or a temporary one. docs/ptx.md, "A whole project".
#include <optional>
#include <string>
#include <vector>

#include "frontend/cuda/CompileDatabase.h"
#include "cli/CudaCompile.h"

namespace lp::cli {

/// One unit compiled for one architecture.
struct UnitPtx {
  const cuda::CompileUnit* unit = nullptr;
  std::optional<std::string> arch;  ///< none: nvcc's default
  std::string ptx_path;
  /// The name the PTX's lines are shown under: its path when kept, else "<PTX of SOURCE for ARCH>".
  std::string shown_as;
  std::optional<CompiledPtx> compiled;        ///< set when nvcc succeeded
  std::optional<CudaCompileError> error;      ///< set when it did not
};

struct ProjectCompileOptions {
  /// Compile every unit for this architecture instead of its own (`check --arch`).
  std::optional<std::string> arch;
  std::vector<std::string> extra_flags;  ///< after the checker's flags (`check --cuda FILE -- ARGS`)
  std::optional<std::string> keep_dir;   ///< `--keep-ptx DIR`: the PTX is written under it and kept
  unsigned jobs = 1;                     ///< compiles at once (each with its share of the memory budget)
};

/// The PTX of every unit, in the units' order and each unit's architectures' order. The caller
/// removes `scratch_dir` (temporary PTX and preprocessed host code) when done.
std::vector<UnitPtx> compile_units(const std::vector<cuda::CompileUnit>& units, const ProjectCompileOptions& options,
                                   const std::string& scratch_dir);

/// `path` as a report shows it: relative to the working directory when it lies under it.
std::string shown_path(const std::string& path);

}  // namespace lp::cli
