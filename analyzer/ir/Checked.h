#pragma once
// Checked 64-bit integer arithmetic. Every quantity a user controls (extents, strides, offsets,
// indices) goes through these: an overflow is an error the user sees, never a silent wrap.
#include <cstdint>
#include <stdexcept>
#include <string>
#include "analyzer/support/Error.h"

namespace lp {

/// Raised when a user-controlled quantity does not fit in a signed 64-bit integer.
class OverflowError : public Error {
 public:
  explicit OverflowError(const std::string& what) : Error(what) {}
};

inline int64_t checked_add(int64_t a, int64_t b, const char* what = "sum") {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    throw OverflowError(std::string("integer overflow in ") + what);
  return r;
}

inline int64_t checked_sub(int64_t a, int64_t b, const char* what = "difference") {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r))
    throw OverflowError(std::string("integer overflow in ") + what);
  return r;
}

inline int64_t checked_mul(int64_t a, int64_t b, const char* what = "product") {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    throw OverflowError(std::string("integer overflow in ") + what);
  return r;
}

inline int64_t checked_neg(int64_t a, const char* what = "negation") {
  return checked_sub(0, a, what);
}

inline int64_t checked_abs(int64_t a, const char* what = "absolute value") {
  return a < 0 ? checked_neg(a, what) : a;
}

}  // namespace lp
