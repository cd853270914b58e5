// libFuzzer target: the host-code reader of `check --cuda` (cuda::host_launches,
// cuda::kernel_definitions) on preprocessed CUDA C++: every input gives launches and definitions,
// never a crash, a hang or an exception; a block extent it knows is one the code wrote.
#include <cstdint>
#include <string>

#include "frontend/cuda/CudaSource.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const lp::cuda::HostLaunch& l : lp::cuda::host_launches(text, {"/usr/local/cuda/"})) {
    if (l.kernel.empty()) __builtin_trap();
    // An exact block has no reason to be unknown; a block not exact has one.
    if (l.block.exact().has_value() != l.not_constant.empty() && l.block.exact()) __builtin_trap();
    (void)l.block.text();
  }
  (void)lp::cuda::kernel_definitions(text, "fuzz.cu");
  return 0;
}
