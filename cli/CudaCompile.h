#pragma once
// `layoutproof check --cuda FILE.cu`: the CUDA file compiled to PTX by nvcc (-O3 -lineinfo
// -arch=ARCH --ptx), which the PTX front end then checks, and its host code preprocessed by nvcc
// (-E) for the kernel launches it makes (frontend/cuda/CudaSource.h). docs/ptx.md
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "frontend/cuda/CudaSource.h"

namespace lp::cli {

/// nvcc is missing or failed; `output` is what it printed, as it printed it.
class CudaCompileError : public std::runtime_error {
 public:
  CudaCompileError(const std::string& what, std::string output) : std::runtime_error(what), output(std::move(output)) {}
  std::string output;
};

/// One compile of a CUDA source to PTX: `nvcc UNIT_FLAGS -O3 -lineinfo [-arch=ARCH] --ptx SOURCE
/// -o PTX EXTRA_FLAGS` in `directory`, and beside it nvcc's preprocessing of the host code with
/// the same flags.
struct PtxCompileJob {
  std::string source;
  std::string directory;                 ///< where nvcc runs; empty: the working directory
  std::vector<std::string> unit_flags;   ///< the unit's own (a compilation database's), before the checker's
  std::vector<std::string> extra_flags;  ///< after the checker's (`check --cuda FILE -- ARGS`)
  std::optional<std::string> arch;       ///< "sm_90a"; none: nvcc's default
  std::string ptx_path;                  ///< where the PTX is written
  std::string scratch_dir;               ///< where the preprocessed host code is written
};

struct CompiledPtx {
  double nvcc_ms = 0;
  /// The translation unit's kernel launches; none when its host code could not be read (`host_note`
  /// says why).
  std::optional<std::vector<cuda::HostLaunch>> host_launches;
  std::string host_note;
};

/// Runs `job` under the calling thread's budget (its time; its memory for each of the two nvcc
/// processes). Throws CudaCompileError when the architecture is malformed, the source or nvcc is
/// missing, or nvcc fails or passes a limit.
CompiledPtx compile_cuda_to_ptx(const PtxCompileJob& job);

/// The cubin of a PTX text for `target` (ptxas -arch=TARGET -lineinfo), disassembled with each
/// instruction's PTX line (nvdisasm -gp):
/// what the PTX front end reads shared variables' placement from (ptx::FrontEndInputs::disassemble).
/// Both run in a scratch directory of their own under the calling thread's budget. Throws
/// CudaCompileError when a tool is missing or fails.
std::string disassemble_ptx(const std::string& ptx, const std::string& target);

/// The tools disassemble_ptx runs, with their versions (ptx::FrontEndInputs::disassembler_key).
std::string disassembler_key();

/// A fresh temporary directory ("layoutproof-ptx-XXXXXX"); throws CudaCompileError when it cannot be made.
std::string make_scratch_dir();

}  // namespace lp::cli
