#pragma once
// A C++ kernel's demangled name as findings show it.
#include <string>

namespace lp {

/// A demangled kernel name as a headline shows it: without its return type and parameters, and
/// with template arguments past a readable length elided ("gemm<cute::tuple<...>, 128>").
std::string short_kernel_name(const std::string& demangled);

/// A demangled variable's name as findings show it: a kernel's static local (`f(int*)::smemA`) by
/// its own name, anything else as short_kernel_name shows it.
std::string short_symbol_name(const std::string& demangled);

}  // namespace lp
