#include "frontend/annotate/Statement.h"

#include <algorithm>
#include <utility>

namespace lp::annotate {

const char* space_name(Space s) {
  switch (s) {
    case Space::Smem: return "smem";
    case Space::Tmem: return "tmem";
    case Space::Regs: return "regs";
    case Space::Global: return "global";
  }
  return "smem";
}

const char* product_name(ProductKind k) {
  switch (k) {
    case ProductKind::Logical: return "logical_product";
    case ProductKind::Blocked: return "blocked_product";
    case ProductKind::Raked: return "raked_product";
    case ProductKind::TileToShape: return "tile_to_shape";
  }
  return "logical_product";
}

const char* divide_name(DivideKind k) {
  switch (k) {
    case DivideKind::Logical: return "logical_divide";
    case DivideKind::Zipped: return "zipped_divide";
    case DivideKind::Tiled: return "tiled_divide";
    case DivideKind::Flat: return "flat_divide";
  }
  return "logical_divide";
}

}  // namespace lp::annotate
