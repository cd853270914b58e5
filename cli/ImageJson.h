#pragma once
// JSON and text renderings of layout images, in the shape the CLI contract fixes: an integer
// for a scalar CuTe layout, a nested array for scaled-basis codomains (as CuTe prints a
// coordinate), and for TIRx a list with one {axis: value} object per replica.
#include <nlohmann/json.hpp>
#include <string>

#include "analyzer/ir/Layout.h"
#include "analyzer/ir/Print.h"

namespace lp::cli {

nlohmann::ordered_json image_json(const Layout& layout, Notation notation, int64_t index);
std::string image_text(const Layout& layout, Notation notation, int64_t index);

}  // namespace lp::cli
