// TIRx TileLayout text (seeds 000/001): S[...] shard, R[...] replicas, offsets as `n@axis` terms
// or O[...], TileLayout(...) and ComposeLayout(...) wrappers, with or without the `T.` prefix.
#include <fmt/format.h>

#include "analyzer/parse/AxisTable.h"
#include "analyzer/parse/Parsers.h"
#include "analyzer/parse/TreeBuilder.h"

namespace lp {

namespace {

// Accepts `name` or `T.name`.
bool consume_tirx_word(Cursor& c, std::string_view name) {
  size_t save = c.pos();
  c.skip_ws();
  if (c.consume("T")) {
    if (c.peek() == '.') {
      c.set_pos(c.pos() + 1);
      if (c.consume(name)) return true;
    }
    c.set_pos(save);
    return false;
  }
  return c.consume(name);
}

bool looking_at_bracket(Cursor& c, std::string_view letter) {
  size_t save = c.pos();
  bool ok = consume_tirx_word(c, letter) && c.peek() == '[';
  c.set_pos(save);
  return ok;
}

// `n` or `n@axis` or `n @ Axis.name`. In a sum of offset terms '+' separates terms, so there
// the number is a product (`between_plus`); inside brackets it may be any constant expression.
// With an expression over symbols already read (`symbolic`), only the optional `@axis` follows.
Term parse_term(Cursor& c, std::string_view what, bool between_plus = false,
                std::optional<IntExpr> symbolic = std::nullopt) {
  Term t;
  if (symbolic) t.value = symbolic->value;
  else t.value = between_plus ? c.parse_const_term(what) : c.parse_const_expr(what);
  if (c.peek() == '@') {
    c.set_pos(c.pos() + 1);
    c.skip_ws();
    size_t at = c.pos();
    std::string name = c.parse_identifier();
    if (name == "Axis" || name == "T") {
      if (c.peek() != '.') c.fail_expected("'.' after 'Axis'");
      c.set_pos(c.pos() + 1);
      if (name == "T") {
        c.expect("Axis", "in T.Axis.name");
        c.expect(".", "in T.Axis.name");
      }
      at = c.pos();
      name = c.parse_identifier();
    }
    if (name.empty()) {
      c.set_pos(at);
      c.fail_expected("an axis name after '@' (m, laneid, warpid, TLane, ...)");
    }
    t.axis = Axis::named(name);
  } else if (t.value != 0) {
    t.axis = Axis::memory();  // "if a stride is not paired with an axis, m is used"
  }
  return t;
}

// `8:4@laneid` or `(8,2):(4@laneid,1)`: extents and strides of a list of iters.
void parse_iters(Cursor& c, TreeNode& shape, TreeNode& stride, AxisTable& axes, const char* which) {
  Cursor::Depth guard(c);
  c.skip_ws();
  shape.at = c.pos();
  bool tuple = c.consume("(");
  auto read_extent = [&] {
    c.skip_ws();
    TreeNode n;
    n.at = c.pos();
    if (std::optional<IntExpr> e = c.parse_int_expr()) {
      n.extent = e->value;
      n.param = e->param;
    } else {
      n.extent = c.parse_const_expr(fmt::format("an extent of {}", which));
    }
    if (n.extent < 1) c.fail_at(n.at, fmt::format("extent {} must be >= 1", n.extent));
    return n;
  };
  if (tuple) {
    shape.leaf = false;
    do shape.children.push_back(read_extent());
    while (c.consume(","));
    c.expect(")", fmt::format("or ',' in the extents of {}", which));
  } else {
    shape = read_extent();
  }
  c.expect(":", fmt::format("between the extents and strides of {}", which));
  c.skip_ws();
  stride.at = c.pos();
  auto read_stride = [&] {
    c.skip_ws();
    TreeNode n;
    n.at = c.pos();
    std::optional<IntExpr> e = c.parse_int_expr();
    if (e) n.param = e->param;
    n.term = parse_term(c, fmt::format("a stride of {} (e.g. 4@laneid or 1)", which), false, e);
    axes.note(n.term);
    return n;
  };
  if (c.consume("(")) {
    stride.leaf = false;
    do stride.children.push_back(read_stride());
    while (c.consume(","));
    c.expect(")", fmt::format("or ',' in the strides of {}", which));
  } else {
    stride = read_stride();
  }
}

struct TileText {
  size_t start = 0;
  bool have_shard = false;
  TreeNode shard_shape, shard_stride;
  std::vector<std::pair<TreeNode, TreeNode>> replicas;
  std::vector<Term> offsets;
  AxisTable axes;
};

void parse_sum(Cursor& c, TileText& t) {
  do {
    c.skip_ws();
    size_t at = c.pos();
    if (looking_at_bracket(c, "S")) {
      if (t.have_shard) c.fail_at(at, "a TIRx layout has one shard S[...]; this is a second one");
      consume_tirx_word(c, "S");
      c.expect("[", "after 'S'");
      parse_iters(c, t.shard_shape, t.shard_stride, t.axes, "the shard");
      c.expect("]", "to close 'S[...]'");
      t.have_shard = true;
    } else if (looking_at_bracket(c, "R")) {
      consume_tirx_word(c, "R");
      c.expect("[", "after 'R'");
      TreeNode e, s;
      parse_iters(c, e, s, t.axes, "the replica");
      c.expect("]", "to close 'R[...]'");
      t.replicas.emplace_back(std::move(e), std::move(s));
    } else if (looking_at_bracket(c, "O")) {
      consume_tirx_word(c, "O");
      c.expect("[", "after 'O'");
      bool tuple = c.consume("(");
      do {
        Term term = parse_term(c, "an offset term (e.g. 1@gpuid_x)", true);
        t.axes.note(term);
        t.offsets.push_back(term);
      } while (c.consume(",") || c.consume("+"));
      if (tuple) c.expect(")", "or ',' in the offset");
      c.expect("]", "to close 'O[...]'");
    } else {
      char ch = c.peek();
      if (!((ch >= '0' && ch <= '9') || ch == '-' || ch == '('))
        c.fail_expected("S[...], R[...], O[...] or an offset term like 5@warpid");
      Term term = parse_term(c, "an offset term (e.g. 5@warpid or 64)", true);
      t.axes.note(term);
      t.offsets.push_back(term);
    }
  } while (c.consume("+"));
  if (!t.have_shard) c.fail_at(t.start, "a TIRx layout needs a shard S[...]");
}

Layout build_tile(Cursor& c, TileText& t) {
  if (t.axes.empty()) t.axes.index(Axis::memory());
  Layout shard = build_layout(c, t.start, t.shard_shape, t.shard_stride, t.axes, IndexOrder::RowMajor);
  LayoutParts p = shard.parts();
  for (auto& [e, s] : t.replicas) {
    auto add = [&](const TreeNode& en, const TreeNode& sn) {
      p.replicas.push_back(Replica{en.extent, t.axes.dense(sn.term)});
      const size_t r = p.replicas.size() - 1;
      if (auto* uses = c.param_uses()) {
        if (en.param)
          uses->push_back(
              ParamUse{r, ParamUse::Field::ReplicaExtent, 0, *en.param});
        if (sn.param && sn.term.axis)
          uses->push_back(ParamUse{r, ParamUse::Field::ReplicaStride, *shard.axis_index(*sn.term.axis), *sn.param});
      }
      if (en.param) check_param_extent(c, en.at, *en.param);
      if (sn.param) check_param_stride(c, sn.at, *sn.param);
    };
    if (e.leaf != s.leaf || (!e.leaf && e.children.size() != s.children.size()))
      c.fail_at(s.at, "the replica has a different number of extents and strides");
    if (e.leaf) add(e, s);
    else
      for (size_t i = 0; i < e.children.size(); ++i) add(e.children[i], s.children[i]);
  }
  p.offset.assign(p.axes.size(), 0);
  for (const Term& term : t.offsets) {
    Point d = t.axes.dense(term);
    for (size_t a = 0; a < d.size(); ++a) {
      if (__builtin_add_overflow(p.offset[a], d[a], &p.offset[a]))
        c.fail_at(t.start, "the offset terms add up past 64 bits");
    }
  }
  try {
    return Layout::make(std::move(p));
  } catch (const LayoutError& e) {
    c.fail_at(t.start, e.what());
  }
}

Layout parse_tile(Cursor& c) {
  Cursor::Depth guard(c);
  c.skip_ws();
  size_t start = c.pos();
  if (consume_tirx_word(c, "ComposeLayout")) {
    c.expect("(", "after 'ComposeLayout'");
    c.skip_ws();
    size_t params = c.pos();
    int64_t m, b, s;
    if (consume_tirx_word(c, "SwizzleLayout")) {
      // SwizzleLayout(per_element, swizzle_len, atom_len), keywords allowed in any order.
      c.expect("(", "after 'SwizzleLayout'");
      int64_t vals[3] = {0, 0, 0};
      bool seen[3] = {false, false, false};
      static const char* kNames[3] = {"per_element", "swizzle_len", "atom_len"};
      for (int i = 0; i < 3; ++i) {
        if (i) c.expect(",", "between SwizzleLayout's arguments");
        c.skip_ws();
        int slot = i;
        for (int k = 0; k < 3; ++k)
          if (c.looking_at(kNames[k])) {
            size_t at = c.pos();
            c.consume(kNames[k]);
            if (!c.consume("=")) c.set_pos(at);
            else slot = k;
            break;
          }
        size_t at = c.pos();
        if (seen[slot]) c.fail_at(at, fmt::format("'{}' is given twice", kNames[slot]));
        seen[slot] = true;
        vals[slot] = c.parse_const_expr(kNames[slot]);
      }
      c.expect(")", "to close 'SwizzleLayout(M, B, S)'");
      m = vals[0];
      b = vals[1];
      s = vals[2];
    } else {
      m = c.parse_const_expr("per_element (M)");
      c.expect(",", "after per_element in ComposeLayout(M, B, S, tile)");
      b = c.parse_const_expr("swizzle_len (B)");
      c.expect(",", "after swizzle_len in ComposeLayout(M, B, S, tile)");
      s = c.parse_const_expr("atom_len (S)");
    }
    if (s < 0) c.fail_at(params, fmt::format("atom_len {} must be >= 0", s));
    if (std::string why = Swizzle::check(b, m, s); !why.empty()) c.fail_at(params, why);
    c.expect(",", "before the tile layout in ComposeLayout");
    Layout tile = parse_tile(c);
    if (c.consume(",")) {
      c.expect("swizzle_inner", "(the only keyword ComposeLayout takes after the tile)");
      c.expect("=", "after 'swizzle_inner'");
      size_t at = c.pos();
      if (!c.consume("True")) {
        c.set_pos(at);
        if (c.consume("False"))
          c.fail_at(at, "swizzle_inner=False is not supported: LayoutProof only models swizzles applied "
                        "to the tile's memory offsets (swizzle_inner=True)");
        c.fail_expected("True");
      }
    }
    c.expect(")", "to close 'ComposeLayout(...)'");
    LayoutParts p = tile.parts();
    p.stages.push_back(Stage::swizzled(Swizzle(static_cast<int>(b), static_cast<int>(m), static_cast<int>(s))));
    try {
      return Layout::make(std::move(p));
    } catch (const LayoutError& e) {
      c.fail_at(start, e.what());
    }
  }
  TileText t;
  t.start = start;
  if (consume_tirx_word(c, "TileLayout")) {
    c.expect("(", "after 'TileLayout'");
    parse_sum(c, t);
    c.expect(")", "to close 'TileLayout(...)'");
  } else {
    parse_sum(c, t);
  }
  return build_tile(c, t);
}

}  // namespace

Layout parse_tirx(Cursor& c) { return parse_tile(c); }

}  // namespace lp
