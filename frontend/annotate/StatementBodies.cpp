// The body of each annotation statement family after its keyword, read by StatementReader
// (StatementReader.h): buffers, cute definitions, parameters, arch, accesses, TMA copies, descriptors,
// compositions, divides, products, expectations and launch clauses.
#include <fmt/format.h>

#include <cctype>

#include "analyzer/ir/Checked.h"
#include "analyzer/support/KernelName.h"
#include "analyzer/parse/OperandParser.h"
#include "frontend/annotate/LaunchFacts.h"
#include "frontend/annotate/StatementReader.h"
#include "hw/ElementType.h"
#include "hw/HwError.h"

namespace lp::annotate {

namespace {

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

// ---- statements ---------------------------------------------------------------------------------

std::optional<Statement> StatementReader::read_body() {
  size_t at = here();
  std::string kw = c().parse_identifier();
  if (kw.empty())
    c().fail_expected("a statement keyword (smem, tmem, regs, global, param, arch, access, tma, wgmma, tcgen05, "
                      "compose, divide, product, covers, expect, cute, launch or allow)");
  Statement st;
  st.loc = loc(at);
  if (const auto space = vocabulary_value(kSpaceNames, kw)) st.body = buffer(*space);
  else if (kw == "param") param(st);
  else if (kw == "arch") st.body = arch();
  else if (kw == "access") st.body = access();
  else if (kw == "tma") st.body = tma();
  else if (kw == "wgmma") st.body = desc(DescKind::Wgmma);
  else if (kw == "tcgen05") st.body = desc(DescKind::Tcgen05);
  else if (kw == "compose") st.body = compose();
  else if (kw == "divide") st.body = divide();
  else if (kw == "product") st.body = product();
  else if (kw == "covers") st.body = expect(true);
  else if (kw == "expect") st.body = expect(false);
  else if (kw == "cute") st.body = cute_def();
  else if (kw == "launch") st.body = read_launch_clauses(c(), [this](size_t off) { return loc(off); });
  else if (kw == "allow") {
    p_.pending_allows_.push_back(suppression(at));
    end_of_statement();
    return std::nullopt;
  } else {
    fail(loc(at), fmt::format("unknown statement '{}'; expected smem, tmem, regs, global, param, arch, access, tma, "
                              "wgmma, tcgen05, compose, divide, product, covers, expect, cute, launch or allow",
                              kw));
  }
  return st;
}

Dtype StatementReader::dtype() {
  Name n = name("an element type (f16, bf16, f32, ...)");
  std::optional<int> bits = hw::element_bits(n.text);
  if (!bits)
    fail(n.loc, fmt::format("unknown element type '{}'; expected one of {}", n.text, joined(hw::element_type_names())));
  return Dtype{n.text, *bits, n.loc};
}

BufferDecl StatementReader::buffer(Space space) {
  BufferDecl d;
  d.space = space;
  const std::string sp = space_name(space);
  d.name = name(fmt::format("the {} buffer's name", sp));
  declare(d.name);
  const bool dtype_required = space == Space::Smem || space == Space::Global;
  if (dtype_required) {
    c().expect(":", fmt::format("and the element type after the buffer's name ({} NAME : DTYPE = LAYOUT)", sp));
    d.dtype = dtype();
  } else if (c().consume(":")) {
    d.dtype = dtype();
  }
  c().expect("=", fmt::format("before the layout ({} NAME{} = LAYOUT)", sp, dtype_required ? " : DTYPE" : ""));
  if (space == Space::Regs && c().consume("fragment")) {
    Name f = token("a fragment name from the catalog (e.g. wgmma.m64n64k16.f32.C)", true);
    const hw::Fragment* frag = hw::find_fragment(f.text);
    if (!frag)
      fail(f.loc, fmt::format("unknown fragment '{}'; similar catalog names: {}", f.text,
                              joined(hw::similar_fragment_names(f.text))));
    d.fragment = FragmentRef{f, frag};
    end_of_statement();
  } else {
    const bool align_ok = space == Space::Smem || space == Space::Global;
    d.layout = layout_to_end(fmt::format("after '=' in the {} declaration", sp), align_ok);
    if (align_ok && c().looking_at("align")) {
      c().expect("align", "");
      Number a = positive("a base alignment in bytes");
      if (a.value & (a.value - 1)) fail(a.loc, fmt::format("alignment {} is not a power of two", a.value));
      d.align = a;
    }
    if (align_ok && !c().at_end()) {
      c().expect("cute", "(the CuTe expression the layout stands for: cute \"NAME\"), 'align N' or the end of the statement");
      d.cute = cute_name("the name of the CuTe expression in quotes (cute \"SmemLayoutQ\")");
    }
    end_of_statement();
  }
  commit(AnnotationParser::Kind::Buffer, space);
  return d;
}

// A quoted name: `"..."` on one line, escapes \" and \\, not empty.
CuteName StatementReader::cute_name(std::string_view what) {
  size_t q = here();
  const std::string& t = c().source()->text;
  if (c().peek_raw() != '"') c().fail_expected(what);
  std::string text;
  size_t i = q + 1;
  for (;; ++i) {
    if (i >= t.size() || t[i] == '\n') fail(loc(q), "unterminated quoted text: expected a closing '\"' on the same line");
    if (t[i] == '"') break;
    if (t[i] == '\\') {
      if (i + 1 < t.size() && (t[i + 1] == '"' || t[i + 1] == '\\')) {
        text += t[++i];
        continue;
      }
      fail(loc(i), "unknown escape in the name; expected \\\" or \\\\");
    }
    text += t[i];
  }
  if (text.empty()) fail(loc(q), "the name is empty");
  c().set_pos(i + 1);
  return CuteName{std::move(text), loc(q)};
}

// `cute "EXPR" = LAYOUT`: a CuTe expression's value, as a probe wrote it.
CuteDef StatementReader::cute_def() {
  CuteName n = cute_name("the CuTe expression's name in quotes (cute \"SmemLayoutQ\" = LAYOUT)");
  if (!p_.constants_.empty())
    fail(n.loc, "a cute definition names one CuTe expression for the whole run; it cannot be in a 'for' loop");
  c().expect("=", "and the layout the CuTe expression evaluates to (cute \"NAME\" = LAYOUT)");
  LayoutExpr l = layout_to_end("after '=' in the cute definition", false);
  end_of_statement();
  return CuteDef{std::move(n), std::move(l)};
}

// `param NAME = LO..HI [% MULTIPLE]`, or a derived parameter `param NAME = EXPR`.
void StatementReader::param(Statement& st) {
  ParamDecl d;
  d.name = name("the parameter's name");
  if (!p_.constants_.empty())
    fail(d.name.loc, "a parameter is declared once per file, outside 'for' loops (it stands for every value itself)");
  declare(d.name);
  c().expect("=", "and the parameter's range (param NAME = LO..HI [% MULTIPLE]) or a term of a parameter (2*D)");
  const size_t at = here();
  if (std::optional<IntExpr> e = c().parse_int_expr(); e && e->param) {
    end_of_statement();
    p_.derived_.push_back(DerivedParam{d.name.text, *e->param});
    commit(AnnotationParser::Kind::Param);
    st.body = DerivedParamDecl{d.name, loc(at), *e->param};
    return;
  }
  c().set_pos(at);
  d.lo = integer("the parameter's lowest value");
  c().expect("..", "between the lowest and the highest value (LO..HI)");
  d.hi = integer("the parameter's highest value");
  if (c().consume("%")) d.multiple = positive("the multiple every value is");
  end_of_statement();
  if (d.lo.value < 1)
    fail(d.lo.loc, fmt::format("a parameter stands for an extent or a stride: its lowest value must be at least 1, "
                               "found {}", d.lo.value));
  if (d.hi.value < d.lo.value)
    fail(d.hi.loc, fmt::format("empty range: the highest value {} is below the lowest {}", d.hi.value, d.lo.value));
  int64_t m = d.multiple ? d.multiple->value : 1;
  // The smallest multiple of m not below lo must not pass hi: the range has a value.
  int64_t first = d.lo.value;
  if (int64_t r = d.lo.value % m; r != 0) {
    try {
      first = checked_add(d.lo.value, m - r, "the first multiple in the range");
    } catch (const OverflowError&) {
      fail(d.multiple->loc, fmt::format("no multiple of {} lies in {}..{}", m, d.lo.value, d.hi.value));
    }
  }
  if (first > d.hi.value)
    fail(d.multiple->loc, fmt::format("no multiple of {} lies in {}..{}", m, d.lo.value, d.hi.value));
  d.index = p_.params_.size();
  p_.params_.push_back(ParamSpec{d.name.text, d.lo.value, d.hi.value, m});
  commit(AnnotationParser::Kind::Param);
  st.body = std::move(d);
}

ArchDecl StatementReader::arch() {
  Name n = token("an architecture such as sm_90", false);
  try {
    const hw::Arch& a = hw::arch_by_name(n.text);
    end_of_statement();
    p_.arch_ = &a;
    return ArchDecl{n, &a};
  } catch (const hw::HwError& e) {
    fail(n.loc, e.what());
  }
}

AccessDecl StatementReader::access() {
  std::optional<Name> label = optional_label();
  Name buf = smem_buffer("the access reads or writes");
  Name instr_name = token("a shared-memory instruction (e.g. ldmatrix.x4, cp.async.cg.16, ld.shared.v4.b32)", true);
  const hw::SmemInstr* instr = nullptr;
  try {
    instr = &hw::smem_instr(instr_name.text);
  } catch (const hw::HwError& e) {
    fail(instr_name.loc, e.what());
  }
  const bool offsets = c().consume("offsets");
  if (!offsets)
    c().expect("lanes", "or 'offsets' before the lane layout (access BUFFER INSTR lanes|offsets LAYOUT [active LANES])");
  LayoutExpr lanes = layout_to_end(offsets ? "after 'offsets'" : "after 'lanes'", false, "active");
  if (offsets)
    for (const Axis& a : lanes.parsed.layout.axes())
      if (!a.is_memory())
        fail(lanes.loc, "with 'offsets' the lane map gives element offsets, so its strides are integers, not scaled "
                        "bases (_1@d); 'lanes' addresses the buffer's coordinates with _1@d");
  std::optional<ActiveLanes> active;
  if (c().looking_at("active")) {
    active = active_lanes();
    // PTX ISA, ldmatrix/stmatrix: the mandatory .aligned qualifier requires every thread of the
    // warp to execute the same instruction; a partial warp is undefined behaviour.
    if (instr->kind == hw::AccessKind::MatrixRows && active->mask != hw::kAllLanes)
      fail(active->loc, fmt::format("{} is .sync.aligned: every lane of the warp executes it, so it cannot have a "
                                    "partial set of active lanes", instr->name));
  }
  end_of_statement();
  if (label) commit(AnnotationParser::Kind::Access);
  return AccessDecl{std::move(label), std::move(buf), std::move(instr_name), instr, std::move(lanes), p_.arch_,
                    std::move(active), offsets};
}

SwizzleRef StatementReader::swizzle(bool tcgen05) {
  c().expect("swizzle", "and the swizzle mode (none, 32B, 64B or 128B)");
  Name m = token("a swizzle mode: none, 32B, 64B or 128B", false);
  if (m.text == "128B_base32B") {
    if (!tcgen05)
      fail(m.loc, "swizzle mode '128B_base32B' exists only in tcgen05 descriptors; expected none, 32B, 64B or 128B");
    return SwizzleRef{hw::SmemSwizzle::B128, true, m.loc};
  }
  try {
    return SwizzleRef{hw::swizzle_from_name(m.text), false, m.loc};
  } catch (const hw::HwError& e) {
    fail(m.loc, e.what());
  }
}

TmaDecl StatementReader::tma() {
  TmaDecl d;
  size_t at = here();
  d.direction_loc = loc(at);
  if (c().consume("load")) d.direction = TmaDirection::Load;
  else if (c().consume("store")) d.direction = TmaDirection::Store;
  else c().fail_expected("'load' or 'store' after 'tma'");
  d.name = optional_label();
  d.buffer = smem_buffer("the copy fills or drains");
  c().expect("box", "and the box extents (tma load BUFFER box (D0, D1, ...) swizzle MODE)");
  d.box_loc = loc(here());
  c().expect("(", "opening the box extents");
  constexpr size_t kMaxTmaDims = 5;  // cp.async.bulk.tensor has .1d to .5d
  do {
    if (d.box.size() == kMaxTmaDims)
      fail(loc(here()), fmt::format("a TMA box has at most {} dimensions", kMaxTmaDims));
    d.box.push_back(positive("a box extent"));
  } while (c().consume(","));
  c().expect(")", "or ',' in the box extents");
  d.swizzle = swizzle(false);
  end_of_statement();
  if (d.name) commit(AnnotationParser::Kind::Tma);
  return d;
}

DescDecl StatementReader::desc(DescKind kind) {
  DescDecl d;
  d.kind = kind;
  c().expect("desc", fmt::format("after '{}' (an operand descriptor: {} desc BUFFER swizzle MODE)",
                                 kind == DescKind::Wgmma ? "wgmma" : "tcgen05",
                                 kind == DescKind::Wgmma ? "wgmma" : "tcgen05"));
  d.name = optional_label();
  d.buffer = smem_buffer("the descriptor points at");
  d.swizzle = swizzle(kind == DescKind::Tcgen05);
  if (c().consume("major")) {
    size_t at = here();
    if (c().consume("K")) d.major = MajorRef{Major::K, loc(at)};
    else if (c().consume("MN")) d.major = MajorRef{Major::MN, loc(at)};
    else c().fail_expected("'K' or 'MN' after 'major'");
  }
  end_of_statement();
  if (d.name) commit(AnnotationParser::Kind::Desc);
  return d;
}

ComposeDecl StatementReader::compose() {
  Name n = name("the composition's name");
  declare(n);
  c().expect("=", "and the composition (compose NAME = A o B)");
  Operand a = operand("as the outer layout A of 'A o B'");
  c().expect("o", "between the two layouts (A o B; write a layout operand in backquotes)");
  Operand b = operand("as the inner layout B of 'A o B'", true);
  end_of_statement();
  commit(AnnotationParser::Kind::Compose);
  return ComposeDecl{n, std::move(a), std::move(b)};
}

// The operation word of a divide or product, one of `table`; else a located error that lists them.
template <class Kind, size_t N>
std::pair<Kind, SourceLoc> StatementReader::operation(std::string_view what, const Vocabulary<Kind, N>& table) {
  const std::string names = vocabulary_choices(table);
  Name op = name(names);
  if (const auto kind = vocabulary_value(table, op.text)) {
    c().expect("(", fmt::format("after '{}'", op.text));
    return {*kind, op.loc};
  }
  fail(op.loc, fmt::format("unknown {} '{}'; expected {}", what, op.text, names));
}

DivideDecl StatementReader::divide() {
  Name n = name("the divide's name");
  declare(n);
  c().expect("=", "and the divide (divide NAME = logical_divide(A, TILER))");
  const auto [kind, kind_loc] = operation("divide", kDivideNames);
  Operand a = operand("as the layout to divide");
  c().expect(",", "between the layout and the tiler");
  Operand tiler = operand("as the tiler", true);
  c().expect(")", "closing the divide");
  end_of_statement();
  commit(AnnotationParser::Kind::Divide);
  return DivideDecl{n, kind, kind_loc, std::move(a), std::move(tiler)};
}

ProductDecl StatementReader::product() {
  Name n = name("the product's name");
  declare(n);
  c().expect("=", "and the product (product NAME = logical_product(A, B))");
  const auto [kind, kind_loc] = operation("product", kProductNames);
  ProductDecl d{n, kind, kind_loc, operand("as the block A"), std::nullopt, std::nullopt};
  if (kind == ProductKind::TileToShape) {
    c().expect(",", "between the block and the target shape");
    c().skip_ws();
    d.target = parse_flat_shape_at(c());
  } else {
    c().expect(",", "between the two layouts");
    // CuTe's logical_product takes a tiler as B; blocked and raked products take layouts.
    d.b = operand("as the layout B", kind == ProductKind::Logical);
  }
  c().expect(")", "closing the product");
  end_of_statement();
  commit(AnnotationParser::Kind::Product);
  return d;
}

std::vector<AxisRangeExpr> StatementReader::ranges() {
  std::vector<AxisRangeExpr> out;
  do {
    AxisRangeExpr r;
    size_t at = here();
    if (std::isdigit(static_cast<unsigned char>(c().peek_raw()))) {
      Number idx = integer("a basis axis index");
      r.axis = Name{std::to_string(idx.value), idx.loc};
      r.basis = true;
    } else {
      std::string id = c().parse_identifier();
      if (id.empty()) c().fail_expected("an axis name (TLane, TCol, laneid, ...) or a basis index");
      r.axis = Name{std::move(id), loc(at)};
    }
    c().expect("=", "and the axis range (AXIS=LO..HI)");
    r.lo = integer("the lowest covered value");
    c().expect("..", "between the lowest and the highest value (LO..HI)");
    r.hi = integer("the highest covered value");
    if (r.hi.value < r.lo.value)
      fail(r.hi.loc, fmt::format("empty range: the highest value {} is below the lowest {}", r.hi.value, r.lo.value));
    for (const AxisRangeExpr& prev : out)
      if (prev.axis.text == r.axis.text && prev.basis == r.basis)
        fail(r.axis.loc, fmt::format("axis '{}' appears twice in the coverage target", r.axis.text),
             {Note{prev.axis.loc, "first given here"}});
    out.push_back(std::move(r));
  } while (c().consume(","));
  return out;
}

ExpectStmt StatementReader::expect(bool covers_keyword) {
  ExpectStmt e;
  e.subject = name(covers_keyword ? "the name whose coverage is declared" : "the name the expectation is about");
  using K = AnnotationParser::Kind;
  auto layout_subject = [&] { resolve(e.subject, detail::has_layout, "a buffer, composition, divide or product (something with a layout)"); };
  if (covers_keyword) {
    layout_subject();
    e.kind = ExpectKind::Covers;
    e.kind_loc = loc(here());
    e.ranges = ranges();
    end_of_statement();
    return e;
  }
  size_t at = here();
  e.kind_loc = loc(at);
  const std::string& t = c().source()->text;
  size_t w = at;
  while (w < t.size() && (is_ident_char(t[w]) || t[w] == '-')) ++w;
  std::string prop = t.substr(at, w - at);
  c().set_pos(w);
  auto is_access = [](const AnnotationParser::Entity& x) { return x.kind == K::Access; };
  if (prop == "injective") {
    e.kind = ExpectKind::Injective;
    layout_subject();
  } else if (prop == "conflict-free") {
    e.kind = ExpectKind::ConflictFree;
    resolve(e.subject, is_access, "a named access (access NAME: BUFFER INSTR lanes LAYOUT)");
  } else if (prop == "wavefronts") {
    e.kind = ExpectKind::Wavefronts;
    resolve(e.subject, is_access, "a named access (access NAME: BUFFER INSTR lanes LAYOUT)");
    c().expect("<=", "after 'wavefronts' (expect NAME wavefronts <= N)");
    e.max_wavefronts = positive("a wavefront count");
  } else if (prop == "covers") {
    e.kind = ExpectKind::Covers;
    layout_subject();
    e.ranges = ranges();
  } else if (prop == "compiled") {
    e.kind = ExpectKind::Compiled;
    resolve(e.subject, is_access, "a named access (access NAME: BUFFER INSTR lanes LAYOUT)");
    e.compiled = compiled_ref();
  } else if (prop == "illegal") {
    e.kind = ExpectKind::Illegal;
    resolve(e.subject, [](const AnnotationParser::Entity& x) { return x.kind != K::Param; },
            "a declaration, access, copy, descriptor, composition, divide or product");
  } else {
    c().set_pos(at);
    c().fail_expected("a property: injective, conflict-free, wavefronts <= N, covers AXIS=LO..HI, compiled \"KERNEL\" "
                      "at LINE or illegal");
  }
  end_of_statement();
  return e;
}

// After `expect ACCESS compiled`: `"KERNEL" at ["FILE":]LINE [where NAME = VALUE, ...]`.
CompiledRef StatementReader::compiled_ref() {
  CompiledRef r;
  r.kernel = cute_name("the kernel in quotes: a regular expression its demangled name matches (compiled \"gemm_device\" at LINE)");
  try {
    kernel_pattern(r.kernel.text);
  } catch (const std::regex_error& e) {
    fail(r.kernel.loc, fmt::format("not a kernel-name pattern (an ECMAScript regular expression without "
                                   "back-references, at most {} characters): {}",
                                   kMaxKernelPatternChars, e.what()));
  }
  c().expect("at", "and the source line of the compiled instructions (compiled \"KERNEL\" at [\"FILE\":]LINE)");
  if (c().peek() == '"') {
    r.file = cute_name("the source file in quotes");
    c().expect(":", "and the line after the file (\"FILE\":LINE)");
  }
  r.line = positive("a source line");
  if (c().consume("where")) {
    do {
      CuteName n = c().peek() == '"' ? cute_name("an unknown's name") : [&] {
        Name t = token("an unknown of the compiled address (warp, ntid.x, a parameter's name), or a quoted name", true);
        return CuteName{t.text, t.loc};
      }();
      for (const auto& [seen, value] : r.values)
        if (seen.text == n.text) fail(n.loc, fmt::format("'{}' is given twice", n.text));
      c().expect("=", "and its value (NAME = VALUE)");
      r.values.emplace_back(std::move(n), integer("the unknown's value"));
    } while (c().consume(","));
  }
  return r;
}

}  // namespace lp::annotate
