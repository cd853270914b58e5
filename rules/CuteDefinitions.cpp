#include "rules/CuteDefinitions.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace lp::rules {

void collect_cute_definitions(const annotate::ParseResult& file, CuteDefinitions& into) {
  for (const annotate::Statement& s : file.statements)
    if (auto* d = std::get_if<annotate::CuteDef>(&s.body))
      into[d->name.text].push_back(
          CuteDefinition{d->layout.parsed.layout, d->layout.text, d->name.loc, !d->layout.parsed.param_uses.empty()});
}

bool mentions_cute(const std::string& text) { return text.find("cute \"") != std::string::npos; }

namespace {

// Sizes of the top-level modes (the logical dimensions).
std::vector<int64_t> dims_of(const Layout& l) {
  std::vector<int64_t> dims;
  const std::vector<Nest> tops = l.nest().leaf ? std::vector<Nest>{Nest::make_leaf()} : l.nest().children;
  size_t leaf = 0;
  for (const Nest& t : tops) {
    int64_t size = 1;
    for (size_t k = 0; k < t.leaf_count(); ++k) size *= l.modes()[leaf + k].extent;
    leaf += t.leaf_count();
    dims.push_back(size);
  }
  return dims;
}

// The top-level coordinate of a 1-D index, CuTe's colexicographic order.
std::vector<int64_t> coordinate(const std::vector<int64_t>& dims, int64_t i) {
  std::vector<int64_t> c;
  for (int64_t d : dims) {
    c.push_back(i % d);
    i /= d;
  }
  return c;
}

}  // namespace

Comparison compare_layouts(const Layout& ours, const Layout& theirs, const SolverLimits& limits) {
  Comparison r;
  for (const Layout* l : {&ours, &theirs})
    if (!l->is_scalar() || !l->has_domain()) {
      r.reason = "only layouts of one memory offset per coordinate, with a known domain, are compared";
      return r;
    }
  // The same function of the coordinate whatever the notation's index order.
  const Layout a = ours.with_order(IndexOrder::Colex), b = theirs.with_order(IndexOrder::Colex);
  const std::vector<int64_t> da = dims_of(a), db = dims_of(b);
  if (da != db) {
    r.verdict = Verdict::Refuted;
    r.difference = Difference{fmt::format("the shape is ({}), not ({})", fmt::join(da, ","), fmt::join(db, ",")),
                              {}, std::nullopt, 0, 0};
    return r;
  }
  if (a.size() > limits.max_enumeration) {
    r.reason = fmt::format("{} points are more than the {} an enumeration visits", a.size(), limits.max_enumeration);
    return r;
  }
  for (int64_t i = 0; i < a.size(); ++i) {
    const int64_t x = a.offset_at(i), y = b.offset_at(i);
    if (x != y) {
      std::vector<int64_t> c = coordinate(da, i);
      r.verdict = Verdict::Refuted;
      r.difference = Difference{fmt::format("at coordinate ({}) (index {}) the element offset is {}, not {}",
                                            fmt::join(c, ","), i, x, y),
                                c, i, x, y};
      return r;
    }
  }
  r.verdict = Verdict::Proven;
  return r;
}

}  // namespace lp::rules
