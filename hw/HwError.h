#pragma once
// The one error type of the hardware model: bad user input (unknown names, misaligned or
// out-of-range addresses, values that do not fit an encoding). The message says exactly what.
#include <stdexcept>
#include <string>
#include "analyzer/support/Error.h"

namespace lp::hw {

class HwError : public Error {
 public:
  explicit HwError(const std::string& what) : Error(what) {}
};

}  // namespace lp::hw
