// Probe of layouts composed with layouts (CuTe's ComposedLayout<Layout, O, B>, cute/layout_composed.hpp):
// each is emitted by layoutproof/cute.hpp in CuTe's `A o O o B` form and followed by CuTe's own
// evaluation through a shared-memory pointer (tests/cute/oracle_support.hpp); test_cute_probes.cpp
// compares them point by point and checks the verdicts.
#include <cute/layout_composed.hpp>
#include <cute/swizzle_layout.hpp>

#include "oracle_support.hpp"

using namespace cute;
namespace lp = layoutproof;

namespace {

template <class T, class L>
void composed(lp::Emitter& out, const std::string& name, L l, lp::Origin at = lp::Origin::current()) {
  lp::emit_layout<T>(out, name, l, lp::LayoutOptions().align(1024), at);
  oracle::layout<T>(out, name, l);
}

}  // namespace

int main() {
  lp::Emitter out;
  lp::emit_arch(out, "sm_90");
  // TileLang's int8 swizzle before tile-ai/tilelang#455: element (row, col) of a (64, 128) tile at
  // row*128 + (col/16 ^ row%16)*16 + col%16. The XOR of four row bits into a three-bit chunk index
  // reaches chunk 15, past the 128-byte row, into the next row: not injective. As a CuTe function it
  // is A o Sw<4,4,4> o B with B = (64,128):(256,1) spreading rows 256 apart, the swizzle XORing the
  // row's low four bits into the chunk bits, and A = (16,16,64):(1,16,128) packing rows 128 apart.
  composed<int8_t>(out, "tilelang_int8_pre455",
                   composition(Layout<Shape<_16, _16, _64>, Stride<_1, _16, _128>>{}, Int<0>{},
                               composition(Swizzle<4, 4, 4>{}, Layout<Shape<_64, _128>, Stride<_256, _1>>{})));
  // The same rows with the XOR kept inside the row (three row bits into the three chunk bits):
  // injective.
  composed<int8_t>(out, "tilelang_int8_rowwise",
                   composition(Layout<Shape<_16, _8, _64>, Stride<_1, _16, _128>>{}, Int<0>{},
                               composition(Swizzle<3, 4, 4>{}, Layout<Shape<_64, _128>, Stride<_128, _1>>{})));
  // An offset between the layouts, and a swizzle of the composition's result.
  composed<half_t>(out, "offset_between",
                   composition(Layout<Shape<_8, _64>, Stride<_64, _1>>{}, Int<3>{}, Layout<Shape<_16, _8>, Stride<_1, _16>>{}));
  composed<half_t>(out, "swizzle_outside",
                   composition(Swizzle<3, 3, 3>{}, Int<0>{},
                               composition(Layout<Shape<_64, _8>, Stride<_8, _1>>{}, Int<0>{},
                                           Layout<Shape<_8, _64>, Stride<_64, _1>>{})));
}
