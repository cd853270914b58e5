#pragma once
// Per-architecture shared-memory parameters. Sources (docs/hardware.md): the CUDA C++
// Programming Guide (32 banks of 4 bytes since sm_50; shared memory per block: 163 KB on sm_80,
// 227 KB on sm_90 and sm_100), the PTX ISA (instruction availability) and the sm_90
// measurements of tests/data/sm90_smem_wavefronts.tsv (load merging).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lp::hw {

/// What a launch may ask of one architecture: the CUDA C++ Programming Guide's table
/// "Technical Specifications per Compute Capability" (the same numbers for compute capabilities
/// 8.0 through 10.0), and its section on thread block clusters (8 CTAs portably, 16 with the
/// non-portable cluster size, which is the largest a launch can ask for; PTX ISA section 11.4
/// gives the directives, `.reqnctapercluster`).
/// Every launch the checker imagines lies inside these limits.
struct LaunchLimits {
  int64_t max_threads_per_block = 1024;
  std::array<int64_t, 3> max_block_dim{1024, 1024, 64};
  std::array<int64_t, 3> max_grid_dim{2147483647, 65535, 65535};
  int64_t max_cluster_ctas = 0;  ///< 0: the architecture has no thread-block clusters
};

/// A launch's block as far as it is known, extent by extent: `dim3 block(threads, 1, 1)` with
/// `threads` a runtime value knows y and z; a block given as one integer (`<<<grid, threads>>>`)
/// is one-dimensional whatever its value. Default: nothing known.
struct BlockExtents {
  std::array<std::optional<int64_t>, 3> extent;

  static BlockExtents exactly(const std::array<int64_t, 3>& e) { return {{e[0], e[1], e[2]}}; }
  bool any_known() const { return extent[0] || extent[1] || extent[2]; }
  /// Every extent, when all three are known.
  std::optional<std::array<int64_t, 3>> exact() const;
  /// The product of the known extents.
  int64_t known_threads() const;
  /// "(16, 16, 1)"; an unknown extent is "?": "(?, 1, 1)".
  std::string text() const;
  bool operator==(const BlockExtents&) const = default;
};

struct Arch {
  std::string_view name;  ///< "sm_90"
  int sm = 0;             ///< 90
  int banks = 32;
  int bank_bytes = 4;
  /// Largest dynamic shared memory one block can have: every accessed byte must lie below it.
  long long max_smem_bytes_per_block = 0;
  /// Whether 64/128-bit loads merge lanes (docs/hardware.md). Only measured on sm_90; elsewhere the
  /// model assumes no merging, which can only over-count wavefronts (a safe upper bound).
  bool load_merging = false;
  LaunchLimits launch;
  /// Shared memory the system reserves at the start of every block's window (the PTX ISA's
  /// reserved region, %reserved_smem_offset_begin .. _cap; CUDA's
  /// cudaDeviceProp::reservedSharedMemPerBlock). 0: not known for this architecture, and the
  /// reserved-region registers stay unbounded. sm_90: ptxas writes _begin as 0 and _cap as 1024,
  /// and an H200 reports 1024 (scripts/gpu/reserved_smem.cu, tests/data/sm90_reserved_smem.tsv).
  int64_t reserved_smem_bytes = 0;
};

/// The alignment of %reserved_smem_offset_0 and _1, which the PTX ISA leaves open: cooperative
/// groups keep 8-byte words at %reserved_smem_offset_1 (cooperative_groups/details/memory.h,
/// CUDA 13.0: its multi-warp scratch), which the hardware only runs when it is 8-byte aligned; an
/// H200 reports 0 for both (tests/data/sm90_reserved_smem.tsv).
inline constexpr int kReservedSmemOffsetAlignment = 8;

/// The architecture every command models when none is named: the one whose shared memory was
/// measured (tests/data/sm90_*.tsv).
inline constexpr std::string_view kDefaultArchName = "sm_90";
const Arch& default_arch();

/// The base alignment (bytes) every check assumes for a shared-memory buffer that states none
/// (`align N`, `--base-align N`): the widest access one lane makes (ld/st.shared.v4, cp.async.16,
/// an ldmatrix row) needs it, so every buffer such accesses use has at least this alignment, and a
/// proof over the bases it allows covers every real allocation.
inline constexpr int64_t kDefaultBaseAlignment = 16;

/// The bank model of a compute capability: sm_8x is sm_80, sm_9x sm_90, sm_100 and later sm_100
/// (their shared-memory banks are the same, docs/hardware.md); below sm_80, sm_80.
const Arch& arch_for_sm(int sm);

/// Throws HwError naming the known architectures when `name` is not one of them.
const Arch& arch_by_name(std::string_view name);
std::vector<std::string> arch_names();

}  // namespace lp::hw
