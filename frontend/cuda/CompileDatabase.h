#pragma once
// A project's CUDA translation units as its build compiles them: the JSON compilation database
// (clang's format, https://clang.llvm.org/docs/JSONCompilationDatabase.html, which CMake writes
// with CMAKE_EXPORT_COMPILE_COMMANDS and Bear records from any build), read for `check -p`.
//
// Each entry compiling a `.cu` file (or any file with `-x cu`) becomes a unit: the directory the
// compiler ran in, the source, the architectures it is compiled for, and its own flags for the
// PTX compile (include paths, defines, language and host-compiler options): the command without
// its compiler, source, output, compile mode (-c, -dc, dependency files) and architecture options,
// which the checker's own compile replaces (`nvcc --ptx -O3 -lineinfo -arch=sm_XX`).
//
// nvcc's architecture options (nvcc --help, "Options for steering GPU code generation"):
// `-arch=sm_XX`, `-arch=compute_XX`, `-code=...`, `-gencode arch=compute_XX,code=[sm_XX,compute_XX]`
// and their long spellings, with `=` or a separate value. A unit is checked for each `sm_XX` it
// runs as (the `code` values, else the `arch`); `compute_XX` alone (PTX for the driver to compile
// later) counts as sm_XX. `-arch=native|all|all-major` name no architecture the checker can know.
// Entries compiled by clang (CUDA as a clang language) keep only their preprocessor and language
// options (-I, -isystem, -D, -U, -include, -std), and their `--cuda-gpu-arch`/`--offload-arch`.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/diag/Diagnostic.h"

namespace lp::cuda {

struct CompileUnit {
  std::string file;       ///< the source: absolute and lexically normal when read from a database
  std::string directory;  ///< where the compiler ran (relative flags are relative to it)
  std::string compiler;   ///< the command's program as the entry names it
  /// The unit's own flags for a compile to PTX, in their order (never the source or an output).
  std::vector<std::string> flags;
  /// The architectures the unit is built for ("sm_80", "sm_90a"), in the order the command names
  /// them, without repeats; empty: the command names none (the compiler's default).
  std::vector<std::string> archs;
  /// What the command says that the PTX compile does not follow, one sentence each ("-arch=native
  /// names no architecture ...", "-G (device debug) is left out ...").
  std::vector<std::string> notes;
  SourceLoc where;  ///< the entry in the database
};

/// The CUDA units of a compilation database, in its order (entries of other languages are left
/// out; an entry repeated with the same directory and command is read once). Throws
/// DiagnosticError at the offending place for text that is not a compilation database: not JSON,
/// not an array of objects, an entry without a string `file` and `directory`, or without a
/// non-empty `arguments` array of strings or a `command` string (an unterminated quote in it).
std::vector<CompileUnit> read_compile_database(std::shared_ptr<const SourceText> json);

/// A command line split as a POSIX shell splits words (single and double quotes, backslash
/// escapes; no expansion). nullopt when a quote is not closed.
std::optional<std::vector<std::string>> split_command_line(const std::string& command);

}  // namespace lp::cuda
