// Every statement form of docs/annotations.md, parsed from .lp text, against hand-written fields.
#include <catch2/catch.hpp>

#include "Helpers.h"
#include "analyzer/algebra/CuteLayout.h"
#include "analyzer/ir/Print.h"

using namespace lp;
using namespace lp::annotate;
using namespace lp::annotate::test;

namespace {
ParseResult ok(const std::string& text) {
  ParseResult r = parse("t.lp", text);
  INFO(rendered(r));
  REQUIRE(r.diagnostics.empty());
  return r;
}
}  // namespace

TEST_CASE("smem declaration with dtype, layout and alignment", "[annotate][statements]") {
  auto r = ok("smem sA : f16 = Sw<3,3,3> o _0 o (_8,_64):(_64,_1) align 1024\n");
  REQUIRE(r.statements.size() == 1);
  const auto& d = body<BufferDecl>(r, 0);
  CHECK(d.space == Space::Smem);
  CHECK(d.name.text == "sA");
  REQUIRE(d.dtype);
  CHECK(d.dtype->name == "f16");
  CHECK(d.dtype->bits == 16);
  REQUIRE(d.layout);
  CHECK(d.layout->text == "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)");
  CHECK(d.layout->parsed.notation == Notation::Cute);
  CHECK(d.layout->parsed.layout.size() == 512);
  REQUIRE(d.align);
  CHECK(d.align->value == 1024);
  CHECK(!d.fragment);
}

TEST_CASE("a layout containing spaces, 'o', ':', '@', parentheses and commas runs to the end", "[annotate][statements]") {
  auto r = ok("smem s : bf16 = composition(Swizzle<3,3,3>{}, Layout<Shape<_8,_64>, Stride<_64,_1>>{})\n"
              "tmem t = S[(64, 2, 2, 128):(1@TLane, 128@TCol, 64@TLane, 1@TCol)]\n"
              "regs l = (_16,_2):(_1@0,_8@1)\n");
  REQUIRE(r.statements.size() == 3);
  CHECK(body<BufferDecl>(r, 0).layout->parsed.layout.size() == 512);
  CHECK(!body<BufferDecl>(r, 0).align);
  CHECK(body<BufferDecl>(r, 1).space == Space::Tmem);
  CHECK(body<BufferDecl>(r, 1).layout->parsed.notation == Notation::Tirx);
  CHECK(!body<BufferDecl>(r, 1).dtype);
  CHECK(body<BufferDecl>(r, 2).space == Space::Regs);
  CHECK(body<BufferDecl>(r, 2).layout->parsed.layout.size() == 32);
}

TEST_CASE("backquoted layouts may be followed by clauses", "[annotate][statements]") {
  auto r = ok("global g : f32 = `(_128,_64):(_64,_1)` align 16\n");
  const auto& d = body<BufferDecl>(r, 0);
  CHECK(d.space == Space::Global);
  CHECK(d.layout->text == "(_128,_64):(_64,_1)");
  CHECK(d.align->value == 16);
}

TEST_CASE("regs from the fragment catalog", "[annotate][statements]") {
  auto r = ok("regs acc : f32 = fragment wgmma.m64n64k16.f32.C\nregs a = fragment mma.m16n8k16.f16.A\n");
  const auto& d = body<BufferDecl>(r, 0);
  REQUIRE(d.fragment);
  CHECK(d.fragment->name.text == "wgmma.m64n64k16.f32.C");
  REQUIRE(d.fragment->fragment);
  CHECK(d.fragment->fragment->rows == 64);
  CHECK(d.fragment->fragment->cols == 64);
  CHECK(!d.layout);
  CHECK(body<BufferDecl>(r, 1).fragment->fragment->name == "mma.m16n8k16.f16.A");
}

TEST_CASE("param declares a range usable in later layouts", "[annotate][statements]") {
  auto r = ok("param M = 64..1048576 % 64\nparam N = 1..4\nsmem s : f16 = (M,_64):(_64,_1)\n");
  const auto& p = body<ParamDecl>(r, 0);
  CHECK(p.name.text == "M");
  CHECK(p.lo.value == 64);
  CHECK(p.hi.value == 1048576);
  REQUIRE(p.multiple);
  CHECK(p.multiple->value == 64);
  CHECK(p.index == 0);
  CHECK(body<ParamDecl>(r, 1).index == 1);
  CHECK(!body<ParamDecl>(r, 1).multiple);
  REQUIRE(r.params.size() == 2);
  CHECK(r.params[0].name == "M");
  CHECK(r.params[0].multiple == 64);
  CHECK(r.params[1].hi == 4);
  const auto& s = body<BufferDecl>(r, 2);
  // The instance is at M's largest value; the use is recorded against parameter 0.
  CHECK(s.layout->parsed.layout.size() == 1048576 * 64);
  REQUIRE(s.layout->parsed.param_uses.size() == 1);
  CHECK(s.layout->parsed.param_uses[0].term.params == std::vector<size_t>{0});
}

TEST_CASE("a derived parameter is a term of one parameter, not a variable of its own", "[annotate][statements]") {
  auto r = ok("param D = 32..64 % 8\nparam S = 2*D+8\nsmem s : f16 = (S,_64):(_64,_1)\nsmem t : f16 = (_8,S):(S-8,_1)\n");
  REQUIRE(r.params.size() == 1);  // S is no parameter of its own
  const auto& d = body<DerivedParamDecl>(r, 1);
  CHECK(d.name.text == "S");
  CHECK(d.term.params == std::vector<size_t>{0});
  CHECK(d.term.coeff == 2);
  CHECK(d.term.offset == 8);
  const auto& s = body<BufferDecl>(r, 2);
  REQUIRE(s.layout->parsed.param_uses.size() == 1);
  CHECK(s.layout->parsed.param_uses[0].term.params == std::vector<size_t>{0});
  CHECK(s.layout->parsed.param_uses[0].term.coeff == 2);
  CHECK(s.layout->parsed.param_uses[0].term.offset == 8);
  CHECK(s.layout->parsed.layout.modes()[0].extent == 2 * 64 + 8);
  const auto& t = body<BufferDecl>(r, 3);  // mode 0's stride S - 8 = 2*D, then mode 1's extent S
  REQUIRE(t.layout->parsed.param_uses.size() == 2);
  CHECK(t.layout->parsed.param_uses[0].field == lp::ParamUse::Field::Stride);
  CHECK(t.layout->parsed.param_uses[0].term.coeff == 2);
  CHECK(t.layout->parsed.param_uses[0].term.offset == 0);
  CHECK(t.layout->parsed.param_uses[1].field == lp::ParamUse::Field::Extent);
  CHECK(t.layout->parsed.param_uses[1].term.offset == 8);
  // A term of two parameters, or none, is not a derived parameter.
  auto two = parse("p.lp", "param M = 1..4\nparam N = 1..4\nparam S = M+N\n");
  REQUIRE(two.diagnostics.size() == 1);
  CHECK(two.diagnostics[0].message.find("'M' and 'N' are two different terms") != std::string::npos);
  auto constant = parse("p.lp", "param S = 2*8\n");
  REQUIRE(constant.diagnostics.size() == 1);
  CHECK(constant.diagnostics[0].message.find("expected '..'") != std::string::npos);
}

TEST_CASE("access, named and unnamed, with the arch in effect", "[annotate][statements]") {
  auto r = ok("smem sA : f16 = (_32,_64):(_64,_1)\n"
              "access sA ldmatrix.x4 lanes (_16,_2,_2):(_1@0,_8@1,_16@0)\n"
              "arch sm_90\n"
              "access a1: sA ldmatrix.x4.trans lanes `(_16,_2,_2):(_1@0,_8@1,_16@0)`\n");
  REQUIRE(r.statements.size() == 4);
  const auto& a0 = body<AccessDecl>(r, 1);
  CHECK(!a0.name);
  CHECK(a0.buffer.text == "sA");
  CHECK(a0.instr->name == "ldmatrix.x4");
  CHECK(a0.arch == nullptr);
  CHECK(a0.lanes.parsed.layout.size() == 64);
  CHECK(body<ArchDecl>(r, 2).arch->sm == 90);
  const auto& a1 = body<AccessDecl>(r, 3);
  REQUIRE(a1.name);
  CHECK(a1.name->text == "a1");
  CHECK(a1.instr->trans);
  REQUIRE(a1.arch);
  CHECK(a1.arch->name == "sm_90");
}

TEST_CASE("tma copies and operand descriptors", "[annotate][statements]") {
  auto r = ok("smem sA : f16 = (_64,_64):(_64,_1) align 1024\n"
              "tma load sA box (64, 64) swizzle 128B\n"
              "tma store t1: sA box (64) swizzle none\n"
              "wgmma desc sA swizzle 128B major K\n"
              "tcgen05 desc d1: sA swizzle 128B_base32B\n"
              "wgmma desc sA swizzle 32B major MN\n");
  const auto& t0 = body<TmaDecl>(r, 1);
  CHECK(t0.direction == TmaDirection::Load);
  CHECK(!t0.name);
  REQUIRE(t0.box.size() == 2);
  CHECK(t0.box[0].value == 64);
  CHECK(t0.box[1].value == 64);
  CHECK(t0.swizzle.mode == hw::SmemSwizzle::B128);
  const auto& t1 = body<TmaDecl>(r, 2);
  CHECK(t1.direction == TmaDirection::Store);
  CHECK(t1.name->text == "t1");
  CHECK(t1.box.size() == 1);
  CHECK(t1.swizzle.mode == hw::SmemSwizzle::None);
  const auto& d0 = body<DescDecl>(r, 3);
  CHECK(d0.kind == DescKind::Wgmma);
  CHECK(d0.major->major == Major::K);
  const auto& d1 = body<DescDecl>(r, 4);
  CHECK(d1.kind == DescKind::Tcgen05);
  CHECK(d1.name->text == "d1");
  CHECK(d1.swizzle.atom_32b);
  CHECK(!d1.major);  // not written: absent, not defaulted
  CHECK(body<DescDecl>(r, 5).swizzle.mode == hw::SmemSwizzle::B32);
  CHECK(body<DescDecl>(r, 5).major->major == Major::MN);
}

TEST_CASE("compose and divide take names or backquoted layouts", "[annotate][statements]") {
  auto r = ok("smem A : f16 = (_6,_6):(_1,_7)\n"
              "compose C = A o `_4:_4`\n"
              "compose D = `(_8,_8):(_8,_1)` o `(_4):(_3)`\n"
              "divide V = logical_divide(A, `_2:_1`)\n"
              "divide Z = zipped_divide(C, `(_2):(_1)`)\n");
  const auto& c = body<ComposeDecl>(r, 1);
  CHECK(c.name.text == "C");
  CHECK(std::get<Name>(c.a).text == "A");
  CHECK(std::get<LayoutExpr>(c.b).text == "_4:_4");
  CHECK(std::get<LayoutExpr>(body<ComposeDecl>(r, 2).a).parsed.layout.size() == 64);
  const auto& v = body<DivideDecl>(r, 3);
  CHECK(v.kind == DivideKind::Logical);
  CHECK(std::get<Name>(v.a).text == "A");
  CHECK(std::get<LayoutExpr>(v.tiler).parsed.layout.size() == 2);
  CHECK(body<DivideDecl>(r, 4).kind == DivideKind::Zipped);
  CHECK(std::get<Name>(body<DivideDecl>(r, 4).a).text == "C");
}

TEST_CASE("compose and divide take tilers as B and as the tiler", "[annotate][statements]") {
  auto r = ok("smem A : f16 = (_6,_6):(_1,_7)\n"
              "divide T = tiled_divide(A, [_2, (_3):(_2)])\n"
              "compose C = A o [_2, _]\n"
              "divide Z = zipped_divide(C, [[_1], 2])\n");
  const auto& t = body<DivideDecl>(r, 1);
  CHECK(t.kind == DivideKind::Tiled);
  const auto& tiler = std::get<TilerExpr>(t.tiler);
  CHECK(tiler.text == "[_2, (_3):(_2)]");
  REQUIRE(tiler.tiler.kind == lp::Tiler::Kind::Tuple);
  CHECK(algebra::cute_text(algebra::from_ir(*tiler.tiler.parts.at(0).layout)) == "_2:_1");
  CHECK(algebra::cute_text(algebra::from_ir(*tiler.tiler.parts.at(1).layout)) == "(_3):(_2)");
  CHECK(std::get<TilerExpr>(body<ComposeDecl>(r, 2).b).tiler.parts.at(1).kind == lp::Tiler::Kind::Underscore);
  const auto& z = std::get<TilerExpr>(body<DivideDecl>(r, 3).tiler).tiler;
  CHECK(z.parts.at(0).kind == lp::Tiler::Kind::Tuple);
  CHECK(algebra::cute_text(algebra::from_ir(*z.parts.at(1).layout)) == "2:_1");
}

TEST_CASE("products take a block and a layout, a tiler (logical_product only) or a target shape", "[annotate][statements]") {
  auto r = ok("smem A : f16 = (_2,_2):(_1,_2)\n"
              "product P = logical_product(A, `(_3,_3):(_3,_1)`)\n"
              "product T = logical_product(A, [_2, _3:_1])\n"
              "product B = blocked_product(P, `(_3,_4):(_1,_3)`)\n"
              "product R = raked_product(`(_2,_5):(_5,_1)`, B)\n"
              "product W = tile_to_shape(`(_8,_8):(_8,_1)`, (_64,32))\n"
              "expect W injective\n");
  const auto& p = body<ProductDecl>(r, 1);
  CHECK(p.kind == ProductKind::Logical);
  CHECK(std::get<Name>(p.a).text == "A");
  CHECK(std::get<LayoutExpr>(*p.b).text == "(_3,_3):(_3,_1)");
  CHECK_FALSE(p.target);
  CHECK(std::get<TilerExpr>(*body<ProductDecl>(r, 2).b).text == "[_2, _3:_1]");
  CHECK(body<ProductDecl>(r, 3).kind == ProductKind::Blocked);
  CHECK(std::get<Name>(body<ProductDecl>(r, 3).a).text == "P");  // a product's name has a layout
  CHECK(body<ProductDecl>(r, 4).kind == ProductKind::Raked);
  CHECK(std::get<Name>(*body<ProductDecl>(r, 4).b).text == "B");
  const auto& w = body<ProductDecl>(r, 5);
  CHECK(w.kind == ProductKind::TileToShape);
  CHECK_FALSE(w.b);
  REQUIRE(w.target);
  REQUIRE(w.target->size() == 2);
  CHECK((*w.target)[0].value == 64);
  CHECK((*w.target)[0].is_static);
  CHECK((*w.target)[1].value == 32);
  CHECK_FALSE((*w.target)[1].is_static);
  CHECK(std::string(product_name(w.kind)) == "tile_to_shape");
}

TEST_CASE("coverage and every expectation", "[annotate][statements]") {
  auto r = ok("tmem sf = S[(32,4):(1@TLane,1@TCol)] + R[4:32@TLane]\n"
              "covers sf TLane=0..127, TCol=0..3\n"
              "expect sf covers TLane=0..127\n"
              "expect sf injective\n"
              "smem s : f16 = (_32,_64):(_64,_1)\n"
              "access x: s ldmatrix.x4 lanes (_16,_2,_2):(_1@0,_8@1,_16@0)\n"
              "expect x conflict-free\n"
              "expect x wavefronts <= 2\n"
              "expect x illegal\n"
              "smem b : f16 = (_4,_8):(_1@0,_1@1)\n"
              "covers b 0=0..3, 1=0..7\n");
  const auto& c = body<ExpectStmt>(r, 1);
  CHECK(c.kind == ExpectKind::Covers);
  REQUIRE(c.ranges.size() == 2);
  CHECK(c.ranges[0].axis.text == "TLane");
  CHECK(c.ranges[0].lo.value == 0);
  CHECK(c.ranges[0].hi.value == 127);
  CHECK(c.ranges[1].axis.text == "TCol");
  CHECK(c.ranges[1].hi.value == 3);
  CHECK(body<ExpectStmt>(r, 2).kind == ExpectKind::Covers);
  CHECK(body<ExpectStmt>(r, 2).ranges.size() == 1);
  CHECK(body<ExpectStmt>(r, 3).kind == ExpectKind::Injective);
  CHECK(body<ExpectStmt>(r, 6).kind == ExpectKind::ConflictFree);
  CHECK(body<ExpectStmt>(r, 7).kind == ExpectKind::Wavefronts);
  CHECK(body<ExpectStmt>(r, 7).max_wavefronts->value == 2);
  CHECK(body<ExpectStmt>(r, 8).kind == ExpectKind::Illegal);
  const auto& b = body<ExpectStmt>(r, 10);
  CHECK(b.ranges[0].basis);
  CHECK(b.ranges[0].axis.text == "0");
  CHECK(b.ranges[1].axis.text == "1");
}

TEST_CASE("suppressions: standalone before a statement and trailing after a semicolon", "[annotate][statements]") {
  auto r = ok("allow bank-conflict \"padding is  measured\"\n"
              "allow swizzle-mismatch \"see #12; fixed later\"\n"
              "smem s : f16 = (_32,_64):(_64,_1) ; allow base-align \"allocator gives 1024\" ; allow x2 \"q \\\"x\\\" \\\\\"\n"
              "smem t : f16 = (_32,_64):(_64,_1)\n");
  REQUIRE(r.statements.size() == 2);
  const auto& a = r.statements[0].allows;
  REQUIRE(a.size() == 4);
  CHECK(a[0].rule.text == "bank-conflict");
  CHECK(a[0].reason == "padding is measured");
  CHECK(a[1].rule.text == "swizzle-mismatch");
  CHECK(a[1].reason == "see #12; fixed later");
  CHECK(a[2].rule.text == "base-align");
  CHECK(a[2].reason == "allocator gives 1024");
  CHECK(a[3].reason == "q \"x\" \\");
  CHECK(r.statements[1].allows.empty());
}

TEST_CASE("the statement keyword location is recorded", "[annotate][statements]") {
  auto r = ok("\n   smem s : f16 = (_2):(_1)\n");
  CHECK(lc(r.statements[0].loc) == std::pair<size_t, size_t>{2, 4});
}

TEST_CASE("expect ACCESS compiled: the kernel, the file and line, the values", "[annotate][statements]") {
  auto r = ok("smem s : f32 = (_128,_4):(_4,_1)\n"
              "access q: s ld.shared.v4.b32 lanes (_32):(_1@0)\n"
              "expect q compiled \"sum_quads\" at 22\n"
              "expect q compiled \"gemm<.*C<1> >\" at \"tutorial/sgemm.cu\":214 where ntid.x = 128, \"k (parameter 2)\" = 8\n");
  const auto& a = body<ExpectStmt>(r, 2);
  CHECK(a.kind == ExpectKind::Compiled);
  REQUIRE(a.compiled);
  CHECK(a.compiled->kernel.text == "sum_quads");
  CHECK_FALSE(a.compiled->file);
  CHECK(a.compiled->line.value == 22);
  CHECK(a.compiled->values.empty());
  const auto& b = *body<ExpectStmt>(r, 3).compiled;
  CHECK(b.kernel.text == "gemm<.*C<1> >");
  REQUIRE(b.file);
  CHECK(b.file->text == "tutorial/sgemm.cu");
  CHECK(b.line.value == 214);
  REQUIRE(b.values.size() == 2);
  CHECK(b.values[0].first.text == "ntid.x");
  CHECK(b.values[0].second.value == 128);
  CHECK(b.values[1].first.text == "k (parameter 2)");
  CHECK(b.values[1].second.value == 8);
}

TEST_CASE("expect ACCESS compiled: malformed clauses are located errors", "[annotate][statements]") {
  const std::string decl = "smem s : f32 = (_128,_4):(_4,_1)\naccess q: s ld.shared.v4.b32 lanes (_32):(_1@0)\n";
  struct Case {
    std::string line;
    size_t col;
    std::string message;
  };
  for (const Case& c : {Case{"expect q compiled \"sum(\" at 3", 19, "not a kernel-name pattern"},
                        Case{"expect q compiled \"(k)\\\\1\" at 3", 19, "not a kernel-name pattern"},
                        Case{"expect q compiled \"k\" 3", 23, "expected 'at' and the source line"},
                        Case{"expect q compiled \"k\" at \"a.cu\" 3", 33, "expected ':' and the line after the file"},
                        Case{"expect q compiled \"k\" at 0", 26, "expected a source line of at least 1, found 0"},
                        Case{"expect q compiled \"k\" at 3 where w = 1, w = 2", 41, "'w' is given twice"},
                        Case{"expect s compiled \"k\" at 3", 8, "'s' is an smem buffer; expected a named access"}}) {
    auto r = parse("t.lp", decl + c.line + "\n");
    INFO(c.line << "\n" << rendered(r));
    REQUIRE(r.diagnostics.size() == 1);
    CHECK(r.diagnostics[0].message.find(c.message) == 0);
    CHECK(lc(r.diagnostics[0].loc) == std::pair<size_t, size_t>{3, c.col});
  }
}
