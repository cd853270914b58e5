#include "hw/TmaSwizzle.h"

#include "hw/HwError.h"

namespace lp::hw {

namespace {

constexpr int64_t kDescriptorOffsetMask = 0x3FFFF;
constexpr int64_t kTmaMaxBoxExtent = 256;

}  // namespace

std::string_view swizzle_name(SmemSwizzle mode) {
  switch (mode) {
    case SmemSwizzle::None: return "none";
    case SmemSwizzle::B32: return "32B";
    case SmemSwizzle::B64: return "64B";
    case SmemSwizzle::B128: return "128B";
  }
  return "none";
}

SmemSwizzle swizzle_from_name(std::string_view name) {
  for (SmemSwizzle m : {SmemSwizzle::None, SmemSwizzle::B32, SmemSwizzle::B64, SmemSwizzle::B128})
    if (swizzle_name(m) == name) return m;
  throw HwError("unknown swizzle mode '" + std::string(name) + "' (known: none, 32B, 64B, 128B)");
}

int swizzle_bits(SmemSwizzle mode) {
  switch (mode) {
    case SmemSwizzle::None: return 0;
    case SmemSwizzle::B32: return 1;
    case SmemSwizzle::B64: return 2;
    case SmemSwizzle::B128: return 3;
  }
  return 0;
}

int64_t swizzle_span_bytes(SmemSwizzle mode) {
  return mode == SmemSwizzle::None ? 0 : int64_t{16} << swizzle_bits(mode);
}

int64_t swizzle_period_bytes(SmemSwizzle mode) {
  return mode == SmemSwizzle::None ? 16 : int64_t{128} << swizzle_bits(mode);
}

lp::Swizzle cute_byte_swizzle(SmemSwizzle mode, bool atom_32b) {
  if (!atom_32b) return lp::Swizzle(swizzle_bits(mode), 4, 3);
  if (mode != SmemSwizzle::B128) throw HwError("the 32-byte atom variant exists only for the 128B swizzle");
  return lp::Swizzle(2, 5, 2);
}

int64_t swizzle_byte_address(SmemSwizzle mode, int64_t byte_address) {
  if (byte_address < 0) throw HwError("shared-memory address " + std::to_string(byte_address) + " is negative");
  const int64_t mask = (int64_t{1} << swizzle_bits(mode)) - 1;
  return byte_address ^ (((byte_address >> 7) & mask) << 4);
}

int64_t tma_box_byte_offset(const TmaBox& box, const std::vector<int64_t>& coord) {
  int64_t row = 0;  // the outer coordinates, flattened innermost first
  for (size_t d = box.box_dims.size(); d-- > 1;) row = row * box.box_dims[d] + coord[d];
  const int64_t span = swizzle_span_bytes(box.swizzle);
  const int64_t pitch = span ? span : box.box_dims[0] * box.element_bytes;
  return swizzle_byte_address(box.swizzle, row * pitch + coord[0] * box.element_bytes);
}

TmaBoxCheck check_tma_box(const TmaBox& box) {
  TmaBoxCheck check;
  auto fail = [&](std::string why) { check.violations.push_back(std::move(why)); };
  const int64_t eb = box.element_bytes;
  if (eb != 1 && eb != 2 && eb != 4 && eb != 8 && eb != 16)
    fail("element size " + std::to_string(eb) + " bytes is not 1, 2, 4, 8 or 16");
  if (box.box_dims.empty() || box.box_dims.size() > 5)
    fail("a TMA box has 1 to 5 dimensions, not " + std::to_string(box.box_dims.size()));
  for (size_t d = 0; d < box.box_dims.size(); ++d)
    if (box.box_dims[d] < 1 || box.box_dims[d] > kTmaMaxBoxExtent)
      fail("box dimension " + std::to_string(d) + " is " + std::to_string(box.box_dims[d]) +
           "; each must be in [1, 256]");
  if (!box.box_dims.empty() && box.box_dims[0] >= 1 && box.box_dims[0] <= kTmaMaxBoxExtent && eb >= 1 && eb <= 16) {
    const int64_t inner = box.box_dims[0] * eb;
    if (inner % 16 != 0)
      fail("inner box dimension is " + std::to_string(inner) + " bytes; it must be a multiple of 16");
    const int64_t span = swizzle_span_bytes(box.swizzle);
    if (span != 0 && inner > span)
      fail("inner box dimension is " + std::to_string(inner) + " bytes; swizzle " +
           std::string(swizzle_name(box.swizzle)) + " allows at most " + std::to_string(span));
  }
  if (box.smem_address < 0 || box.smem_address % kTmaSmemAlignment != 0)
    fail("shared-memory address " + std::to_string(box.smem_address) + " is not 128-byte aligned");
  else if (box.smem_address % swizzle_period_bytes(box.swizzle) != 0)
    check.pattern_shifted = true;
  return check;
}

uint64_t wgmma_layout_field(SmemSwizzle mode) {
  switch (mode) {
    case SmemSwizzle::None: return 0;
    case SmemSwizzle::B128: return 1;
    case SmemSwizzle::B64: return 2;
    case SmemSwizzle::B32: return 3;
  }
  return 0;
}

SmemSwizzle wgmma_swizzle_from_field(uint64_t field) {
  for (SmemSwizzle m : {SmemSwizzle::None, SmemSwizzle::B32, SmemSwizzle::B64, SmemSwizzle::B128})
    if (wgmma_layout_field(m) == field) return m;
  throw HwError("wgmma descriptor layout field " + std::to_string(field) + " is not 0..3");
}

uint64_t tcgen05_swizzle_field(SmemSwizzle mode, bool atom_32b) {
  if (atom_32b && mode != SmemSwizzle::B128)
    throw HwError("the 32-byte-atom tcgen05 swizzle exists only for 128B, not " + std::string(swizzle_name(mode)));
  switch (mode) {
    case SmemSwizzle::None: return 0;
    case SmemSwizzle::B128: return atom_32b ? 1 : 2;
    case SmemSwizzle::B64: return 4;
    case SmemSwizzle::B32: return 6;
  }
  return 0;
}

Tcgen05Swizzle tcgen05_swizzle_from_field(uint64_t field) {
  switch (field) {
    case 0: return {SmemSwizzle::None, false};
    case 1: return {SmemSwizzle::B128, true};
    case 2: return {SmemSwizzle::B128, false};
    case 4: return {SmemSwizzle::B64, false};
    case 6: return {SmemSwizzle::B32, false};
    default: throw HwError("tcgen05 descriptor swizzle field " + std::to_string(field) + " is not 0, 1, 2, 4 or 6");
  }
}

uint64_t encode_descriptor_offset(int64_t bytes, std::string_view what) {
  const std::string name(what);
  if (bytes < 0) throw HwError(name + " " + std::to_string(bytes) + " is negative");
  if (bytes % 16 != 0) throw HwError(name + " " + std::to_string(bytes) + " is not a multiple of 16 bytes");
  if (bytes > kDescriptorOffsetMask)
    throw HwError(name + " " + std::to_string(bytes) + " does not fit the descriptor's 18-bit byte range");
  return static_cast<uint64_t>((bytes & kDescriptorOffsetMask) >> 4);
}

uint64_t descriptor_base_offset(SmemSwizzle mode, int64_t start_address) {
  if (mode == SmemSwizzle::None) return 0;
  if (start_address < 0) throw HwError("matrix start address " + std::to_string(start_address) + " is negative");
  const int64_t repeats = swizzle_period_bytes(mode) / 128;
  return static_cast<uint64_t>((start_address >> 7) & (repeats - 1));
}

uint64_t encode_wgmma_descriptor(const MatrixDescriptor& d) {
  if (d.atom_32b) throw HwError("wgmma descriptors have no 32-byte-atom swizzle");
  return encode_descriptor_offset(d.start_address, "start address") |
         encode_descriptor_offset(d.leading_byte_offset, "leading byte offset") << 16 |
         encode_descriptor_offset(d.stride_byte_offset, "stride byte offset") << 32 |
         descriptor_base_offset(d.swizzle, d.start_address) << 49 | wgmma_layout_field(d.swizzle) << 62;
}

uint64_t encode_tcgen05_descriptor(const MatrixDescriptor& d) {
  constexpr uint64_t kFixedVersion = 0b001;
  return encode_descriptor_offset(d.start_address, "start address") |
         encode_descriptor_offset(d.leading_byte_offset, "leading byte offset") << 16 |
         encode_descriptor_offset(d.stride_byte_offset, "stride byte offset") << 32 | kFixedVersion << 46 |
         descriptor_base_offset(d.swizzle, d.start_address) << 49 | tcgen05_swizzle_field(d.swizzle, d.atom_32b) << 61;
}

}  // namespace lp::hw
