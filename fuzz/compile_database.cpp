// libFuzzer target: the compilation-database reader of `check -p` (cuda::read_compile_database):
// every input is a list of CUDA units or a located diagnostic, and the command-line splitter never
// throws.
#include <cstdint>
#include <memory>
#include <string>

#include "frontend/cuda/CompileDatabase.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto src = std::make_shared<lp::SourceText>();
  src->name = "compile_commands.json";
  src->text.assign(reinterpret_cast<const char*>(data), size);
  (void)lp::cuda::split_command_line(src->text);
  try {
    for (const lp::cuda::CompileUnit& u : lp::cuda::read_compile_database(src))
      if (u.file.empty() || u.compiler.empty()) __builtin_trap();  // every unit names its source and compiler
  } catch (const lp::DiagnosticError& e) {
    (void)e.diagnostic().render();
  }
  return 0;
}
