#pragma once
// CuTe refuses some operands at compile time (static_assert) or by contract. The algebra reports
// those as CuteRejects, so a caller can tell "CuTe would not compile this" from "we cannot".
#include "analyzer/algebra/CuteLayout.h"

namespace lp::algebra {

class CuteRejects : public AlgebraError {
 public:
  explicit CuteRejects(const std::string& what) : AlgebraError("CuTe rejects this operation: " + what) {}
};

}  // namespace lp::algebra
