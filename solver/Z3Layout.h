#pragma once
// A layout as Z3 bit-vector terms over symbolic coordinates. The width is derived from bounds:
// every intermediate value of every point of the domain provably fits in the signed width, so
// bit-vector arithmetic equals integer arithmetic; when no width can be proven the encoder
// refuses (EncodingError) instead of wrapping.
#include <stdexcept>
#include <string>
#include <vector>
#include <z3++.h>

#include "analyzer/ir/Layout.h"
#include "analyzer/ir/Parametric.h"
#include "solver/Engines.h"

namespace lp {

class EncodingError : public std::runtime_error {
 public:
  explicit EncodingError(const std::string& what) : std::runtime_error(what) {}
};

/// One symbolic copy of a layout: its free variables, their domain, and its image per axis.
struct Z3Instance {
  std::vector<z3::expr> coord;    ///< one per mode, in [0, extent)
  std::vector<z3::expr> replica;  ///< one per replica iter, in [0, extent)
  z3::expr domain;                ///< the conjunction of the range constraints
  std::vector<z3::expr> image;    ///< one per axis of the layout, after the post stages
};

class Z3Layout {
 public:
  /// Throws EncodingError when a value of the layout may exceed 62 bits, or when a stage has no
  /// exact bit-vector form.
  /// `extra_magnitude`: a further value the width must hold (e.g. a target coordinate);
  /// `headroom_bits`: bits added on top, for callers that scale and add to the images.
  /// With `params`, `layout` is the instance at the parameters' largest values (which bounds
  /// the width) and the parameters become shared variables of every instantiation.
  Z3Layout(z3::context& ctx, const Layout& layout, uint64_t extra_magnitude = 0, unsigned headroom_bits = 0,
           const Parametric* params = nullptr);

  unsigned width() const { return width_; }
  /// A fresh copy whose variables are named `prefix`c0, `prefix`c1, ..., `prefix`r0, ...
  Z3Instance instantiate(const std::string& prefix) const;
  /// The image terms of given coordinate/replica terms (each already of width()).
  std::vector<z3::expr> image_of(const std::vector<z3::expr>& coord, const std::vector<z3::expr>& replica) const;
  /// The image of a symbolic 1-D index (split across the modes with unsigned division by the
  /// extents). Precondition, to be asserted by the caller: 0 <= index < size.
  std::vector<z3::expr> image_at_index(const z3::expr& index) const;
  /// The parameters' variables (one per spec) and their constraints (range and multiple).
  const std::vector<z3::expr>& param_vars() const { return param_vars_; }
  z3::expr param_domain() const;
  /// A constant of the encoding's width.
  z3::expr constant(int64_t v) const;
  /// The signed value of a model's bit-vector numeral of this width.
  int64_t value(const z3::model& model, const z3::expr& e) const;

 private:
  z3::context& ctx_;
  const Layout& layout_;
  unsigned width_ = 0;
  std::optional<size_t> memory_axis_;
  const Parametric* params_ = nullptr;
  std::vector<z3::expr> param_vars_;
  /// Extent and stride terms: constants, or coeff * parameter where the layout uses one.
  z3::expr term(ParamUse::Field field, size_t index, size_t axis, int64_t constant_value) const;
  /// A parameter term over the parameter variables (exact: ParamTerm's invariants).
  z3::expr param_term(const ParamTerm& t) const;
  z3::expr extent(size_t mode) const;
  z3::expr stride(size_t mode, size_t axis) const;
};

/// The form the integer arguments over parameters take: one memory axis, a domain, no stages and no
/// replicas.
bool integer_argument_form(const Layout& l);

/// A scalar parametric layout's extents and strides over Z3's mathematical integers, for arguments
/// that need no bit-blasting (nesting and contiguity proofs): one variable per parameter for its
/// quotient P / multiple, their admissible values, and each mode's extent and stride as its term.
class Z3IntegerParams {
 public:
  Z3IntegerParams(z3::context& ctx, const Parametric& params);
  /// Every parameter within its range (and a multiple of its multiple).
  const z3::expr& admissible() const { return admissible_; }
  /// Mode `mode`'s extent or memory stride: its parameter term where the layout has one, else `constant`.
  z3::expr value(ParamUse::Field field, size_t mode, int64_t constant) const;
  /// Whether no admissible value satisfies `broken` (the negation of an argument's premises): Z3
  /// over the integers answered unsat within `timeout_ms` (capped by the run's limits). False says
  /// nothing: some value breaks a premise, or Z3 gave up.
  bool never(const z3::expr& broken, unsigned timeout_ms, const SolverLimits& limits) const;

 private:
  z3::context& ctx_;
  const Parametric& params_;
  std::vector<z3::expr> quotients_;
  z3::expr admissible_;
};

}  // namespace lp
