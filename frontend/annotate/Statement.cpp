#include "frontend/annotate/Statement.h"

#include <algorithm>
#include <utility>

namespace lp::annotate {

const char* space_name(Space s) { return vocabulary_name(kSpaceNames, s, "smem"); }

const char* product_name(ProductKind k) { return vocabulary_name(kProductNames, k, "logical_product"); }

const char* divide_name(DivideKind k) { return vocabulary_name(kDivideNames, k, "logical_divide"); }

}  // namespace lp::annotate
