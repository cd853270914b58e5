#pragma once
// Where the CUDA tools the replay and the checker run (nvcc, ptxas, nvdisasm, ncu, nvidia-smi, cuobjdump) are installed; they run
// through lp::run_process (analyzer/support/Process.h).
#include <string>

namespace lp::replay {

/// The full path of a CUDA tool (nvcc, ncu, nvidia-smi, cuobjdump), or empty: the environment
/// variable LP_REPLAY_<NAME> (upper case) when set, else PATH, else where the toolkit and the
/// driver install it: $CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin, /usr/local/cuda-*/bin
/// (newest first), for ncu also /opt/nvidia/nsight-compute/*/ and /usr/local/cuda*/nsight-compute-*/,
/// for nvidia-smi also /usr/local/nvidia/bin and /usr/bin, for nvdisasm and cuobjdump also NVIDIA's
/// wheels in python3's packages or the user's site (nvidia/cu*/bin, e.g. `pip install nvidia-cuda-nvdisasm`).
std::string find_tool(const std::string& program);

}  // namespace lp::replay
