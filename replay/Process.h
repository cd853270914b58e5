#pragma once
// Runs a tool from an argument vector (never a shell string), capturing its output.
#include <string>
#include <vector>

namespace lp::replay {

struct ProcessResult {
  int exit_code = -1;  ///< 127: could not be started; 128+N: killed by signal N
  std::string output;  ///< stdout and stderr, interleaved
};

/// Runs argv[0] (looked up on PATH) with argv. argv must not be empty.
ProcessResult run_process(const std::vector<std::string>& argv);

/// The full path of `program` on PATH, or empty.
std::string find_on_path(const std::string& program);

/// The full path of a CUDA tool (nvcc, ncu, nvidia-smi, cuobjdump), or empty: the environment
/// variable LP_REPLAY_<NAME> (upper case) when set, else PATH, else where the toolkit and the
/// driver install it: $CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin, /usr/local/cuda-*/bin
/// (newest first), for ncu also /opt/nvidia/nsight-compute/*/ and /usr/local/cuda*/nsight-compute-*/,
/// for nvidia-smi also /usr/local/nvidia/bin and /usr/bin.
std::string find_tool(const std::string& program);

}  // namespace lp::replay
