#pragma once
// The register-fragment catalog: which thread and register holds each element of the tiles that
// tensor-core and matrix-load instructions read or write (PTX ISA "Matrix Fragments" figures;
// formulas per entry in docs/hardware.md).
//
// Every entry is an lp::Layout built as a TIRx shard (print_tirx shows it in that notation): the
// logical tile is (rows, cols), flattened row-major, and mapped to the axes
//   warpid  warp of the warpgroup (wgmma, tcgen05.ld.32x32b; absent elsewhere),
//   laneid  lane of the warp,
//   reg     the element's index in the instruction's per-thread fragment, in PTX order
//           (for packed 16/8-bit types, 32-bit register r holds elements r*k .. r*k+k-1).
// Invariant: each layout has no replicas and is a bijection from the tile onto its slots.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/ir/Layout.h"

namespace lp::hw {

struct Fragment {
  std::string name;       ///< stable catalog name, e.g. "mma.m16n8k16.f16.A"
  std::string summary;    ///< what the tile is
  std::string row_name;   ///< meaning of the tile row ("m", "k", "TMEM lane", ...)
  std::string col_name;
  int64_t rows = 0;
  int64_t cols = 0;
  std::string source;     ///< where the mapping is specified
  lp::Layout layout;
};

/// Where one tile element lives. warp is 0 for per-warp fragments.
struct FragmentSlot {
  int64_t warp = 0;
  int64_t lane = 0;
  int64_t reg = 0;
  bool operator==(const FragmentSlot&) const = default;
};

const std::vector<Fragment>& fragment_catalog();
/// nullptr when `name` is not in the catalog.
const Fragment* find_fragment(std::string_view name);
/// Catalog names nearest to `name` (edit distance, then shared prefix), at most `limit`.
std::vector<std::string> similar_fragment_names(std::string_view name, size_t limit = 6);

/// The slot of tile element (row, col). Throws LayoutError outside the tile.
FragmentSlot fragment_slot(const Fragment& fragment, int64_t row, int64_t col);

}  // namespace lp::hw
