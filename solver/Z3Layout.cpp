#include "solver/Z3Layout.h"

#include <fmt/format.h>

#include "analyzer/ir/Checked.h"

namespace lp {

namespace {

unsigned bit_length(uint64_t v) { return v == 0 ? 0 : 64 - static_cast<unsigned>(__builtin_clzll(v)); }

// Interval [lo, hi] of reachable values, grown by each contribution.
struct Interval {
  int64_t lo = 0, hi = 0;
  void add_scaled(int64_t extent, int64_t stride) {
    int64_t span = checked_mul(extent - 1, stride, "bound");
    if (span < 0) lo = checked_add(lo, span, "bound");
    else hi = checked_add(hi, span, "bound");
  }
  static uint64_t abs_of(int64_t v) { return v < 0 ? static_cast<uint64_t>(-(v + 1)) + 1 : static_cast<uint64_t>(v); }
  uint64_t magnitude() const { return std::max(abs_of(lo), abs_of(hi)); }
};

}  // namespace

Z3Layout::Z3Layout(z3::context& ctx, const Layout& layout, uint64_t extra_magnitude, unsigned headroom_bits,
                   const Parametric* params)
    : ctx_(ctx), layout_(layout), params_(params && !params->empty() ? params : nullptr) {
  if (!layout.has_domain()) throw EncodingError("the layout has no domain (a bare descriptor)");
  memory_axis_ = layout.axis_index(Axis::memory());
  const size_t n_axes = layout.axes().size();
  uint64_t need = extra_magnitude;  // largest magnitude any intermediate value may reach
  int top_bit = 0;    // highest bit a swizzle reads or writes
  try {
    for (const Mode& m : layout.modes()) need = std::max<uint64_t>(need, static_cast<uint64_t>(m.extent));
    for (const Replica& r : layout.replicas()) need = std::max<uint64_t>(need, static_cast<uint64_t>(r.extent));
    for (size_t a = 0; a < n_axes; ++a) {
      Interval iv{layout.offset()[a], layout.offset()[a]};
      for (const Mode& m : layout.modes()) iv.add_scaled(m.extent, m.stride[a]);
      for (const Replica& r : layout.replicas()) iv.add_scaled(r.extent, r.stride[a]);
      need = std::max(need, iv.magnitude());
      if (memory_axis_ && a == *memory_axis_) {
        for (const Stage& s : layout.stages()) {
          switch (s.kind) {
            case Stage::Kind::AddOffset:
              iv.lo = checked_add(iv.lo, s.offset, "bound");
              iv.hi = checked_add(iv.hi, s.offset, "bound");
              break;
            case Stage::Kind::ByteSwizzle:
            case Stage::Kind::Swizzle: {
              int scale = 0;
              if (s.kind == Stage::Kind::ByteSwizzle) {
                if (s.element_bits < 8)
                  throw EncodingError("byte swizzles on sub-byte elements have no exact bit-vector encoding here");
                scale = static_cast<int>(bit_length(static_cast<uint64_t>(s.element_bits / 8))) - 1;
                if (s.swizzle.dest_mask() & ((int64_t{1} << scale) - 1))
                  throw EncodingError("the byte swizzle changes bits inside an element");
                if (iv.magnitude() > (uint64_t{1} << 61) >> scale)
                  throw EncodingError("byte addresses of this layout may exceed 62 bits");
                need = std::max(need, iv.magnitude() << scale);
              }
              int hi_bit = static_cast<int>(bit_length(static_cast<uint64_t>(s.swizzle.source_mask() | s.swizzle.dest_mask())));
              top_bit = std::max(top_bit, hi_bit + scale);
              // XOR changes only bits below hi_bit: the value moves by less than 2^hi_bit.
              int64_t delta = int64_t{1} << hi_bit;
              iv.lo = checked_sub(iv.lo, delta, "bound");
              iv.hi = checked_add(iv.hi, delta, "bound");
              break;
            }
            case Stage::Kind::F2Linear: {
              // The low bits become an XOR of columns, the high bits pass: the value moves by
              // less than the map's period either way.
              top_bit = std::max(top_bit, static_cast<int>(bit_length(static_cast<uint64_t>(s.f2.touched_mask()))));
              const int64_t delta = s.f2.period();
              iv.lo = checked_sub(iv.lo, delta, "bound");
              iv.hi = checked_add(iv.hi, delta, "bound");
              break;
            }
            case Stage::Kind::Outer: {
              // CuTe's evaluation of A at m (Layout::cute_image): each mode but the last takes
              // m % extent (truncating, so of m's sign), the last takes what is left.
              const std::vector<Mode>& modes = s.outer->modes();
              Interval out{0, 0};
              int64_t below = 1;  // product of the extents before the mode
              for (size_t k = 0; k < modes.size(); ++k) {
                const int64_t stride = modes[k].stride[0];
                need = std::max<uint64_t>({need, static_cast<uint64_t>(modes[k].extent), Interval::abs_of(stride)});
                if (k + 1 == modes.size()) {
                  const int64_t lo = checked_mul(iv.lo / below, stride, "bound");
                  const int64_t hi = checked_mul(iv.hi / below, stride, "bound");
                  out.lo = checked_add(out.lo, std::min<int64_t>({lo, hi, 0}), "bound");
                  out.hi = checked_add(out.hi, std::max<int64_t>({lo, hi, 0}), "bound");
                } else {
                  if (iv.lo < 0) out.add_scaled(modes[k].extent, -stride);
                  out.add_scaled(modes[k].extent, stride);
                  below = checked_mul(below, modes[k].extent, "bound");
                }
              }
              iv = out;
              break;
            }
          }
          need = std::max(need, iv.magnitude());
        }
      }
    }
  } catch (const OverflowError&) {
    throw EncodingError("values of this layout may exceed 63 bits; it cannot be encoded exactly");
  }
  // Parameter values (and their products with coordinates, bounded by the instance's spans)
  // must fit too.
  if (params_) {
    for (const ParamSpec& p : params_->specs) need = std::max<uint64_t>(need, static_cast<uint64_t>(p.hi));
    // A term's product before its offset is added (M*N in M*N-1000) may exceed the term.
    for (const ParamUse& u : params_->uses) {
      ParamTerm product = u.term;
      product.offset = 0;
      try {
        need = std::max<uint64_t>(need, checked_abs(product.value_at_end(params_->specs, true)));
      } catch (const OverflowError&) {
        throw EncodingError("a parameter term of this layout may exceed 63 bits; it cannot be encoded exactly");
      }
    }
  }
  width_ = std::max<unsigned>({bit_length(need) + 2, static_cast<unsigned>(top_bit) + 2, 4}) + headroom_bits;
  if (width_ > 64) throw EncodingError("values of this layout may exceed 62 bits; it cannot be encoded exactly");
  if (params_)
    for (const ParamSpec& p : params_->specs) param_vars_.push_back(ctx_.bv_const(("param_" + p.name).c_str(), width_));
}

z3::expr Z3Layout::param_domain() const {
  z3::expr d = ctx_.bool_val(true);
  if (!params_) return d;
  for (size_t i = 0; i < params_->specs.size(); ++i) {
    const ParamSpec& p = params_->specs[i];
    d = d && z3::sge(param_vars_[i], constant(p.lo)) && z3::sle(param_vars_[i], constant(p.hi));
    if (p.multiple > 1) d = d && z3::urem(param_vars_[i], constant(p.multiple)) == constant(0);
  }
  return d;
}

z3::expr Z3Layout::term(ParamUse::Field field, size_t index, size_t axis, int64_t constant_value) const {
  if (params_)
    for (const ParamUse& u : params_->uses) {
      bool strided = field == ParamUse::Field::Stride || field == ParamUse::Field::ReplicaStride;
      if (u.field == field && u.mode == index && (!strided || u.axis == axis)) return param_term(u.term);
    }
  return constant(constant_value);
}

z3::expr Z3Layout::param_term(const ParamTerm& t) const {
  // With a divisor, scale * prod(P_i / m_i): the division is exact (P_i is a multiple of m_i) and
  // no intermediate exceeds the term, so the width that holds the instance holds every step.
  const bool divided = t.divisor != 1;
  z3::expr v = constant(divided ? t.scale(params_->specs) : t.coeff);
  for (size_t p : t.params) {
    const int64_t m = params_->specs[p].multiple;
    v = v * (divided && m > 1 ? z3::udiv(param_vars_[p], constant(m)) : param_vars_[p]);
  }
  return v + constant(t.offset);
}

z3::expr Z3Layout::extent(size_t mode) const {
  return term(ParamUse::Field::Extent, mode, 0, layout_.modes()[mode].extent);
}

z3::expr Z3Layout::stride(size_t mode, size_t axis) const {
  return term(ParamUse::Field::Stride, mode, axis, layout_.modes()[mode].stride[axis]);
}

z3::expr Z3Layout::constant(int64_t v) const { return ctx_.bv_val(v, width_); }

std::vector<z3::expr> Z3Layout::image_of(const std::vector<z3::expr>& coord, const std::vector<z3::expr>& replica) const {
  const size_t n_axes = layout_.axes().size();
  std::vector<z3::expr> image;
  for (size_t a = 0; a < n_axes; ++a) {
    z3::expr v = constant(layout_.offset()[a]);
    for (size_t k = 0; k < coord.size(); ++k)
      if (layout_.modes()[k].stride[a] != 0) v = v + coord[k] * stride(k, a);
    for (size_t t = 0; t < replica.size(); ++t)
      if (int64_t s = layout_.replicas()[t].stride[a]; s != 0)
        v = v + replica[t] * term(ParamUse::Field::ReplicaStride, t, a, s);
    image.push_back(v);
  }
  if (memory_axis_) {
    z3::expr& m = image[*memory_axis_];
    for (const Stage& s : layout_.stages()) {
      auto swizzle = [&](z3::expr x, const Swizzle& sw) {
        if (sw.is_identity()) return x;
        z3::expr y = x & constant(sw.source_mask());
        z3::expr moved = sw.shift() >= 0 ? z3::lshr(y, constant(sw.shift())) : z3::shl(y, constant(-sw.shift()));
        return x ^ moved;
      };
      switch (s.kind) {
        case Stage::Kind::AddOffset: m = m + constant(s.offset); break;
        case Stage::Kind::Swizzle: m = swizzle(m, s.swizzle); break;
        case Stage::Kind::F2Linear: {
          // As F2Map::apply: clear the low bits, then XOR in the column of each set one.
          const int n = s.f2.bits();
          z3::expr y = n == 0 ? m : (m & constant(~((int64_t{1} << n) - 1)));
          for (int k = 0; k < n; ++k)
            if (const int64_t col = s.f2.columns()[static_cast<size_t>(k)]; col != 0)
              y = y ^ z3::ite(m.extract(k, k) == ctx_.bv_val(1, 1), constant(col), constant(0));
          m = y;
          break;
        }
        case Stage::Kind::ByteSwizzle: {
          int scale = static_cast<int>(bit_length(static_cast<uint64_t>(s.element_bits / 8))) - 1;
          m = z3::ashr(swizzle(z3::shl(m, constant(scale)), s.swizzle), constant(scale));
          break;
        }
        case Stage::Kind::Outer: {
          // As Layout::cute_image: bvsrem and bvsdiv truncate as C++'s % and / do.
          const std::vector<Mode>& modes = s.outer->modes();
          z3::expr rest = m;
          z3::expr v = constant(0);
          for (size_t k = 0; k < modes.size(); ++k) {
            const bool last = k + 1 == modes.size();
            const z3::expr c = last ? rest : z3::srem(rest, constant(modes[k].extent));
            if (!last) rest = rest / constant(modes[k].extent);
            if (modes[k].stride[0] != 0) v = v + c * constant(modes[k].stride[0]);
          }
          m = v;
          break;
        }
      }
    }
  }
  return image;
}

std::vector<z3::expr> Z3Layout::image_at_index(const z3::expr& index) const {
  const auto& modes = layout_.modes();
  std::vector<z3::expr> coord(modes.size(), constant(0));
  z3::expr rest = index;
  auto take = [&](size_t k) {
    coord[k] = z3::urem(rest, extent(k));
    rest = z3::udiv(rest, extent(k));
  };
  if (layout_.order() == IndexOrder::Colex)
    for (size_t k = 0; k < modes.size(); ++k) take(k);
  else
    for (size_t k = modes.size(); k-- > 0;) take(k);
  return image_of(coord, {});
}

Z3Instance Z3Layout::instantiate(const std::string& prefix) const {
  std::vector<z3::expr> coord, replica;
  z3::expr domain = ctx_.bool_val(true);
  for (size_t k = 0; k < layout_.modes().size(); ++k) {
    coord.push_back(ctx_.bv_const(fmt::format("{}c{}", prefix, k).c_str(), width_));
    domain = domain && z3::ult(coord.back(), extent(k));
  }
  for (size_t t = 0; t < layout_.replicas().size(); ++t) {
    replica.push_back(ctx_.bv_const(fmt::format("{}r{}", prefix, t).c_str(), width_));
    domain = domain && z3::ult(replica.back(), term(ParamUse::Field::ReplicaExtent, t, 0, layout_.replicas()[t].extent));
  }
  auto image = image_of(coord, replica);
  return Z3Instance{std::move(coord), std::move(replica), domain && param_domain(), std::move(image)};
}

int64_t Z3Layout::value(const z3::model& model, const z3::expr& e) const {
  z3::expr v = model.eval(e, true);
  uint64_t u = v.get_numeral_uint64();
  if (width_ < 64 && (u >> (width_ - 1)) & 1) u |= ~uint64_t{0} << width_;  // sign-extend
  return static_cast<int64_t>(u);
}

Z3IntegerParams::Z3IntegerParams(z3::context& ctx, const Parametric& params)
    : ctx_(ctx), params_(params), admissible_(ctx.bool_val(true)) {
  for (size_t j = 0; j < params.specs.size(); ++j) {
    const ParamSpec& p = params.specs[j];
    quotients_.push_back(ctx.int_const(("k_" + p.name).c_str()));
    const z3::expr value = quotients_.back() * ctx.int_val(p.multiple);
    admissible_ = admissible_ && value >= ctx.int_val(p.lo) && value <= ctx.int_val(p.hi);
  }
}

z3::expr Z3IntegerParams::value(ParamUse::Field field, size_t mode, int64_t constant) const {
  for (const ParamUse& u : params_.uses)
    if (u.field == field && u.mode == mode && u.axis == 0) {
      z3::expr v = ctx_.int_val(u.term.scale(params_.specs));  // term = scale * prod(k_j) + offset
      for (size_t p : u.term.params) v = v * quotients_[p];
      return v + ctx_.int_val(u.term.offset);
    }
  return ctx_.int_val(constant);
}

bool Z3IntegerParams::never(const z3::expr& broken, unsigned timeout_ms, const SolverLimits& limits) const {
  z3::solver s(ctx_);
  z3::params sp(ctx_);
  sp.set("timeout", std::min(timeout_ms, z3_check_timeout_ms(limits)));
  s.set(sp);
  s.add(admissible_ && broken);
  std::string why;
  return checked_check(s, &why) == z3::unsat;
}

bool integer_argument_form(const Layout& l) {
  return l.is_scalar() && l.stages().empty() && l.replicas().empty() && l.has_domain();
}

}  // namespace lp
