#include "report/pages/HtmlReport.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "analyzer/parse/Parsers.h"
#include "hw/ElementType.h"
#include "report/pages/BankView.h"
#include "report/Common.h"

namespace lp::report {

using nlohmann::json;

std::string html_escape(std::string_view s) {
  std::string out;
  for_each_code_point(s, [&](char32_t cp, bool valid) {
    if (!valid || (cp < 0x20 && cp != '\t' && cp != '\n') || cp == 0x7F) cp = 0xFFFD;
    switch (cp) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: append_utf8(out, cp);
    }
  });
  return out;
}

namespace {

// Plain colours and a system font stack: the page must render offline, identically everywhere.
constexpr const char* kStyle = R"(
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:24px auto;max-width:1400px;padding:0 16px;color:#1d1d1f;background:#fff}
h1{font-size:26px;margin:0 0 4px}h2{font-size:20px;margin:0 0 6px}h3{font-size:15px;margin:18px 0 6px}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #d0d0d0;padding:4px 8px;text-align:left;vertical-align:top;font-size:14px}
th{background:#f3f4f6}code,.mono{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:13px}
section.finding{border:1px solid #d8d8d8;border-radius:8px;padding:14px 18px;margin:22px 0}
.sev{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600;color:#fff}
.sev-error{background:#c62828}.sev-warning{background:#b26a00}.sev-note{background:#546e7a}
.loc{color:#555;font-size:14px}.msg{font-size:16px;margin:8px 0}.ce td{word-break:break-all;max-width:900px}
ul.notes{margin:4px 0 8px 18px;padding:0}.caption{font-size:14px;color:#333;margin:4px 0 10px}.warn{color:#8a4b00}
svg{display:block;margin:6px 0 4px}svg text{font-family:ui-monospace,"DejaVu Sans Mono",monospace}
.c{fill:#fff;stroke:#c8c8c8;stroke-width:1}.idle{fill:#eeeeee}.touch{fill:#cfe3ff}.hot{fill:#e0413a}.pair{fill:#8b0000}
.cover{fill:#bfe8c4}.miss{fill:#e0413a}.dup{fill:#ffd9a8}.lbl{font-size:9px;fill:#333}.lbl-hot{font-size:9px;fill:#fff;font-weight:700}
.axis{font-size:10px;fill:#555}.axis-hot{font-size:10px;fill:#c62828;font-weight:700}
.legend span{display:inline-block;width:12px;height:12px;border:1px solid #999;vertical-align:-2px;margin:0 4px 0 12px}
)";

struct Cell {
  const char* cls = "c";
  std::string label;  // drawn inside the cell (short)
  std::string title;  // tooltip
  bool strong = false;
};

struct GridSpec {
  int64_t rows = 0, cols = 0;
  int px = 18;
  std::string row_attr = "data-r", col_attr = "data-c";
  std::function<Cell(int64_t, int64_t)> cell;
  std::function<std::string(int64_t)> row_label, col_label;
  std::function<bool(int64_t)> row_hot = [](int64_t) { return false; };
  std::function<bool(int64_t)> col_hot = [](int64_t) { return false; };
  std::string aria;
};

// Every cell is one <rect> carrying its row and column, so tests (and readers of the source) can
// find exactly which cells are highlighted.
std::string svg_grid(const GridSpec& g) {
  const int left = 64, top = 34, px = g.px;
  const int64_t w = left + g.cols * px + 8, h = top + g.rows * px + 8;
  const int64_t row_step = g.rows <= 32 ? 1 : 4, col_step = px >= 18 ? 1 : 4;
  std::string s = fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" role="img" aria-label="{}">)",
                              w, h, html_escape(g.aria));
  for (int64_t c = 0; c < g.cols; ++c)
    if (c % col_step == 0 || g.col_hot(c))
      s += fmt::format(R"(<text class="{}" x="{}" y="{}" text-anchor="middle">{}</text>)", g.col_hot(c) ? "axis-hot" : "axis",
                       left + c * px + px / 2, top - 6, html_escape(g.col_label(c)));
  for (int64_t r = 0; r < g.rows; ++r) {
    if (r % row_step == 0 || g.row_hot(r))
      s += fmt::format(R"(<text class="{}" x="{}" y="{}" text-anchor="end">{}</text>)", g.row_hot(r) ? "axis-hot" : "axis",
                       left - 6, top + r * px + px / 2 + 4, html_escape(g.row_label(r)));
    for (int64_t c = 0; c < g.cols; ++c) {
      Cell cell = g.cell(r, c);
      const int64_t x = left + c * px, y = top + r * px;
      s += fmt::format(R"(<rect class="c {}" x="{}" y="{}" width="{}" height="{}" {}="{}" {}="{}"><title>{}</title></rect>)",
                       cell.cls, x, y, px, px, g.row_attr, r, g.col_attr, c, html_escape(cell.title));
      if (!cell.label.empty())
        s += fmt::format(R"(<text class="{}" x="{}" y="{}" text-anchor="middle">{}</text>)", cell.strong ? "lbl-hot" : "lbl",
                         x + px / 2, y + px / 2 + 3, html_escape(cell.label));
    }
  }
  return s + "</svg>\n";
}

std::string legend(std::initializer_list<std::pair<std::string, std::string>> items) {
  std::string s = R"(<div class="legend caption">)";
  for (auto [color, what] : items) s += fmt::format(R"(<span style="background:{}"></span>{})", color, what);
  return s + "</div>\n";
}

// A layout's logical tile: its top-level dimensions (one or two are drawn), and the 1-D index
// of a tile coordinate in the layout's own index order.
struct Tile {
  Layout layout;
  std::vector<int64_t> dims;

  int64_t rows() const { return dims.size() == 2 ? dims[0] : 1; }
  int64_t cols() const { return dims.size() == 2 ? dims[1] : dims[0]; }
  int64_t index(int64_t r, int64_t c) const {
    if (dims.size() == 1) return c;
    return layout.order() == IndexOrder::Colex ? r + dims[0] * c : r * dims[1] + c;
  }
  std::pair<int64_t, int64_t> coord(int64_t i) const {
    if (dims.size() == 1) return {0, i};
    return layout.order() == IndexOrder::Colex ? std::pair{i % dims[0], i / dims[0]} : std::pair{i / dims[1], i % dims[1]};
  }
};

// The tile, or nullopt with the reason in `why` (not 1-D or 2-D, no finite domain, unparsable).
std::optional<Tile> tile_of(const std::string& text, std::string& why) {
  try {
    Layout l = parse_layout_text(text, "layout").layout;
    if (!l.has_domain()) {
      why = "the layout has no finite domain";
      return std::nullopt;
    }
    std::vector<int64_t> dims;
    const Nest& n = l.nest();
    size_t mode = 0;
    for (const Nest& child : n.leaf ? std::vector<Nest>{n} : n.children) {
      int64_t e = 1;
      for (size_t k = 0; k < child.leaf_count(); ++k) e *= l.modes()[mode++].extent;
      dims.push_back(e);
    }
    if (dims.size() > 2) {
      why = fmt::format("the layout has {} dimensions; only 1-D and 2-D tiles are drawn", dims.size());
      return std::nullopt;
    }
    return Tile{std::move(l), std::move(dims)};
  } catch (const std::exception& e) {
    why = std::string("the layout could not be read: ") + e.what();
    return std::nullopt;
  }
}

std::string cap_note(const Tile& t) {
  if (t.rows() <= kMaxGridSide && t.cols() <= kMaxGridSide) return {};
  return fmt::format(R"(<p class="caption warn">The tile is {}&times;{}; only the first {}&times;{} cells are drawn.</p>)",
                     t.rows(), t.cols(), std::min(t.rows(), kMaxGridSide), std::min(t.cols(), kMaxGridSide));
}

std::string point_text(const Point& p) {
  std::string s;
  for (size_t k = 0; k < p.size(); ++k) s += (k ? "," : "") + std::to_string(p[k]);
  return p.size() == 1 ? s : "(" + s + ")";
}

std::string join_ints(const std::vector<int64_t>& v, size_t limit = 64) {
  std::string s;
  for (size_t k = 0; k < v.size() && k < limit; ++k) s += (k ? ", " : "") + std::to_string(v[k]);
  if (v.size() > limit) s += fmt::format(", &hellip; ({} in all)", v.size());
  return s;
}

// ---- LP002: lane x bank grid of the worst phase, and the tile the lanes touch ----

std::string picture_of(const rules::BankConflictCex& ce) {
  const BankView v = bank_view(ce);
  const hw::PhaseCost& ph = v.phase();
  std::vector<int> pair;
  if (ce.lanes)
    for (int64_t x : *ce.lanes) pair.push_back(static_cast<int>(x));
  auto in = [](const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); };
  std::string s;
  s += fmt::format(R"(<h3>Lanes &times; banks, phase {} of {}</h3><p class="caption"><code>{}</code> on {}: {} wavefronts where {} are ideal. )"
                   R"(The worst phase serves lanes {}; bank <b>{}</b> must deliver <b>{}</b> distinct words ({}), so it costs {} wavefronts.</p>)",
                   v.worst, v.cost.phases.size(), html_escape(v.instr->name), html_escape(v.arch->name), v.cost.wavefronts,
                   v.cost.ideal, join_ints(std::vector<int64_t>(ph.lanes.begin(), ph.lanes.end())), ph.bank, ph.words.size(),
                   join_ints(ph.words), ph.wavefronts);
  GridSpec g;
  g.rows = hw::kWarpLanes;
  g.cols = v.arch->banks;
  g.px = 20;
  g.row_attr = "data-lane";
  g.col_attr = "data-bank";
  g.aria = "lane by bank grid";
  g.row_label = [&](int64_t r) { return (in(pair, static_cast<int>(r)) ? "\u25B6 " : "") + fmt::format("lane {}", r); };
  g.col_label = [](int64_t c) { return std::to_string(c); };
  g.row_hot = [&](int64_t r) { return in(pair, static_cast<int>(r)); };
  g.col_hot = [&](int64_t c) { return c == ph.bank; };
  g.cell = [&](int64_t r, int64_t c) {
    const int lane = static_cast<int>(r), bank = static_cast<int>(c);
    const int64_t a = v.addresses[static_cast<size_t>(lane)];
    auto banks = v.banks_of(lane);
    if (!v.is_active(lane)) return Cell{"idle", "", fmt::format("lane {}: does not execute the instruction", lane)};
    if (!v.in_worst_phase(lane)) return Cell{"idle", "", fmt::format("lane {}: not in this phase", lane)};
    if (!in(banks, bank)) return Cell{"c", "", fmt::format("lane {} does not touch bank {}", lane, bank)};
    // The word of this lane's access that falls in this bank.
    const std::vector<int64_t> words = hw::words_of(*v.arch, *v.instr, a);
    const int64_t word = *std::find_if(words.begin(), words.end(), [&](int64_t w) { return w % v.arch->banks == bank; });
    const bool hot = bank == ph.bank;
    return Cell{hot ? (in(pair, lane) ? "pair" : "hot") : "touch", std::to_string(word),
                fmt::format("lane {}, bank {}, word {} (byte {})", lane, bank, word, word * v.arch->bank_bytes), hot};
  };
  s += svg_grid(g);
  const bool load = v.instr->direction == hw::SmemDirection::Load;
  s += legend({{"#cfe3ff", fmt::format("word a lane of the phase {}", load ? "reads" : "writes")},
               {"#e0413a", "busiest bank: colliding lanes (cell text: word index)"},
               {"#8b0000", "the finding's two lanes"},
               {"#eeeeee", v.active == hw::kAllLanes ? "lane not in this phase" : "lane not in this phase, or inactive"}});
  s += "<table><tr><th>phase</th><th>lanes</th><th>wavefronts</th><th>busiest bank</th><th>its words</th></tr>";
  for (size_t k = 0; k < v.cost.phases.size(); ++k) {
    const auto& p = v.cost.phases[k];
    s += fmt::format("<tr{}><td>{}</td><td>{}&ndash;{}</td><td>{}</td><td>{}</td><td class=\"mono\">{}</td></tr>",
                     k == v.worst ? R"( style="background:#fdecea")" : "", k, p.lanes.front(), p.lanes.back(), p.wavefronts,
                     p.bank, join_ints(p.words, 16));
  }
  s += "</table>\n";

  // The tile: which elements the phase's lanes touch, the colliding ones in red.
  const std::string& text = ce.smem_layout;
  if (text.empty()) return s;
  s += fmt::format("<h3>The tile <code>{}</code></h3>", html_escape(text));
  std::string why;
  auto tile = tile_of(text, why);
  std::optional<int> bits = hw::element_bits(ce.dtype);
  if (tile && (!tile->layout.is_scalar() || !bits)) {
    why = bits ? "the layout is not a plain offset layout" : "the element type is unknown";
    tile.reset();
  }
  if (!tile) return s + fmt::format(R"(<p class="caption">Tile not drawn: {}.</p>)", html_escape(why));
  const int64_t eb = *bits / 8, base = ce.base;
  s += fmt::format(R"(<p class="caption">Each cell is one {} element; a cell is coloured when a lane of phase {} {} it, labelled with the lane. )"
                   R"(Addresses: base {} + {} &times; element offset.</p>)",
                   html_escape(ce.dtype), v.worst, load ? "reads" : "writes", base, eb);
  s += cap_note(*tile);
  GridSpec t;
  t.rows = std::min(tile->rows(), kMaxGridSide);
  t.cols = std::min(tile->cols(), kMaxGridSide);
  t.px = t.cols <= 32 ? 18 : 14;
  t.aria = "tile";
  t.row_label = [](int64_t r) { return std::to_string(r); };
  t.col_label = [](int64_t c) { return std::to_string(c); };
  t.cell = [&](int64_t r, int64_t c) {
    const int64_t off = tile->layout.offset_at(tile->index(r, c));
    const int64_t byte = base + eb * off;
    for (int lane : ph.lanes) {
      const int64_t a = v.addresses[static_cast<size_t>(lane)];
      if (!v.is_active(lane) || byte < a || byte >= a + v.instr->bytes) continue;
      const bool hot = in(v.colliding, lane);
      return Cell{hot ? (in(pair, lane) ? "pair" : "hot") : "touch", std::to_string(lane),
                  fmt::format("({},{}): offset {}, byte {}, read by lane {}", r, c, off, byte, lane), hot};
    }
    return Cell{"c", "", fmt::format("({},{}): offset {}, byte {}", r, c, off, byte)};
  };
  s += svg_grid(t);
  s += legend({{"#e0413a", fmt::format("{} by a colliding lane", load ? "read" : "written")},
               {"#8b0000", "the finding's two lanes"},
               {"#cfe3ff", fmt::format("{} by another lane of the phase", load ? "read" : "written")}});
  return s;
}

// ---- LP001: the tile with the two elements that share a place ----

std::string picture_of(const rules::InjectivityCex& ce) {
  const std::string& text = ce.layout;
  if (text.empty()) return {};
  const int64_t a = ce.indices[0], b = ce.indices[1];
  std::string why;
  auto tile = tile_of(text, why);
  std::string s = fmt::format("<h3>The tile <code>{}</code></h3>", html_escape(text));
  if (!tile) return s + fmt::format(R"(<p class="caption">Tile not drawn: {}.</p>)", html_escape(why));
  const Layout& l = tile->layout;
  if (a < 0 || b < 0 || a >= l.size() || b >= l.size()) return s + R"(<p class="caption">Tile not drawn: the indices lie outside the layout.</p>)";
  // How many elements land on each place, to shade every other collision too (small layouts only).
  std::map<Point, int64_t> hits;
  const bool counted = l.size() * l.replica_count() <= (int64_t{1} << 20);
  if (counted)
    for (int64_t i = 0; i < l.size(); ++i)
      for (const Point& p : l.images(i)) ++hits[p];
  const std::vector<Point> shared = l.images(a);
  const auto [ar, ac] = tile->coord(a);
  const auto [br, bc] = tile->coord(b);
  s += fmt::format(R"(<p class="caption">Elements {} at ({},{}) and {} at ({},{}) both land on <b>{}</b> = {}.{}</p>)", a, ar, ac, b,
                   br, bc, html_escape(fmt::format("({})", fmt::join(ce.axes, ","))), html_escape(point_text(ce.image)),
                   counted ? " Orange cells share their place with some other element too." : "");
  s += cap_note(*tile);
  GridSpec g;
  g.rows = std::min(tile->rows(), kMaxGridSide);
  g.cols = std::min(tile->cols(), kMaxGridSide);
  g.px = g.cols <= 32 ? 18 : 14;
  g.aria = "tile";
  g.row_label = [](int64_t r) { return std::to_string(r); };
  g.col_label = [](int64_t c) { return std::to_string(c); };
  // Init-captures: clang before 16 cannot capture structured bindings (the fuzz build uses clang-14).
  g.row_hot = [ar = ar, br = br](int64_t r) { return r == ar || r == br; };
  g.col_hot = [ac = ac, bc = bc](int64_t c) { return c == ac || c == bc; };
  g.cell = [&](int64_t r, int64_t c) {
    const int64_t i = tile->index(r, c);
    std::string title = fmt::format("({},{}): element {}", r, c, i);
    for (const Point& p : l.images(i)) title += " \u2192 " + point_text(p);
    if (i == a || i == b) return Cell{"hot", i == a ? "A" : "B", title, true};
    bool dup = false;
    if (counted)
      for (const Point& p : l.images(i)) dup = dup || hits[p] > 1;
    return Cell{dup ? "dup" : "c", "", title};
  };
  s += svg_grid(g);
  s += legend({{"#e0413a", fmt::format("A, B: the colliding elements (both at {})", point_text(shared.front())).c_str()},
               {"#ffd9a8", "another element whose place is shared"}});
  return s;
}

// ---- LP004: the target set with the uncovered coordinates ----

std::string picture_of(const rules::CoverageCex& ce) {
  const std::vector<rules::CoverageCex::Range>& axes = ce.target;
  if (axes.empty() || axes.size() > 2 || ce.uncovered.size() != axes.size()) return {};
  for (const auto& r : axes)
    if (r.hi < r.lo) return {};
  const std::vector<Point> missing{ce.uncovered};
  // Covered points, recomputed from the layout when it is small enough to enumerate.
  std::set<Point> covered;
  const std::string& text = ce.layout;
  std::string note;
  try {
    Layout l = parse_layout_text(text, "layout").layout;
    std::vector<size_t> at;
    for (const auto& r : axes) {
      size_t k = 0;
      while (k < l.axes().size() && l.axes()[k].spelling() != r.axis) ++k;
      if (k == l.axes().size()) throw LayoutError("the layout has no axis " + r.axis);
      at.push_back(k);
    }
    if (l.size() * l.replica_count() > (int64_t{1} << 20)) throw LayoutError("too large to enumerate");
    for (int64_t i = 0; i < l.size(); ++i)
      for (const Point& p : l.images(i)) {
        Point q;
        for (size_t k : at) q.push_back(p[k]);
        covered.insert(q);
      }
  } catch (const std::exception& e) {
    note = std::string(" Covered points not drawn: ") + e.what() + ".";
  }
  const bool one = axes.size() == 1;
  const int64_t n0 = axes[0].hi - axes[0].lo + 1, n1 = one ? 1 : axes[1].hi - axes[1].lo + 1;
  // A 1-axis target wraps at 32 per row (a warp's lanes, a TMEM lane quadrant).
  const int64_t rows = one ? (n0 + 31) / 32 : n0, cols = one ? std::min<int64_t>(n0, 32) : n1;
  auto point_at = [&](int64_t r, int64_t c) -> std::optional<Point> {
    if (one) {
      int64_t i = r * 32 + c;
      return i < n0 ? std::optional<Point>(Point{axes[0].lo + i}) : std::nullopt;
    }
    return Point{axes[0].lo + r, axes[1].lo + c};
  };
  std::string s = fmt::format("<h3>Target set {}</h3>", one ? fmt::format("{} {}&ndash;{}", html_escape(axes[0].axis), axes[0].lo, axes[0].hi)
                                                           : fmt::format("{} &times; {}", html_escape(axes[0].axis), html_escape(axes[1].axis)));
  int64_t in_target = 0;
  for (const Point& p : covered) {
    bool inside = true;
    for (size_t k = 0; k < axes.size(); ++k) inside = inside && p[k] >= axes[k].lo && p[k] <= axes[k].hi;
    in_target += inside;
  }
  const int64_t unreached = note.empty() ? n0 * n1 - in_target : static_cast<int64_t>(missing.size());
  s += fmt::format(R"(<p class="caption">{} of {} points are not reached by <code>{}</code> (the finding names {}).{}</p>)", unreached,
                   n0 * n1, html_escape(text), html_escape(point_text(ce.uncovered)), html_escape(note));
  if (rows > kMaxGridSide || cols > kMaxGridSide)
    s += fmt::format(R"(<p class="caption warn">The target is {}&times;{}; only the first {}&times;{} cells are drawn.</p>)", rows, cols,
                     std::min(rows, kMaxGridSide), std::min(cols, kMaxGridSide));
  GridSpec g;
  g.rows = std::min(rows, kMaxGridSide);
  g.cols = std::min(cols, kMaxGridSide);
  g.px = g.cols <= 32 ? 20 : 14;
  g.aria = "target set";
  g.row_label = [&](int64_t r) { return one ? fmt::format("{}+", axes[0].lo + r * 32) : std::to_string(axes[0].lo + r); };
  g.col_label = [&](int64_t c) { return one ? std::to_string(c) : std::to_string(axes[1].lo + c); };
  g.cell = [&](int64_t r, int64_t c) {
    auto p = point_at(r, c);
    if (!p) return Cell{"idle", "", "outside the target"};
    const std::string name = point_text(*p);
    // The finding lists the uncovered points it found; the enumeration, when it ran, shows all.
    const bool listed = std::find(missing.begin(), missing.end(), *p) != missing.end();
    if (listed || (note.empty() && !covered.count(*p))) return Cell{"miss", "\u00D7", name + ": not covered", true};
    if (covered.count(*p)) return Cell{"cover", "", name + ": covered"};
    return Cell{"c", "", name};
  };
  s += svg_grid(g);
  s += legend({{"#bfe8c4", "covered"}, {"#e0413a", "uncovered (\u00D7)"}});
  return s;
}

// ---- LP003: the witness point ----

std::string picture_of(const rules::AlgebraCex& ce) {
  const std::string idx = ce.index ? std::to_string(*ce.index) : "", &coord = ce.coordinate;
  const std::string &exp = ce.expected, &act = ce.actual, &res = ce.result;
  std::string s = "<h3>Witness point</h3>";
  s += R"(<svg xmlns="http://www.w3.org/2000/svg" width="760" height="150" role="img" aria-label="witness">)"
       R"(<defs><marker id="ar" markerWidth="8" markerHeight="8" refX="7" refY="4" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#555"/></marker></defs>)";
  auto box = [&](int x, int y, int w, const char* fill, const std::string& top, const std::string& big) {
    s += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="52" rx="6" fill="{}" stroke="#888"/>)"
                     R"(<text class="axis" x="{}" y="{}" text-anchor="middle">{}</text>)"
                     R"(<text x="{}" y="{}" text-anchor="middle" font-size="18" font-weight="700">{}</text>)",
                     x, y, w, fill, x + w / 2, y + 16, html_escape(top), x + w / 2, y + 40, html_escape(big));
  };
  box(10, 45, 150, "#f3f4f6", "B index", idx);
  box(230, 45, 170, "#f3f4f6", "coordinate c", coord);
  box(480, 8, 260, "#bfe8c4", "expected A(B(c))", exp);
  box(480, 88, 260, "#f7c6c3", "actual R(c), R = " + res, act);
  s += R"~(<line x1="160" y1="71" x2="226" y2="71" stroke="#555" marker-end="url(#ar)"/>)~"
       R"~(<line x1="400" y1="65" x2="476" y2="36" stroke="#555" marker-end="url(#ar)"/>)~"
       R"~(<line x1="400" y1="77" x2="476" y2="112" stroke="#555" marker-end="url(#ar)"/></svg>)~";
  return s + fmt::format(R"(<p class="caption">At this point the computed layout disagrees with the composition: {} &ne; {}.</p>)",
                         html_escape(exp), html_escape(act));
}

// Counterexamples without a picture: their fields are listed in the section's table.
template <class Cex>
std::string picture_of(const Cex&) {
  return {};
}

std::string picture(const rules::Finding& f) {
  try {
    return std::visit([](const auto& ce) -> std::string {
      if constexpr (std::is_same_v<std::decay_t<decltype(ce)>, std::monostate>) return {};
      else return picture_of(ce);
    }, f.counterexample);
  } catch (const std::exception& e) {
    // A counterexample the model rejects still gets its section; say why it has no picture.
    return fmt::format(R"(<p class="caption warn">No picture: {}</p>)", html_escape(e.what()));
  }
}

std::string location(const SourceLoc& loc) { return location_text(loc); }

std::string sev_class(const std::string& sev) {
  return sev == "error" || sev == "warning" || sev == "note" ? "sev-" + sev : "sev-note";
}

}  // namespace

std::string render_html_report(const FindingsDoc& doc) {
  std::string s = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                  "<meta name=\"viewport\" content=\"width=device-width\"><title>LayoutProof report</title><style>";
  s += kStyle;
  s += "</style></head><body>\n<h1>LayoutProof report</h1>\n";
  size_t errors = 0, warnings = 0;
  for (const auto& r : doc.findings) {
    errors += r.finding.severity == Severity::Error;
    warnings += r.finding.severity == Severity::Warning;
  }
  s += fmt::format(R"(<p class="caption">{} findings: {} errors, {} warnings, {} others.</p>)", doc.findings.size(), errors,
                   warnings, doc.findings.size() - errors - warnings);
  s += "<table id=\"summary\"><tr><th>#</th><th>rule</th><th>severity</th><th>location</th><th>message</th></tr>\n";
  for (size_t i = 0; i < doc.findings.size(); ++i) {
    const rules::Finding& f = doc.findings[i].finding;
    s += fmt::format(R"(<tr><td><a href="#f{}">{}</a></td><td>{}</td><td><span class="sev {}">{}</span></td><td class="mono">{}</td><td>{}</td></tr>)"
                     "\n",
                     i + 1, i + 1, html_escape(f.rule_id), sev_class(severity_name(f.severity)), html_escape(severity_name(f.severity)),
                     html_escape(location(f.loc)), html_escape(f.message));
  }
  s += "</table>\n";
  for (size_t i = 0; i < doc.findings.size(); ++i) {
    const rules::Finding& f = doc.findings[i].finding;
    s += fmt::format(R"(<section class="finding" id="f{}" data-rule="{}"><h2>{}. {} <span class="sev {}">{}</span></h2>)", i + 1,
                     html_escape(f.rule_id), i + 1, html_escape(f.rule_id), sev_class(severity_name(f.severity)), html_escape(severity_name(f.severity)));
    s += fmt::format(R"(<div class="loc mono">{}</div><p class="msg">{}</p>)", html_escape(location(f.loc)),
                     html_escape(f.message));
    if (!f.notes.empty()) {
      s += "<ul class=\"notes\">";
      for (const auto& n : f.notes) {
        std::string loc = location(n.loc);
        s += fmt::format("<li>{}{}</li>", loc.empty() ? "" : "<span class=\"mono loc\">" + html_escape(loc) + ":</span> ",
                         html_escape(n.message));
      }
      s += "</ul>";
    }
    if (const auto& replay = doc.findings[i].replay)
      s += fmt::format(R"(<p class="replay {}"><b>GPU replay:</b> {}</p>)",
                       replay->agrees == std::optional<bool>(false) ? "warn" : "", html_escape(replay_text(*replay)));
    s += picture(f);
    if (const json fields = rules::to_json(f.counterexample); fields.is_object()) {
      s += "<details><summary>Counterexample fields</summary><table class=\"ce\">";
      for (auto it = fields.begin(); it != fields.end(); ++it)
        s += fmt::format("<tr><th>{}</th><td class=\"mono\">{}</td></tr>", html_escape(it.key()),
                         html_escape(it->is_string() ? it->get<std::string>() : it->dump()));
      s += "</table></details>";
    }
    s += "</section>\n";
  }
  return s + "</body></html>\n";
}

}  // namespace lp::report
