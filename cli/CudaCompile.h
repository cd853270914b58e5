#pragma once
// `layoutproof check --cuda FILE.cu`: the CUDA file compiled to PTX by nvcc (-O3 -lineinfo
// -arch=ARCH --ptx), which the PTX front end then checks. docs/ptx.md
#include <stdexcept>
#include <string>
#include <vector>

namespace lp::cli {

/// nvcc is missing or failed; `output` is what it printed, as it printed it.
class CudaCompileError : public std::runtime_error {
 public:
  CudaCompileError(const std::string& what, std::string output) : std::runtime_error(what), output(std::move(output)) {}
  std::string output;
};

struct CompiledPtx {
  std::string dir;       ///< a fresh temporary directory holding the PTX (the caller removes it)
  std::string ptx_path;
  double nvcc_ms = 0;
};

/// Compiles `cu` for `arch` (sm_80, sm_90a, ...) with `extra` nvcc arguments appended.
CompiledPtx compile_cuda_to_ptx(const std::string& cu, const std::string& arch, const std::vector<std::string>& extra);

}  // namespace lp::cli
