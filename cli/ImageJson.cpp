#include "cli/ImageJson.h"

#include <fmt/format.h>

#include <algorithm>

namespace lp::cli {

namespace {

using json = nlohmann::ordered_json;

// Places `value` at basis `path` inside a nested array, growing it with zeros.
void place(json& node, const std::vector<uint32_t>& path, size_t depth, int64_t value) {
  if (!node.is_array()) node = json::array();
  uint32_t k = path[depth];
  while (node.size() <= k) node.push_back(0);
  if (depth + 1 == path.size()) node[k] = value;
  else place(node[k], path, depth + 1, value);
}

// A nested array holds a zero for every lower index at every level: past this index the object form
// ({"@1@0": v}, linear in the axes) is written instead, so the output never outgrows the layout's text.
constexpr uint32_t kMaxNestedIndex = 64;

json point_json(const Layout& l, const Point& p, Notation notation) {
  if (notation != Notation::Tirx && l.is_scalar()) return p[0];
  bool nestable = !l.axes().empty();
  for (const Axis& a : l.axes())
    nestable &= a.is_basis() && std::all_of(a.path().begin(), a.path().end(), [](uint32_t k) { return k < kMaxNestedIndex; });
  if (notation != Notation::Tirx && nestable) {
    json arr = json::array();
    for (size_t a = 0; a < p.size(); ++a) place(arr, l.axes()[a].path(), 0, p[a]);
    return arr;
  }
  json obj = json::object();
  for (size_t a = 0; a < p.size(); ++a) obj[l.axes()[a].spelling()] = p[a];
  return obj;
}

}  // namespace

nlohmann::ordered_json image_json(const Layout& layout, Notation notation, int64_t index) {
  auto imgs = layout.images(index);
  if (notation == Notation::Tirx || !layout.replicas().empty()) {
    json list = json::array();
    for (const Point& p : imgs) list.push_back(point_json(layout, p, Notation::Tirx));
    return list;
  }
  return point_json(layout, imgs.front(), notation);
}

std::string image_text(const Layout& layout, Notation notation, int64_t index) {
  json j = image_json(layout, notation, index);
  if (j.is_array() && notation == Notation::Tirx) {
    std::string s;
    for (size_t r = 0; r < j.size(); ++r) {
      if (r) s += " | ";
      bool first = true;
      for (auto& [k, v] : j[r].items()) {
        s += fmt::format("{}{}={}", first ? "" : " ", k, v.get<int64_t>());
        first = false;
      }
    }
    return s;
  }
  std::string s = j.dump();
  for (char& ch : s)
    if (ch == '[') ch = '(';
    else if (ch == ']') ch = ')';
  return s;
}

}  // namespace lp::cli
