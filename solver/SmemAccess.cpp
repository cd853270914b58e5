#include "solver/SmemAccess.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <tuple>

#include "analyzer/ir/Checked.h"
#include "hw/ElementType.h"

namespace lp {

int dtype_bits(const std::string& name) {
  std::optional<int> bits = hw::element_bits(name);
  if (!bits) throw AccessError(fmt::format("unknown dtype '{}'; expected one of {}", name, fmt::join(hw::element_type_names(), ", ")));
  return *bits;
}

std::pair<Layout, std::optional<Stage>> split_byte_swizzle(const Layout& smem, int element_bits) {
  // A trailing byte swizzle acts on absolute addresses; anything after it has no place to go.
  const auto& stages = smem.stages();
  for (size_t s = 0; s < stages.size(); ++s)
    if (stages[s].kind == Stage::Kind::ByteSwizzle) {
      if (s + 1 != stages.size())
        throw AccessError("a byte-address swizzle followed by further stages cannot be placed in shared memory");
      if (stages[s].element_bits != element_bits)
        throw AccessError(fmt::format("the layout's smem_ptr[{}b] does not match the {}-bit dtype", stages[s].element_bits,
                                      element_bits));
      LayoutParts p = smem.parts();
      p.stages.pop_back();
      return {Layout::make(std::move(p)), stages[s]};
    }
  return {smem, std::nullopt};
}

namespace {

// The buffer as element offsets see it: one mode over every offset its layout reaches.
Layout offset_span(const Layout& elements) {
  constexpr int64_t kMaxElements = int64_t{1} << 24;  // far beyond any shared memory
  if (!elements.has_domain() || elements.size() > kMaxElements)
    throw AccessError(fmt::format("the buffer has more than {} elements; element offsets need its extent", kMaxElements));
  int64_t end = 0;
  for (int64_t i = 0; i < elements.size(); ++i) {
    const int64_t off = elements.offset_at(i);
    if (off < 0) throw AccessError(fmt::format("the buffer's layout reaches the negative offset {}", off));
    end = std::max(end, off + 1);
  }
  return Layout::make(
      LayoutParts{IndexOrder::Colex, {Axis::memory()}, {Mode{end, {1}, false, true}}, Nest::make_leaf(), {}, {}, {}});
}

}  // namespace

SmemAccess::SmemAccess(Layout smem, int element_bits, Layout lanes, const hw::SmemInstr& instr, const hw::Arch& arch,
                       int64_t base_align, hw::LaneMask active, LaneValues values)
    : smem_(smem.with_order(smem.order())),
      lanes_(lanes.with_order(IndexOrder::Colex)),
      element_part_(smem),
      element_bits_(element_bits),
      instr_(&instr),
      arch_(&arch),
      base_align_(base_align),
      base_period_(int64_t{arch.banks} * arch.bank_bytes),
      active_(active),
      values_(values) {
  if (!smem_.is_scalar())
    throw AccessError("the shared-memory layout must map coordinates to one memory offset (axis m only, no replicas)");
  if (element_bits_ < 8 || element_bits_ % 8)
    throw AccessError(fmt::format("{}-bit elements: the bank model works on whole bytes", element_bits_));
  if (base_align_ < 16 || (base_align_ & (base_align_ - 1)))
    throw AccessError(fmt::format("base alignment {} must be a power of two >= 16 bytes", base_align_));
  std::tie(element_part_, absolute_swizzle_) = split_byte_swizzle(smem_, element_bits_);
  if (values_ == LaneValues::ElementOffsets) {
    // The code's offsets already hold whatever swizzle it applies.
    smem_ = element_part_ = offset_span(element_part_);
    absolute_swizzle_.reset();
  }
  if (absolute_swizzle_) {
    base_period_ = std::max<int64_t>(base_period_, absolute_swizzle_->swizzle.period());
  }
  // Top-level dimensions of the smem layout and its contiguous mode.
  const Layout colex = smem_.with_order(IndexOrder::Colex);
  size_t leaf = 0;
  std::vector<Nest> tops = smem_.nest().leaf ? std::vector<Nest>{Nest::make_leaf()} : smem_.nest().children;
  for (size_t d = 0; d < tops.size(); ++d) {
    int64_t size = 1;
    size_t n = tops[d].leaf_count();
    for (size_t k = 0; k < n; ++k) size *= colex.modes()[leaf + k].extent;
    if (n > 0 && !vector_mode_ && colex.modes()[leaf].stride[0] == 1) vector_mode_ = d;
    dims_.push_back(size);
    leaf += n;
  }
  // The lane: leading leaves of the lanes layout multiplying to exactly 32.
  if (!lanes_.has_domain() || lanes_.size() % hw::kWarpLanes != 0)
    throw AccessError(fmt::format("the lanes layout's size must be a multiple of {} (lane, then issued instructions)",
                                  hw::kWarpLanes));
  int64_t prod = 1;
  while (lane_modes_ < lanes_.modes().size() && prod < hw::kWarpLanes) prod *= lanes_.modes()[lane_modes_++].extent;
  if (prod != hw::kWarpLanes)
    throw AccessError(fmt::format("the lanes layout's leading modes multiply to {}, not {}: mode {} straddles the lane and "
                                  "the issue",
                                  prod, hw::kWarpLanes, lane_modes_ - 1));
  if (!lanes_.replicas().empty()) throw AccessError("the lanes layout has replicas; each lane addresses one coordinate");
  const int used = hw::address_lane_count(*instr_);
  if ((active_ & hw::lanes_below(used)) == 0)
    throw AccessError(fmt::format("no active lane gives {} an address (its address lanes are 0..{})", instr_->name, used - 1));
  for (const Axis& a : lanes_.axes()) {
    if (a.is_memory()) {
      by_index_ = true;
      continue;
    }
    if (!a.is_basis() || a.path().size() != 1)
      throw AccessError(fmt::format("lanes stride axis '{}': use scaled bases _1@d (top-level smem mode d) or integers",
                                    a.spelling()));
    if (a.path()[0] >= dims_.size())
      throw AccessError(fmt::format("lanes stride _1@{} names mode {}, but the smem layout has {} top-level modes",
                                    a.path()[0], a.path()[0], dims_.size()));
  }
  if (by_index_ && lanes_.axes().size() > 1)
    throw AccessError("the lanes layout mixes integer strides (smem index) with bases (smem coordinates)");
  for (const Axis& a : lanes_.axes()) coord_axis_.push_back(a.is_basis() ? a.path()[0] : 0);
  if (instr_->bytes % element_bytes() && element_bytes() > instr_->bytes)
    throw AccessError(fmt::format("{} accesses {} bytes, less than one {}-bit element", instr_->name, instr_->bytes,
                                  element_bits_));
}

int SmemAccess::elements_per_access() const { return std::max(1, instr_->bytes / element_bytes()); }

std::vector<int64_t> SmemAccess::coordinate(int lane, int64_t issue) const {
  Point p = lanes_.images(checked_add(lane, checked_mul(issue, int64_t{hw::kWarpLanes})))[0];
  std::vector<int64_t> c(dims_.size(), 0);
  if (!by_index_) {
    for (size_t a = 0; a < p.size(); ++a) c[coord_axis_[a]] = checked_add(c[coord_axis_[a]], p[a]);
    return c;
  }
  // An smem 1-D index: the top-level coordinate it names, in the smem layout's own order.
  int64_t idx = p[0];
  if (idx < 0 || idx >= smem_.size())
    throw AccessError(values_ == LaneValues::ElementOffsets
                          ? fmt::format("element offset {} is outside the buffer's offsets [0, {})", idx, smem_.size())
                          : fmt::format("index {} is outside the smem layout's domain [0, {})", idx, smem_.size()));
  if (smem_.order() == IndexOrder::Colex)
    for (size_t d = 0; d < dims_.size(); ++d) {
      c[d] = idx % dims_[d];
      idx /= dims_[d];
    }
  else
    for (size_t d = dims_.size(); d-- > 0;) {
      c[d] = idx % dims_[d];
      idx /= dims_[d];
    }
  return c;
}

int64_t SmemAccess::smem_index(const std::vector<int64_t>& coord) const {
  int64_t idx = 0;
  for (size_t d = 0; d < dims_.size(); ++d)
    if (coord[d] < 0 || coord[d] >= dims_[d])
      throw AccessError(fmt::format("coordinate {} of mode {} is outside [0, {})", coord[d], d, dims_[d]));
  // CuTe numbers top-level coordinates colexicographically, TIRx row-major.
  if (smem_.order() == IndexOrder::Colex)
    for (size_t d = dims_.size(); d-- > 0;) idx = idx * dims_[d] + coord[d];
  else
    for (size_t d = 0; d < dims_.size(); ++d) idx = idx * dims_[d] + coord[d];
  return idx;
}

int64_t SmemAccess::address(int lane, int64_t issue, int64_t base) const {
  int64_t e = element_part_.offset_at(smem_index(coordinate(lane, issue)));
  int64_t a = checked_add(base, checked_mul(e, element_bytes(), "byte address"), "byte address");
  if (absolute_swizzle_) a = absolute_swizzle_->swizzle.apply(a);
  return a;
}

bool SmemAccess::partial_warp() const {
  for (int l = 0; l < hw::address_lane_count(*instr_); ++l)
    if (!is_active(l)) return true;
  return false;
}

std::vector<int64_t> SmemAccess::addresses(int64_t issue, int64_t base) const {
  const int used = hw::address_lane_count(*instr_);
  std::vector<int64_t> out(hw::kWarpLanes);
  std::optional<int64_t> first;
  for (int l = 0; l < used; ++l)
    if (is_active(l)) {
      out[static_cast<size_t>(l)] = address(l, issue, base);
      if (!first) first = out[static_cast<size_t>(l)];
    }
  for (int l = 0; l < hw::kWarpLanes; ++l)
    if (l >= used || !is_active(l)) out[static_cast<size_t>(l)] = *first;
  return out;
}

hw::AccessCost SmemAccess::cost(const std::vector<int64_t>& addresses) const {
  return hw::smem_access_cost(*arch_, *instr_, addresses, active_);
}

}  // namespace lp
