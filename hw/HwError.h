#pragma once
// The one error type of the hardware model: bad user input (unknown names, misaligned or
// out-of-range addresses, values that do not fit an encoding). The message says exactly what.
#include <stdexcept>
#include <string>

namespace lp::hw {

class HwError : public std::runtime_error {
 public:
  explicit HwError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace lp::hw
