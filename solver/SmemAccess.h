#pragma once
// A shared-memory access as the bank-conflict property sees it: which byte address each lane of
// each issued instruction touches.
//
//   smem   a scalar layout: logical coordinate -> element offset (swizzles included)
//   lanes  a layout whose 1-D index is lane + 32 * issue: its leading leaves multiply to exactly
//          32 (the lane), the remaining leaves enumerate issued instructions. Its strides are
//          scaled bases (_1@d moves along the smem layout's top-level mode d) or plain integers
//          (moves along the smem layout's 1-D index).
//   base   the buffer's base address, known only up to its alignment.
//
// The byte address of (lane, issue) is base + bytes * smem(coordinate), except that a trailing
// byte-address swizzle (`Sw<B,M,S> o smem_ptr[Nb]`) acts on the absolute address, as TMA and
// GMMA swizzles do. Wavefront counts are invariant when every address moves by a multiple of
// 128 bytes (banks rotate) and of the swizzle period, so base residues modulo base_period()
// cover every possible base.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/ir/Layout.h"
#include "hw/Arch.h"
#include "hw/BankModel.h"
#include "hw/SmemInstr.h"
#include "analyzer/support/Error.h"

namespace lp {

/// Bad access descriptions (wrong lane split, coordinates outside the buffer, ...).
class AccessError : public Error {
 public:
  explicit AccessError(const std::string& what) : Error(what) {}
};

/// `smem` split at a trailing byte-address swizzle (`Sw<B,M,S> o smem_ptr[Nb] o L`): the layout
/// of element offsets and that swizzle, which acts on byte addresses. Throws AccessError when such
/// a swizzle is followed by further stages or is for elements other than `element_bits` wide.
std::pair<Layout, std::optional<Stage>> split_byte_swizzle(const Layout& smem, int element_bits);

/// What the lanes layout's values are: the buffer's coordinates (scaled bases) or 1-D index
/// (integers), or element offsets from the buffer's base as the code computes them (integers;
/// the buffer's layout, swizzles included, is then not applied and only bounds the offsets).
enum class LaneValues { Coordinates, ElementOffsets };

class SmemAccess {
 public:
  /// Validates the pieces; throws AccessError with a precise reason. `active`: the lanes that
  /// execute the instruction (a guard predicate); the others give no address and take no part in
  /// the cost (hw::smem_access_cost with a lane mask), and their coordinates are never evaluated.
  SmemAccess(Layout smem, int element_bits, Layout lanes, const hw::SmemInstr& instr, const hw::Arch& arch,
             int64_t base_align, hw::LaneMask active = hw::kAllLanes, LaneValues values = LaneValues::Coordinates);

  const Layout& smem() const { return smem_; }
  const Layout& lanes() const { return lanes_; }
  const hw::SmemInstr& instr() const { return *instr_; }
  const hw::Arch& arch() const { return *arch_; }
  int element_bytes() const { return element_bits_ / 8; }
  int64_t base_align() const { return base_align_; }
  hw::LaneMask active() const { return active_; }
  LaneValues lane_values() const { return values_; }
  bool is_active(int lane) const { return (active_ >> lane) & 1; }
  /// Whether some lane that gives an address does not execute the instruction.
  bool partial_warp() const;
  int64_t issue_count() const { return lanes_.size() / hw::kWarpLanes; }
  /// Base residues that cover every base: 0, align, 2*align, ... below the period.
  int64_t base_period() const { return base_period_; }
  /// How many base residues a proof visits: base_period() / base_align(), at least one.
  int64_t base_residue_count() const { return std::max<int64_t>(1, (base_period_ + base_align_ - 1) / base_align_); }
  /// Elements each lane's access (or matrix row) covers.
  int elements_per_access() const;

  /// Number of lanes-layout modes that form the lane (their extents multiply to 32).
  size_t lane_modes() const { return lane_modes_; }
  /// The smem coordinate (one value per top-level mode) of (lane, issue); a lane map that gives
  /// smem indices is turned into coordinates. Throws AccessError outside the buffer.
  std::vector<int64_t> coordinate(int lane, int64_t issue) const;
  /// The smem 1-D index of a top-level coordinate; throws AccessError outside the buffer.
  int64_t smem_index(const std::vector<int64_t>& coord) const;
  /// Byte address of (lane, issue) for a base residue.
  int64_t address(int lane, int64_t issue, int64_t base) const;
  /// The 32 lanes' addresses; a lane that gives none (inactive, or beyond the instruction's
  /// address lanes) repeats the first active lane's, unused by the bank model.
  std::vector<int64_t> addresses(int64_t issue, int64_t base) const;
  /// The hardware model's cost of an issue at a base (hw::smem_access_cost over the active lanes);
  /// throws hw::HwError for an invalid access.
  hw::AccessCost cost(const std::vector<int64_t>& addresses) const;

  /// The smem layout up to (not including) a trailing byte swizzle, and that swizzle.
  const Layout& element_part() const { return element_part_; }
  const std::optional<Stage>& absolute_swizzle() const { return absolute_swizzle_; }
  /// The top-level smem mode along which consecutive elements are contiguous (stride 1), if any.
  std::optional<size_t> vector_mode() const { return vector_mode_; }
  /// Top-level mode sizes of the smem layout.
  const std::vector<int64_t>& smem_dims() const { return dims_; }

 private:
  Layout smem_, lanes_, element_part_;
  int element_bits_;
  const hw::SmemInstr* instr_;
  const hw::Arch* arch_;
  int64_t base_align_, base_period_;  ///< at least the bank pattern's period (banks x word bytes)
  hw::LaneMask active_;
  LaneValues values_;
  size_t lane_modes_ = 0;
  std::optional<Stage> absolute_swizzle_;
  std::optional<size_t> vector_mode_;
  std::vector<int64_t> dims_;        ///< smem top-level mode sizes
  std::vector<size_t> coord_axis_;   ///< lanes axis -> smem top-level mode (basis lane maps)
  bool by_index_ = false;            ///< lanes strides are smem 1-D indices
};

/// hw::element_bits, throwing AccessError naming the known types for an unknown name.
int dtype_bits(const std::string& name);

}  // namespace lp
