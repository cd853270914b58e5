#pragma once
// The F2 view of a shared-memory access (solver/SmemAccess.h). When every step from the lanes
// index (lane + 32 * issue) to the byte address is exactly affine over F2 -- the lanes layout,
// the coordinate -> smem index step, the smem layout, the element size, the base residue and the
// byte swizzle -- every instruction and every phase costs the same, and that cost is a ratio of
// ranks (derivation: docs/solver.md, "Bank conflicts over F2").
//
// Inputs are bit masks over the bits of the lanes index: bit k of `input` is bit k of
// lane + 32 * issue. Lanes an ldmatrix/stmatrix .x1/.x2 does not read are not inputs.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "solver/SmemAccess.h"

namespace lp {

/// One (lane, issue, base residue) of the access.
struct F2Point {
  int lane = 0;
  int64_t issue = 0, base = 0;
};

/// What every instruction of an F2-linear access costs.
struct F2Cost {
  bool merged = false;
  int64_t phases = 0;
  int64_t per_bank = 1;  ///< distinct words (accesses, without broadcast) on every bank a phase hits
  int64_t wavefronts = 0, ideal = 0;
};

class F2AccessMap {
 public:
  /// The map, or nullopt with the reason when a step is not exactly F2-affine.
  static std::optional<F2AccessMap> build(const SmemAccess& a, std::string* why_not);

  /// A point whose coordinate is outside the smem layout, or whose address is misaligned or past
  /// shared memory, if any exists. When there is one, addresses and costs below mean nothing.
  const std::optional<F2Point>& invalid() const { return invalid_; }
  /// True when the F2 argument shows every lane's vector covers consecutive elements along the
  /// contiguous mode (a sufficient condition; false means "not shown", not "violated").
  bool vectors_shown() const { return vectors_shown_; }
  /// The cost of every instruction at every base, or nullopt with the reason.
  std::optional<F2Cost> cost(std::string* why_not) const;

  const std::vector<uint64_t>& inputs() const { return inputs_; }  ///< one bit each
  const std::vector<int64_t>& residues() const { return residues_; }
  F2Point point(uint64_t input, int64_t base) const;
  /// The byte address the map gives for an input at a base residue.
  int64_t address(uint64_t input, int64_t base) const;

 private:
  explicit F2AccessMap(const SmemAccess& a) : a_(&a) {}
  const SmemAccess* a_;
  std::vector<uint64_t> inputs_;
  std::vector<int64_t> residues_;
  uint64_t byte_const_ = 0;          ///< bytes * element offset, before base and byte swizzle
  std::vector<uint64_t> byte_cols_;  ///< per input
  std::vector<uint64_t> addr_cols_;  ///< per input, after the byte swizzle (linear part at every base)
  std::optional<F2Point> invalid_;
  bool vectors_shown_ = false;
};

}  // namespace lp
