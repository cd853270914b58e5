#pragma once
// A C++ kernel's demangled name as findings show it.
#include <regex>
#include <string>

namespace lp {

/// A demangled kernel name as a headline shows it: without its return type and parameters, and
/// with template arguments past a readable length elided ("gemm<cute::tuple<...>, 128>").
std::string short_kernel_name(const std::string& demangled);

/// A demangled variable's name as findings show it: a kernel's static local (`f(int*)::smemA`) by
/// its own name, anything else as short_kernel_name shows it.
std::string short_symbol_name(const std::string& demangled);

/// Longest kernel-name pattern accepted (`check --kernel`, `expect ... compiled "KERNEL"`).
inline constexpr size_t kMaxKernelPatternChars = 512;

/// A user's kernel-name pattern (ECMAScript), matched by libstdc++'s polynomial executor
/// (`regex_constants::__polynomial`: no backtracking, so a pattern from a pull request cannot take
/// exponential time on a long demangled name). Throws std::regex_error for a pattern that is not a
/// regular expression, uses back-references (error_complexity) or is longer than
/// kMaxKernelPatternChars (error_space).
std::regex kernel_pattern(const std::string& pattern);

}  // namespace lp
