#pragma once
// What the checker reads of a CUDA translation unit besides its PTX (docs/ptx.md, the launch
// domain): the `__global__` functions a source defines (their parameter names and lines), and the
// kernel launches its host code makes (`kernel<<<grid, block, smem>>>`, `cudaLaunchKernel`,
// `cudaLaunchCooperativeKernel`, `cudaLaunchKernelEx`) with the block shape, grid and dynamic
// shared memory where they are compile-time constants.
//
// Launches are read from nvcc's own preprocessed host code (`nvcc -E`), so macros are expanded
// as the compiler expands them. A launch argument is a constant when it is an integer constant
// expression over literals, `sizeof` of a fundamental type, `const`/`constexpr` integers and
// enumerators, and local `dim3`/integer variables initialised from constants and never changed
// afterwards in their function (no assignment, increment or address taken); anything else
// (a function parameter, a template parameter, a value computed at run time) is not. A block
// that is not a constant still has known extents when its type says so: one value of arithmetic
// type (a variable or parameter declared `int`, `unsigned`, `size_t`, ...) converts to
// `dim3(value, 1, 1)`, and `dim3(threads, 1, 1)` knows its constant arguments.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hw/Arch.h"

namespace lp::cuda {

/// A `__global__` function definition in a source file.
struct KernelDefinition {
  std::string name;                 ///< its name as written (unqualified)
  std::vector<std::string> params;  ///< the parameters' names in order ("" where unnamed)
  size_t line = 0;                  ///< the line of `__global__`
  size_t body_line = 0, end_line = 0;  ///< the lines of the body's braces
};

/// Every `__global__` definition of a CUDA source (declarations without a body are skipped).
std::vector<KernelDefinition> kernel_definitions(std::string_view source, const std::string& name);

/// One kernel launch in host code.
struct HostLaunch {
  std::string kernel;                   ///< as written, template arguments evaluated: "reduce<int, 256>"
  std::string file;                     ///< where, as the preprocessor names it
  size_t line = 0;
  /// The block's extents the checker evaluates: all three when it is a constant; y and z alone
  /// when it is `dim3(n, 1, 1)` or one integer `n` that is not a constant.
  hw::BlockExtents block;
  std::optional<std::array<int64_t, 3>> grid;
  std::optional<int64_t> dynamic_smem;  ///< 0 when the launch does not pass it
  std::string not_constant;             ///< why some extent of the block is not a constant (empty when none)
};

/// The launches in preprocessed host code, outside system headers and the files under
/// `skip_prefixes` (the CUDA toolkit's own headers).
std::vector<HostLaunch> host_launches(std::string_view preprocessed, const std::vector<std::string>& skip_prefixes);

/// A kernel's name split as the matching of launches to PTX kernels reads it: the unqualified
/// name and its template arguments (integers without suffixes, types as written, spaces removed),
/// e.g. "void ns::reduce<int, 256u>(int*)" -> {"reduce", {"int", "256"}, "ns::"}.
struct KernelName {
  std::string base;
  std::optional<std::vector<std::string>> template_args;  ///< none when written without <...>
  std::string qualifier;                                  ///< "ns::" (empty when unqualified)
};
KernelName split_kernel_name(std::string_view demangled_or_written);

/// Whether a launch written as `launched` starts the kernel `defined` (a PTX kernel's demangled
/// name): same unqualified name, the qualifier a suffix of the kernel's, and the template arguments
/// equal where the launch writes them.
bool launches_kernel(const KernelName& launched, const KernelName& defined);

}  // namespace lp::cuda
