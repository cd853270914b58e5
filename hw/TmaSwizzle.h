#pragma once
// The shared-memory side of TMA and of wgmma/tcgen05 matrix descriptors (PTX ISA
// "Matrix Descriptor Format" and "Shared Memory Descriptor", CUDA driver cuTensorMapEncodeTiled).
//
// TMA/WGMMA swizzles act on absolute shared-memory byte-address bits:
//   128B: bits[6:4] ^= bits[9:7];  64B: bits[5:4] ^= bits[8:7];  32B: bit 4 ^= bit 7.
// That is CuTe's Swizzle<B,4,3> on byte addresses with B = 3, 2, 1; the pattern repeats every
// 1024/512/256 bytes, so a tile whose base is not aligned to that period sees it shifted.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/ir/Swizzle.h"

namespace lp::hw {

enum class SmemSwizzle { None, B32, B64, B128 };

/// The alignment TMA requires of its shared-memory address (CUDA driver API, cuTensorMapEncodeTiled).
inline constexpr int64_t kTmaSmemAlignment = 128;

std::string_view swizzle_name(SmemSwizzle mode);  ///< "none", "32B", "64B", "128B"
SmemSwizzle swizzle_from_name(std::string_view name);  ///< throws HwError

/// B of Swizzle<B,4,3>: 0, 1, 2, 3.
int swizzle_bits(SmemSwizzle mode);
/// Bytes one swizzled row spans (the TMA inner-box limit): 32/64/128; 0 (no limit) for none.
int64_t swizzle_span_bytes(SmemSwizzle mode);
/// Bytes after which the XOR pattern repeats: 256/512/1024; 16 for none (any 16-byte chunk).
int64_t swizzle_period_bytes(SmemSwizzle mode);
/// CuTe's Swizzle<B,4,3>, the same map on byte addresses. `atom_32b` (tcgen05's 128B swizzle
/// with 32-byte atomicity, 128B only) is Swizzle<2,5,2>: 32-byte chunks XORed with the row
/// within 4 rows of 128 bytes (CuTe's UMMA::Layout_MN_SW128_32B_Atom, mma_traits_sm100.hpp).
lp::Swizzle cute_byte_swizzle(SmemSwizzle mode, bool atom_32b = false);
/// The swizzled byte address. Precondition-free: negative addresses throw HwError.
int64_t swizzle_byte_address(SmemSwizzle mode, int64_t byte_address);

/// One TMA tiled box: element size, box extents innermost first, and the shared-memory address
/// it is written to.
struct TmaBox {
  SmemSwizzle swizzle = SmemSwizzle::None;
  int64_t element_bytes = 2;
  std::vector<int64_t> box_dims;  ///< innermost first, 1 to 5 dimensions
  int64_t smem_address = 0;
};

struct TmaBoxCheck {
  std::vector<std::string> violations;  ///< hard limits the driver or hardware enforces
  /// The address is legal but not aligned to the swizzle period: the pattern is shifted
  /// relative to a reader that assumes an aligned tile (silent wrong data, tilelang#2379).
  bool pattern_shifted = false;
  bool ok() const { return violations.empty(); }
};

/// Checks: element size 1/2/4/8/16; 1 to 5 dims; each extent in [1,256]; inner extent in bytes
/// a multiple of 16 and (swizzled) at most the swizzle span; smem address 128-byte aligned.
TmaBoxCheck check_tma_box(const TmaBox& box);

/// Where a tiled TMA puts the box element at `coord` (innermost first), as a byte offset from a
/// destination aligned to the swizzle period: the box's rows (every coordinate but the innermost,
/// flattened) follow each other every swizzle span, or densely (inner extent x element bytes
/// apart) without a swizzle, and the mode's swizzle then acts on the address. A swizzled row
/// narrower than the span is padded to it. Measured on an H100 for every mode and inner width
/// (scripts/gpu/tma_probe.cu, docs/hardware.md). Precondition: check_tma_box(box).ok() and
/// 0 <= coord[d] < box_dims[d].
int64_t tma_box_byte_offset(const TmaBox& box, const std::vector<int64_t>& coord);

/// wgmma (sm_90) descriptor layout field, bits 63-62: none 0, 128B 1, 64B 2, 32B 3.
uint64_t wgmma_layout_field(SmemSwizzle mode);
SmemSwizzle wgmma_swizzle_from_field(uint64_t field);  ///< throws HwError outside 0..3

/// tcgen05 (sm_100) descriptor swizzle field, bits 63-61: none 0, 128B with 32-byte atom 1,
/// 128B 2, 64B 4, 32B 6. The 32-byte atom variant exists only for 128B.
uint64_t tcgen05_swizzle_field(SmemSwizzle mode, bool atom_32b = false);
struct Tcgen05Swizzle {
  SmemSwizzle mode = SmemSwizzle::None;
  bool atom_32b = false;
};
Tcgen05Swizzle tcgen05_swizzle_from_field(uint64_t field);  ///< throws HwError on 3, 5, 7, >7

/// Start address, LBO and SBO as descriptors hold them: (x & 0x3FFFF) >> 4 in 14 bits. Unlike
/// the masking formula, rejects values it would silently change: negative, not a multiple of
/// 16, or above 0x3FFFF.
uint64_t encode_descriptor_offset(int64_t bytes, std::string_view what);

/// The base-offset field for a swizzled matrix whose start address is not aligned to the
/// pattern period: (start >> 7) & (period/128 - 1); 0 for none or an aligned start.
uint64_t descriptor_base_offset(SmemSwizzle mode, int64_t start_address);

struct MatrixDescriptor {
  int64_t start_address = 0;
  int64_t leading_byte_offset = 0;
  int64_t stride_byte_offset = 0;
  SmemSwizzle swizzle = SmemSwizzle::None;
  bool atom_32b = false;  ///< tcgen05 only
};

/// sm_90 wgmma descriptor: start [13:0], LBO [29:16], SBO [45:32], base offset [51:49],
/// layout [63:62].
uint64_t encode_wgmma_descriptor(const MatrixDescriptor& d);
/// sm_100 tcgen05 descriptor: start [13:0], LBO [29:16], SBO [45:32], fixed 0b001 [48:46],
/// base offset [51:49], LBO mode [52] = 0, swizzle [63:61].
uint64_t encode_tcgen05_descriptor(const MatrixDescriptor& d);

}  // namespace lp::hw
