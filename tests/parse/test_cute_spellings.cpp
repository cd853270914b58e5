// The CuTe spellings people paste into annotations: tile_to_shape, make_layout(make_shape(...),
// make_stride(...)), Int<N>, GMMA::/UMMA:: layout atoms, and the CuTe DSL's print format; and a
// precise diagnostic, saying what to write instead, for the constructs that are not read. (Every
// atom and tile is also compared with CuTe's own evaluation in tests/cute/test_cute_probes.cpp.)
#include <catch2/catch.hpp>

#include "analyzer/ir/Print.h"
#include "analyzer/parse/Parsers.h"

namespace {

std::string printed(const std::string& text) { return lp::print_cute(lp::parse_layout_text(text).layout).text; }

std::string diagnose(const std::string& text) {
  try {
    lp::parse_layout_text(text);
    return "";
  } catch (const lp::DiagnosticError& e) {
    return e.diagnostic().render();
  }
}

}  // namespace

TEST_CASE("tile_to_shape tiles column-major and keeps the block's swizzle outside", "[cute-spelling]") {
  // FlashAttention-2's Q tile for head dim 128 (kernel_traits.h): two 64-column pages.
  CHECK(printed("tile_to_shape(composition(Swizzle<3,3,3>{}, Layout<Shape<_8,Int<64>>, Stride<Int<64>,_1>>{}), "
                "Shape<Int<128>, Int<128>>{})") == "Sw<3,3,3> o _0 o ((_8,_16),(_64,_2)):((_64,_512),(_1,_8192))");
  // A third (pipeline) mode, and an explicit column-major order; the expected texts are what
  // CuTe 4.2 prints for the same expressions.
  CHECK(printed("tile_to_shape(Layout<Shape<_8,_8>,Stride<_8,_1>>{}, make_shape(Int<16>{}, Int<8>{}, Int<3>{}))") ==
        "((_8,_2),(_8,_1),(_1,_3)):((_8,_64),(_1,_0),(_0,_128))");
  CHECK(printed("tile_to_shape(Layout<Shape<_8,_8>,Stride<_8,_1>>{}, Shape<_16,_8>{}, Step<_1,_2>{})") ==
        "((_8,_2),(_8,_1)):((_8,_64),(_1,_0))");
  CHECK(printed("tile_to_shape(Layout<Shape<_8,_8>,Stride<_8,_1>>{}, Shape<_16,_8>{}, GenColMajor{})") ==
        "((_8,_2),(_8,_1)):((_8,_64),(_1,_0))");
}

TEST_CASE("GMMA and UMMA layout atoms are CuTe's definitions, upcast to the element type", "[cute-spelling]") {
  // mma_traits_sm90_gmma.hpp:84: Layout_K_SW128_Atom_Bits = Sw<3,4,3> o smem_ptr o (8,1024):(1024,1) bits.
  CHECK(printed("GMMA::Layout_K_SW128_Atom<half_t>{}") == "Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)");
  CHECK(printed("cute::GMMA::Layout_K_INTER_Atom<cutlass::float_e4m3_t>") ==
        "Sw<0,4,3> o smem_ptr[8b](unset) o (_8,_16):(_16,_1)");
  CHECK(printed("SM90::GMMA::Layout_MN_SW32_Atom<float>") == "Sw<1,4,3> o smem_ptr[32b](unset) o (_8,_8):(_1,_8)");
  CHECK(printed("UMMA::Layout_K_SW64_Atom<bfloat16_t>") == "Sw<2,4,3> o smem_ptr[16b](unset) o (_8,_32):(_32,_1)");
  // mma_traits_sm100.hpp:72: Sw<2,5,2> o smem_ptr o (1024,4):(1,1024) bits.
  CHECK(printed("UMMA::Layout_MN_SW128_32B_Atom<tfloat32_t>") == "Sw<2,5,2> o smem_ptr[32b](unset) o (_32,_4):(_1,_32)");
  CHECK(printed("tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{}, Shape<_64,_64>{})") ==
        "Sw<3,4,3> o smem_ptr[16b](unset) o ((_8,_8),(_64,_1)):((_64,_512),(_1,_0))");
}

TEST_CASE("make_layout with make_shape/make_stride and Int<N>, and the CuTe DSL's print format", "[cute-spelling]") {
  CHECK(printed("make_layout(make_shape(Int<8>{}, 64), make_stride(64, Int<1>{}))") == "(_8,64):(64,_1)");
  CHECK(printed("make_layout(make_shape(Int<4>{}, Int<2>{}), GenRowMajor{})") == "(_4,_2):(_2,_1)");
  // The DSL prints `S<B,M,S> o OFFSET o LAYOUT` with plain integers.
  CHECK(printed("S<3,4,3> o 0 o ((8,16),(64,2)):((64,512),(1,8192))") ==
        "Sw<3,4,3> o _0 o ((8,16),(64,2)):((64,512),(1,8192))");
  CHECK(lp::parse_layout_text("S<3,3,3> o 0 o (8,64):(64,1)").layout.offset_at(9) ==
        lp::parse_layout_text("Sw<3,3,3> o _0 o (_8,_64):(_64,_1)").layout.offset_at(9));
}

TEST_CASE("unsupported CuTe constructs are named, with what to write instead", "[cute-spelling]") {
  CHECK(diagnose("logical_divide(Layout<_8>{}, Int<2>{})")
            .rfind("<layout>:1:1: error: 'logical_divide' is not supported in a layout text; write the layout it "
                   "evaluates to in CuTe's print format",
                   0) == 0);
  CHECK(diagnose("SmemLayoutQ{}").rfind(
            "<layout>:1:1: error: 'SmemLayoutQ' is not a layout LayoutProof can read: a type alias or variable stands "
            "for a layout only the compiler knows; write its value in CuTe's print format (print(SmemLayoutQ{}) in "
            "CuTe), or let a probe write it (layoutproof extract, docs/cute.md)",
            0) == 0);
  CHECK(diagnose("SmemLayoutQ").find("'SmemLayoutQ' is not a layout LayoutProof can read") != std::string::npos);
  CHECK(diagnose("tile_to_shape(GMMA::Layout_K_SW128_Atom<TA>{}, Shape<_64,_64>{})")
            .rfind("<layout>:1:41: error: 'TA' is not an element type LayoutProof knows; write the type itself", 0) == 0);
  CHECK(diagnose("tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{}, Shape<_64,_64>{}, Step<_2,_1>{})")
            .rfind("<layout>:1:70: error: tile_to_shape with a mode order other than column-major", 0) == 0);
  CHECK(diagnose("tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{}, Shape<_60,_64>{})")
            .rfind("<layout>:1:1: error: tile_to_shape does not give the target shape here: CuTe rejects this operation", 0) == 0);
  CHECK(diagnose("GMMA::Layout_K_SW256_Atom<half_t>")
            .rfind("<layout>:1:7: error: unknown GMMA layout atom 'Layout_K_SW256_Atom'", 0) == 0);
  CHECK(diagnose("GMMA::Layout_MN_SW128_32B_Atom<half_t>").find("unknown GMMA layout atom 'Layout_MN_SW128_32B_Atom'") !=
        std::string::npos);
  // Parameters keep the print format: `M:_1` is a layout, not a C++ name.
  const std::vector<lp::ParamSpec> params{{"M", 64, 1024, 64}};
  CHECK(lp::parse_layout_text("M:_1", "<layout>", std::nullopt, &params).layout.size() == 1024);
}
