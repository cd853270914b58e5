// LP008 tma-box: a TMA box respects the hardware's limits: 1 to 5 dimensions of at most 256
// elements, an inner extent that is a multiple of 16 bytes and, when swizzled, no wider than the
// swizzle span; and every element the box writes lands on an element of the buffer's layout.
// docs/rules/LP008.md
#include <unordered_set>

#include "analyzer/ir/Checked.h"
#include "rules/Rule.h"
#include "rules/RuleSupport.h"
#include "solver/Obligation.h"
#include "solver/SmemAccess.h"

namespace lp::rules {

namespace {

// The first box element (innermost coordinate first) that a TMA into `layout` writes outside the
// layout's elements, with its byte offset; nullopt when every element lands on one. Both sides
// are byte offsets from a base aligned to the swizzle period (LP007 checks that alignment).
struct Stray {
  std::vector<int64_t> coord;
  int64_t byte = 0;
};

struct FootprintResult : Outcome {
  std::optional<Stray> stray;
};

std::optional<Stray> first_stray(const hw::TmaBox& box, const Layout& layout, int element_bits) {
  auto [elements, byte_swizzle] = split_byte_swizzle(layout, element_bits);
  const int64_t bytes = element_bits / 8;
  std::unordered_set<int64_t> starts;  // the byte where each element of the layout starts
  reserve_memory(static_cast<uint64_t>(layout.size()) * 2 * sizeof(int64_t), "the layout's element starts");
  for (int64_t i = 0; i < layout.size(); ++i) {
    checkpoint();
    int64_t b = checked_mul(elements.offset_at(i), bytes, "byte offset");
    if (byte_swizzle) b = byte_swizzle->swizzle.apply(b);
    starts.insert(b);
  }
  std::vector<int64_t> coord(box.box_dims.size(), 0);
  while (true) {
    checkpoint();
    const int64_t b = hw::tma_box_byte_offset(box, coord);
    if (!starts.count(b)) return Stray{coord, b};
    size_t d = 0;
    for (; d < coord.size() && ++coord[d] == box.box_dims[d]; ++d) coord[d] = 0;
    if (d == coord.size()) return std::nullopt;
  }
}

class TmaBoxRule : public Rule {
 public:
  const rules::RuleInfo& info() const override {
    static const rules::RuleInfo kInfo{
        "LP008", "tma-box", "A TMA box breaks the tensor-map limits or writes outside the buffer's layout",
        "cuTensorMapEncodeTiled rejects (or the copy mis-addresses) boxes with more than 5 dimensions, an extent "
        "above 256, an inner extent that is not a multiple of 16 bytes, or, with a swizzle, an inner extent wider "
        "than the swizzle span (32/64/128 bytes). The box is written innermost dimension first, as boxDim[]. Every "
        "element the box writes must land on an element of the buffer's layout.",
        "docs/rules/LP008.md", Severity::Error, {"correctness"}};
    return kInfo;
  }

  void check(const FileContext& ctx, FindingSink& sink) const override {
    for (const annotate::Statement& s : ctx.file.statements) {
      auto* t = std::get_if<annotate::TmaDecl>(&s.body);
      if (!t) continue;
      const annotate::BufferDecl* buf = ctx.graph.buffer(t->buffer.text);
      if (!buf || !buf->dtype) continue;
      hw::TmaBox box;
      box.swizzle = t->swizzle.mode;
      box.element_bytes = std::max(1, buf->dtype->bits / 8);
      for (const annotate::Number& n : t->box) box.box_dims.push_back(n.value);
      hw::TmaBoxCheck c = hw::check_tma_box(box);
      sink.obligation(s, t->box_loc, fmt::format("TMA box of '{}' is within the tensor-map limits", t->buffer.text), c.ok(), 0);
      for (const std::string& v : c.violations) {
        rules::Finding f = finding(t->box_loc, fmt::format("TMA box of '{}': {}", t->buffer.text, v));
        f.counterexample = TmaBoxCex{box.box_dims, box.element_bytes, std::string(hw::swizzle_name(box.swizzle)), std::nullopt, std::nullopt};
        sink.report(s, std::move(f));
      }
      if (c.ok()) check_footprint(ctx, s, *t, *buf, box, sink);
    }
  }

 private:
  // Every element of the box (the first one the copy writes, at the buffer's base) must land on
  // an element of the buffer's layout: a padded or differently packed layout leaves TMA writing
  // into padding and the reader finding the data elsewhere. Decided by enumerating the box and
  // the layout. Parametric layouts and layouts beyond the enumeration limit are left out.
  static void check_footprint(const FileContext& ctx, const annotate::Statement& s, const annotate::TmaDecl& t,
                              const annotate::BufferDecl& buf, const hw::TmaBox& box, FindingSink& sink) {
    if (buf.space != annotate::Space::Smem || !buf.layout || !buf.layout->parsed.param_uses.empty()) return;
    const Layout& layout = buf.layout->parsed.layout;
    if (!layout.is_scalar() || !layout.has_domain()) return;
    int64_t box_elements = 1;
    for (int64_t e : box.box_dims) box_elements *= e;  // at most 256^5: no overflow
    const std::string what = fmt::format("TMA box of '{}' lands on the layout's elements", t.buffer.text);
    // One obligation decided by the portfolio (its only engine is the enumeration), so the run's
    // time and memory budget and an overflow of the layout give unknown with the reason.
    const SolverLimits& limits = ctx.config.limits;
    lp::Obligation<FootprintResult> o;
    o.by_enum = [&] {
      FootprintResult r;
      r.engine = Engine::Enum;
      if (layout.size() > limits.max_enumeration) {
        r.reason = fmt::format("'{}' has {} elements, more than the {} an enumeration visits", t.buffer.text, layout.size(),
                               limits.max_enumeration);
        return r;
      }
      try {
        r.stray = first_stray(box, layout, buf.dtype->bits);
      } catch (const AccessError& e) {  // a byte swizzle that splits an element
        r.reason = e.what();
        return r;
      }
      r.verdict = r.stray ? Verdict::Refuted : Verdict::Proven;
      return r;
    };
    o.small = [] { return true; };
    const FootprintResult r = decide(o, Engine::Auto, limits);
    if (r.verdict == Verdict::Unknown) {
      sink.report(s, unknown_finding(t.box_loc, what, r.reason));
      return;
    }
    sink.obligation(s, t.box_loc, what, r.verdict == Verdict::Proven, r.time_ms, proof_of(r, box_elements));
    if (!r.stray) return;
    const Stray* stray = &*r.stray;
    rules::Finding f = finding(
        t.box_loc, fmt::format("TMA box of '{}' writes element ({}) to byte {}, where the layout has no element", t.buffer.text,
                               join(stray->coord), stray->byte));
    add_note(f, box.swizzle == hw::SmemSwizzle::None
                    ? fmt::format("without a swizzle the box's rows are {} bytes apart, its inner extent; the box has {} "
                                  "elements, '{}' {}", box.box_dims[0] * box.element_bytes, box_elements, t.buffer.text,
                                  layout.size())
                    : fmt::format("with the {} swizzle the box's rows are {} bytes apart, the swizzle span; the box has {} "
                                  "elements, '{}' {}", hw::swizzle_name(box.swizzle), hw::swizzle_span_bytes(box.swizzle),
                                  box_elements, t.buffer.text, layout.size()));
    add_note(f, "'" + t.buffer.text + "' is declared with this layout", buf.layout->loc);
    f.counterexample = TmaBoxCex{box.box_dims, box.element_bytes, std::string(hw::swizzle_name(box.swizzle)), stray->coord, stray->byte};
    sink.report(s, std::move(f));
  }
};

}  // namespace

LP_REGISTER_RULE(TmaBoxRule);

}  // namespace lp::rules
