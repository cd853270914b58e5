#pragma once
// CuTe's Swizzle<B,M,S>: XOR the B bits at [M+max(S,0), ...+B) into the B bits at
// [M-min(S,0), ...+B). With S >= B it is an involution. TIRx's SwizzleLayout(per_element=M,
// swizzle_len=B, atom_len=S) is the same map, written with the parameters in another order.
#include <cstdint>
#include <string>

namespace lp {

class Swizzle {
 public:
  /// Largest bit position a swizzle may touch: keeps every mask inside a positive int64.
  static constexpr int kMaxBit = 62;

  /// Validates CuTe's static_asserts (B >= 0, M >= 0, |S| >= B) and that the masks fit;
  /// returns an empty string when valid, else the reason.
  static std::string check(int64_t bits, int64_t base, int64_t shift);
  /// Precondition: check(bits, base, shift) is empty.
  Swizzle(int bits, int base, int shift);
  Swizzle() = default;

  int bits() const { return bits_; }
  int base() const { return base_; }
  int shift() const { return shift_; }
  bool is_identity() const { return bits_ == 0; }
  /// Mask of the source bits (CuTe's yyy_msk) and destination bits (zzz_msk).
  int64_t source_mask() const;
  int64_t dest_mask() const;
  /// The smallest power of two P with apply(x + P) == apply(x) + P for every x >= 0: the period of
  /// the pattern over absolute offsets (every bit the swizzle reads or writes lies below P).
  int64_t period() const;

  /// offset ^ shiftr(offset & yyy_msk, S), two's complement like CuTe's int arithmetic.
  int64_t apply(int64_t offset) const;

  bool operator==(const Swizzle&) const = default;

 private:
  int bits_ = 0, base_ = 0, shift_ = 0;
};

}  // namespace lp
