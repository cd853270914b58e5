#include "rules/Finding.h"

namespace lp::rules {

std::string file_of(const SourceLoc& loc) { return loc.source ? loc.source->name : std::string(); }

}  // namespace lp::rules
