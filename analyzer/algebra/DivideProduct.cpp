// Divides and products: cute/layout.hpp (logical_divide, zipped/tiled/flat_divide, logical,
// blocked and raked products, tile_to_shape).
#include <fmt/format.h>

#include "analyzer/algebra/Algorithms.h"
#include "analyzer/algebra/CuteRejects.h"

namespace lp::algebra {

namespace {

// CuTe's transform_layout(layout, tiler, f): f on the paired modes, the layout's extra modes kept.
template <class F>
CuteLayout per_mode(const CuteLayout& l, const CuteTiler& t, const char* op, F f) {
  if (t.parts.size() > l.rank())
    throw CuteRejects(fmt::format("{}: too many modes in tiler ({} for a rank-{} layout)", op, t.parts.size(), l.rank()));
  std::vector<CuteLayout> modes;
  for (size_t i = 0; i < l.rank(); ++i) modes.push_back(i < t.parts.size() ? f(l.mode(i), t.parts[i]) : l.mode(i));
  return CuteLayout::tuple(std::move(modes));
}

// CuTe's zip2_by(layout, guide): ((A,a),((B,b),...)) guided by (X,(X,...)) -> ((A,B,...),(a,b,...)).
CuteLayout zip2_by(const CuteLayout& l, const CuteTiler& guide) {
  if (guide.kind != CuteTiler::Kind::Tuple) {
    if (l.rank() != 2 || l.is_leaf)
      throw CuteRejects("zip2_by: \"Mismatched ranks\" (a `_` tiler mode leaves a mode that is not rank 2)");
    return l;
  }
  if (l.rank() < guide.parts.size()) throw CuteRejects("zip2_by: \"Mismatched ranks\"");
  std::vector<CuteLayout> tiles, rests;
  for (size_t i = 0; i < guide.parts.size(); ++i) {
    CuteLayout split = zip2_by(l.mode(i), guide.parts[i]);
    tiles.push_back(split.modes[0]);
    rests.push_back(split.modes[1]);
  }
  for (size_t j = guide.parts.size(); j < l.rank(); ++j) rests.push_back(l.mode(j));
  return CuteLayout::tuple({CuteLayout::tuple(std::move(tiles)), CuteLayout::tuple(std::move(rests))});
}

// CuTe's result(repeat<R>(_)) on one mode: a rank>1 mode is unpacked one level.
void unpack_into(std::vector<CuteLayout>& out, const CuteLayout& mode) {
  if (mode.rank() == 1) out.push_back(mode);
  else
    for (const CuteLayout& m : mode.modes) out.push_back(m);
}

std::vector<Int> flat_shape(const CuteLayout& l) {
  std::vector<Int> s;
  for (const CuteLayout& leaf : l.leaves()) s.push_back(leaf.shape);
  return s;
}

// CuTe's zip(a, b) of two layouts: ((a0,b0),(a1,b1),...), or ((a,b)) for rank-1 leaves.
CuteLayout zip_layouts(const CuteLayout& a, const CuteLayout& b) {
  if (a.is_leaf) return CuteLayout::tuple({CuteLayout::tuple({a, b})});
  if (b.rank() != a.rank()) throw CuteRejects("zip: \"Mismatched Ranks\"");
  std::vector<CuteLayout> modes;
  for (size_t i = 0; i < a.rank(); ++i) modes.push_back(CuteLayout::tuple({a.modes[i], b.mode(i)}));
  return CuteLayout::tuple(std::move(modes));
}

CuteLayout product_of_layouts(const CuteLayout& block, const CuteLayout& tiler) {
  return CuteLayout::tuple({block, composition(complement(block, block.size() * tiler.cosize()), tiler)});
}

}  // namespace

CuteLayout logical_divide(const CuteLayout& l, const CuteTiler& t) {
  switch (t.kind) {
    case CuteTiler::Kind::Underscore:
      return l;
    case CuteTiler::Kind::Tuple:
      return per_mode(l, t, "logical_divide", [](const CuteLayout& m, const CuteTiler& x) { return logical_divide(m, x); });
    case CuteTiler::Kind::Layout:
      break;
  }
  const CuteLayout rest = complement(t.layout, flat_shape(coalesce(l)));
  return composition(l, CuteLayout::tuple({t.layout, rest}));
}

CuteLayout zipped_divide(const CuteLayout& l, const CuteTiler& t) { return zip2_by(logical_divide(l, t), t); }

CuteLayout tiled_divide(const CuteLayout& l, const CuteTiler& t) {
  const CuteLayout z = zipped_divide(l, t);
  std::vector<CuteLayout> modes{z.modes[0]};
  unpack_into(modes, z.modes[1]);
  return CuteLayout::tuple(std::move(modes));
}

CuteLayout flat_divide(const CuteLayout& l, const CuteTiler& t) {
  const CuteLayout z = zipped_divide(l, t);
  std::vector<CuteLayout> modes;
  unpack_into(modes, z.modes[0]);
  unpack_into(modes, z.modes[1]);
  return CuteLayout::tuple(std::move(modes));
}

CuteLayout logical_product(const CuteLayout& a, const CuteTiler& b) {
  switch (b.kind) {
    case CuteTiler::Kind::Underscore:
      return a;
    case CuteTiler::Kind::Tuple:
      return per_mode(a, b, "logical_product", [](const CuteLayout& m, const CuteTiler& x) { return logical_product(m, x); });
    case CuteTiler::Kind::Layout:
      break;
  }
  return product_of_layouts(a, b.layout);
}

CuteLayout blocked_product(const CuteLayout& a, const CuteLayout& b) {
  const size_t rank = std::max(a.rank(), b.rank());
  const CuteLayout p = product_of_layouts(append_to_rank(a, rank), append_to_rank(b, rank));
  return zip_layouts(p.modes[0], p.modes[1]);
}

CuteLayout raked_product(const CuteLayout& a, const CuteLayout& b) {
  const size_t rank = std::max(a.rank(), b.rank());
  const CuteLayout p = product_of_layouts(append_to_rank(a, rank), append_to_rank(b, rank));
  return zip_layouts(p.modes[1], p.modes[0]);
}

CuteLayout tile_to_shape(const CuteLayout& block, const std::vector<Int>& target_shape) {
  const size_t rank = target_shape.size();
  if (block.rank() > rank) throw CuteRejects("\"Rank of layout must be <= rank of target shape.\"");
  const CuteLayout padded = append_to_rank(block, rank);
  std::vector<Int> product_shape;
  bool static_target = true;
  for (const Int& s : target_shape) static_target = static_target && s.is_static;
  for (size_t i = 0; i < rank; ++i) {
    const Int block_extent = padded.mode(i).size();
    if (static_target && !block_extent.is_static)
      throw CuteRejects("tile_to_shape: the divisibility static_assert needs a static block shape for a static target");
    if (static_target && target_shape[i].value % block_extent.value != 0)
      throw CuteRejects(fmt::format("\"tile_to_shape: block shape does not divide the target shape.\" (mode {}: {} by {})",
                                    i, target_shape[i].value, block_extent.value));
    product_shape.push_back(ceil_div(target_shape[i], block_extent));
  }
  CuteLayout shape_tree;
  if (rank == 1) {
    shape_tree = CuteLayout::leaf(product_shape[0], Int{1, true});
  } else {
    std::vector<CuteLayout> leaves;
    for (const Int& s : product_shape) leaves.push_back(CuteLayout::leaf(s, Int{1, true}));
    shape_tree = CuteLayout::tuple(std::move(leaves));
  }
  return blocked_product(padded, compact_col_major(shape_tree));
}

}  // namespace lp::algebra
