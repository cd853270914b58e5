#pragma once
// `layoutproof check --cuda FILE.cu`: the CUDA file compiled to PTX by nvcc (-O3 -lineinfo
// -arch=ARCH --ptx), which the PTX front end then checks, and its host code preprocessed by nvcc
// (-E) for the kernel launches it makes (analyzer/cuda/CudaSource.h). docs/ptx.md
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyzer/cuda/CudaSource.h"

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
  /// The translation unit's kernel launches; none when its host code could not be read (`host_note`
  /// says why).
  std::optional<std::vector<cuda::HostLaunch>> host_launches;
  std::string host_note;
};

/// Compiles `cu` for `arch` (sm_80, sm_90a, ...) with `extra` nvcc arguments appended, and reads the
/// launches of its host code.
CompiledPtx compile_cuda_to_ptx(const std::string& cu, const std::string& arch, const std::vector<std::string>& extra);

}  // namespace lp::cli
