#include "solver/F2Conflicts.h"

#include <fmt/format.h>

#include <array>

#include "analyzer/ir/Checked.h"
#include "hw/BankModel.h"
#include "solver/F2Layout.h"

namespace lp {

namespace {

int log2_exact(int64_t v) {
  if (v < 1 || (v & (v - 1))) return -1;
  return __builtin_ctzll(static_cast<uint64_t>(v));
}

uint64_t swizzle_bits(uint64_t v, const Swizzle& s) {
  uint64_t y = v & static_cast<uint64_t>(s.source_mask());
  return v ^ (s.shift() >= 0 ? (y >> s.shift()) : (y << -s.shift()));
}

// Smem index -> element offset: to_f2 orders its columns by mode; the index splits across the
// modes in the layout's order (Layout::split), so map each index bit to its column.
std::vector<uint64_t> element_of_index_bit(const F2Layout& el, IndexOrder order) {
  std::vector<uint64_t> elem_of_bit(el.input_bits(), 0);
  const auto& mb = el.mode_bits;
  const bool colex = order == IndexOrder::Colex;
  size_t col = 0;
  for (size_t k = 0; k < mb.size(); ++k) {
    size_t start = 0;
    for (size_t j = 0; j < mb.size(); ++j)
      if (colex ? j < k : j > k) start += static_cast<size_t>(mb[j]);
    for (int j = 0; j < mb[k]; ++j) elem_of_bit[start + static_cast<size_t>(j)] = el.cols[col++][0];
  }
  return elem_of_bit;
}

// Vector contiguity (n = elements per access, a power of two): if the coordinate along the
// contiguous mode d and the element offset are always multiples of n, c_d | (n-1) stays inside
// mode d, and index bit shift_d + t maps to element 2^t for t < log2 n, then moving j < n
// along d adds exactly j to the element offset (every step an XOR on clear bits). `along` is
// every bit the coordinate along d can have.
bool vector_steps_contiguous(int n, uint64_t elem_const, const std::vector<uint64_t>& elem_cols, uint64_t along,
                             int64_t mode_size, int mode_shift, const std::vector<uint64_t>& elem_of_bit) {
  const uint64_t mask = static_cast<uint64_t>(n - 1);
  bool ok = (elem_const & mask) == 0;
  for (uint64_t c : elem_cols) ok = ok && (c & mask) == 0;
  ok = ok && (along & mask) == 0 && (along | mask) < static_cast<uint64_t>(mode_size);
  for (int t = 0; ok && (int64_t{1} << t) < n; ++t) {
    size_t p = static_cast<size_t>(mode_shift + t);
    ok = p < elem_of_bit.size() && elem_of_bit[p] == (uint64_t{1} << t);
  }
  return ok;
}

}  // namespace

std::optional<F2AccessMap> F2AccessMap::build(const SmemAccess& a, std::string* why_not) {
  auto fail = [&](std::string why) -> std::optional<F2AccessMap> {
    if (why_not) *why_not = std::move(why);
    return std::nullopt;
  };
  const hw::SmemInstr& instr = a.instr();
  const int element_shift = log2_exact(a.element_bytes());
  const int used_bits = log2_exact(hw::address_lane_count(instr));
  if (element_shift < 0) return fail(fmt::format("{}-byte elements are not a power of two", a.element_bytes()));
  if (used_bits < 0 || log2_exact(instr.bytes) < 0 || log2_exact(a.arch().banks) < 0 || log2_exact(a.arch().bank_bytes) < 0)
    return fail("the instruction's lanes or bytes, or the banks, are not powers of two");
  if (a.base_align() % instr.bytes != 0) return fail("the base alignment is not a multiple of the access width");
  F2AccessMap m(a);

  // Lanes index -> smem coordinate (or index), one F2 vector per lanes axis. The lanes layout is
  // colexicographic, so with power-of-two extents input bit k is bit k of lane + 32 * issue.
  std::string why;
  auto lanes = to_f2(a.lanes(), &why);
  if (!lanes) return fail("the lanes layout is not F2-linear: " + why);
  if (lanes->input_bits() > 62) return fail("too many issue bits");
  std::vector<F2Vec> coord_cols;
  for (size_t k = 0; k < lanes->input_bits(); ++k) {
    if (k < 5 && static_cast<int>(k) >= used_bits) continue;  // a lane the instruction does not read
    m.inputs_.push_back(uint64_t{1} << k);
    coord_cols.push_back(lanes->cols[k]);
  }
  const size_t n_in = m.inputs_.size();

  // Each lanes axis moves one smem mode (or the smem index); to_f2 made every axis carry-free,
  // so its largest value is the OR of its constant and columns, reached by setting every input
  // that touches it.
  const auto& axes = a.lanes().axes();
  const bool by_index = axes.size() == 1 && axes[0].is_memory();
  const auto& dims = a.smem_dims();
  for (size_t ax = 0; ax < axes.size(); ++ax) {
    uint64_t top = lanes->constant[ax], reach = 0;
    for (size_t i = 0; i < n_in; ++i)
      if (coord_cols[i][ax]) {
        top |= coord_cols[i][ax];
        reach |= m.inputs_[i];
      }
    const int64_t limit = by_index ? a.smem().size() : dims[axes[ax].path()[0]];
    if (top >= static_cast<uint64_t>(limit)) {
      m.invalid_ = m.point(reach, 0);
      return m;
    }
  }

  // Coordinate -> smem index: with power-of-two mode sizes each in-range coordinate owns its
  // own bits of the index, at the shift the index order gives it (as SmemAccess::smem_index).
  std::vector<int> shift(dims.size(), 0);
  if (!by_index) {
    const bool colex = a.smem().order() == IndexOrder::Colex;
    int at = 0;
    for (size_t k = 0; k < dims.size(); ++k) {
      size_t d = colex ? k : dims.size() - 1 - k;
      int b = log2_exact(dims[d]);
      if (b < 0) return fail(fmt::format("smem mode {} has size {}, not a power of two", d, dims[d]));
      shift[d] = at;
      at += b;
    }
  }
  auto to_index = [&](const F2Vec& v) {
    if (by_index) return v[0];
    uint64_t idx = 0;
    for (size_t ax = 0; ax < axes.size(); ++ax) idx |= v[ax] << shift[axes[ax].path()[0]];
    return idx;
  };

  // Smem index -> element offset.
  auto el = to_f2(a.element_part(), &why);
  if (!el) return fail("the smem layout is not F2-linear: " + why);
  const std::vector<uint64_t> elem_of_bit = element_of_index_bit(*el, a.element_part().order());
  // In range, an index has no bits at or above the element layout's input width.
  auto elem_linear = [&](uint64_t idx) {
    uint64_t e = 0;
    for (size_t p = 0; p < elem_of_bit.size(); ++p)
      if (idx >> p & 1) e ^= elem_of_bit[p];
    return e;
  };
  const uint64_t elem_const = el->constant[0] ^ elem_linear(to_index(lanes->constant));
  std::vector<uint64_t> elem_cols;
  uint64_t elem_support = elem_const;
  for (size_t i = 0; i < n_in; ++i) {
    elem_cols.push_back(elem_linear(to_index(coord_cols[i])));
    elem_support |= elem_cols.back();
  }
  if (elem_support >> (Swizzle::kMaxBit - 1 - element_shift)) return fail("byte addresses too wide");
  m.byte_const_ = elem_const << element_shift;
  uint64_t byte_support = m.byte_const_;
  for (uint64_t c : elem_cols) {
    m.byte_cols_.push_back(c << element_shift);
    byte_support |= m.byte_cols_.back();
  }

  // Base residues. Without a byte swizzle a base only translates every address by a multiple of
  // 16 bytes, which keeps alignment, equalities and distinct-word counts per bank (banks rotate),
  // so only the range depends on it. With one, base + offset must be an XOR (no carry) for the
  // address to stay affine.
  const auto& sw = a.absolute_swizzle();
  for (int64_t b = 0; b < a.base_period(); b += a.base_align()) m.residues_.push_back(b);
  if (m.residues_.empty()) m.residues_.push_back(0);
  if (sw)
    for (int64_t b : m.residues_)
      if (static_cast<uint64_t>(b) & byte_support)
        return fail(fmt::format("base residue {} carries into the byte offsets before the byte swizzle", b));
  for (uint64_t c : m.byte_cols_) m.addr_cols_.push_back(sw ? swizzle_bits(c, sw->swizzle) : c);

  // Alignment and range at every residue: the low bits are the constant's unless a column moves
  // them; the largest address is the echelon maximum of the affine map.
  F2Basis span(1);
  for (size_t i = 0; i < n_in; ++i) span.insert({m.addr_cols_[i]}, i);
  const uint64_t low = static_cast<uint64_t>(instr.bytes - 1);
  for (int64_t b : m.residues_) {
    const uint64_t c = sw ? swizzle_bits(m.byte_const_ ^ static_cast<uint64_t>(b), sw->swizzle) : m.byte_const_;
    const int64_t add = sw ? 0 : b;
    if (c & low) m.invalid_ = m.point(0, b);
    for (size_t i = 0; i < n_in && !m.invalid_; ++i)
      if (m.addr_cols_[i] & low) m.invalid_ = m.point(m.inputs_[i], b);
    if (m.invalid_) return m;
    const auto [top, reached] = span.max_from({c});
    uint64_t reach = 0;  // the input point whose address is the largest
    for (size_t id : reached) reach ^= m.inputs_[id];
    int64_t end = checked_add(checked_add(add, static_cast<int64_t>(top[0]), "byte address"), instr.bytes, "byte address");
    if (end > a.arch().max_smem_bytes_per_block) {
      m.invalid_ = m.point(reach, b);
      return m;
    }
  }

  // Vector contiguity along the contiguous mode d (vector_steps_contiguous).
  const int n = a.elements_per_access();
  if (n == 1) {
    m.vectors_shown_ = true;
  } else if (!by_index && a.vector_mode()) {
    const size_t d = *a.vector_mode();
    uint64_t along = 0;
    for (size_t ax = 0; ax < axes.size(); ++ax)
      if (axes[ax].path()[0] == d) {
        along = lanes->constant[ax];
        for (size_t i = 0; i < n_in; ++i) along |= coord_cols[i][ax];
      }
    m.vectors_shown_ = vector_steps_contiguous(n, elem_const, elem_cols, along, dims[d], shift[d], elem_of_bit);
  }
  return m;
}

F2Point F2AccessMap::point(uint64_t input, int64_t base) const {
  return F2Point{static_cast<int>(input & 31), static_cast<int64_t>(input >> 5), base};
}

int64_t F2AccessMap::address(uint64_t input, int64_t base) const {
  uint64_t x = byte_const_;
  for (size_t i = 0; i < inputs_.size(); ++i)
    if (input & inputs_[i]) x ^= byte_cols_[i];
  if (const auto& sw = a_->absolute_swizzle()) return static_cast<int64_t>(swizzle_bits(x ^ static_cast<uint64_t>(base), sw->swizzle));
  return checked_add(base, static_cast<int64_t>(x), "byte address");
}

// A phase is a coset of V = span(lane bits below log2 of its size). Each lane touches
// max(1, bytes/4) consecutive words, aligned to their count, so word = (address >> 2) ^ j with
// j free in its low bits: the phase's (lane, j) pairs form a coset of V' = V + J, and
// word and bank are affine on it. With broadcast, a hit bank delivers the words of one fiber of
// bank() on the image W(V'): 2^(rank W - rank bank o W) of them, the same on every hit bank.
// Without, it serves every (lane, j) of a fiber of bank o W on V': 2^(dim V' - rank bank o W).
// The linear part is the same at every issue, phase and base, so every instruction costs the
// same; merging (t vs t^1 or t^2 over the whole warp) is a zero column of lane bit 0 or 1.
std::optional<F2Cost> F2AccessMap::cost(std::string* why_not) const {
  const hw::SmemInstr& instr = a_->instr();
  const hw::Arch& arch = a_->arch();
  F2Cost c;
  c.merged = arch.load_merging && instr.mergeable && inputs_.size() >= 2 && inputs_[0] == 1 && inputs_[1] == 2 &&
             (addr_cols_[0] == 0 || addr_cols_[1] == 0);
  const auto phases = hw::phase_lanes(instr, c.merged);
  const int size = static_cast<int>(phases.front().size());
  const int v_bits = log2_exact(size);
  bool cosets = v_bits >= 0 && static_cast<size_t>(v_bits) <= inputs_.size();
  for (size_t p = 0; cosets && p < phases.size(); ++p)
    for (int k = 0; k < size && cosets; ++k) cosets = phases[p].size() == static_cast<size_t>(size) && phases[p][static_cast<size_t>(k)] == static_cast<int>(p) * size + k;
  for (int k = 0; cosets && k < v_bits; ++k) cosets = inputs_[static_cast<size_t>(k)] == (uint64_t{1} << k);
  if (!cosets) {
    if (why_not) *why_not = "the instruction's phases are not aligned power-of-two lane ranges";
    return std::nullopt;
  }
  const int word_shift = log2_exact(arch.bank_bytes);
  const uint64_t bank_mask = static_cast<uint64_t>(arch.banks - 1);
  const int j_bits = log2_exact(std::max(1, instr.bytes / arch.bank_bytes));
  F2Basis words(1), banks(1);
  size_t id = 0;
  for (int k = 0; k < v_bits; ++k, ++id) {
    uint64_t w = addr_cols_[static_cast<size_t>(k)] >> word_shift;
    words.insert({w}, id);
    banks.insert({w & bank_mask}, id);
  }
  for (int t = 0; t < j_bits; ++t, ++id) {
    words.insert({uint64_t{1} << t}, id);
    banks.insert({(uint64_t{1} << t) & bank_mask}, id);
  }
  const int free_bits = (instr.broadcast ? static_cast<int>(words.rank()) : v_bits + j_bits) - static_cast<int>(banks.rank());
  c.per_bank = int64_t{1} << free_bits;
  c.phases = static_cast<int64_t>(phases.size());
  c.wavefronts = checked_mul(c.phases, c.per_bank);
  c.ideal = c.phases;
  return c;
}

}  // namespace lp
