// The eval/print command-line contract on layouts as kernel authors write them (from the kernels of
// corpus/), conversions between notations, and exit codes.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "support/Process.h"

using lp::test::run_layoutproof;
using json = nlohmann::json;

namespace {

std::string print_as(const std::string& layout, const std::string& to) {
  auto r = run_layoutproof({"print", layout, "--to", to});
  INFO(layout << " --to " << to << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  return r.out.substr(0, r.out.size() - 1);
}

json images(const std::string& layout) {
  auto r = run_layoutproof({"eval", layout, "--json"});
  INFO(layout << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out)["images"];
}

}  // namespace

TEST_CASE("CuTe's C++ spelling reads as CuTe prints it", "[cli][cpp]") {
  // CUTLASS test/unit/gemm/device/default_gemm_configuration.hpp:83 and sgemm_sm80.cu:358.
  CHECK(print_as("composition(Swizzle<3,3,3>{}, Layout<Shape<_8,_64>, Stride<_64,_1>>{})", "cute") ==
        "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)");
  CHECK(print_as("cute::composition(cute::Swizzle<3,3,3>{}, cute::Layout<cute::Shape<cute::_8,cute::Shape<_8,_8>>, "
                 "cute::Stride<_8,Stride<_1,_64>>>{})",
                 "cute") == "Sw<3,3,3> o _0 o (_8,(_8,_8)):(_8,(_1,_64))");
  CHECK(print_as("make_layout(make_shape(8,64), make_stride(64,1))", "cute") == "(8,64):(64,1)");
  // default_gemm_configuration.hpp:439, padded SIMT layout with a constant expression.
  CHECK(print_as("Layout<Shape<_128,_8>, Stride<_1, Int<128 + 4>>>{}", "cute") == "(_128,_8):(_1,_132)");
  // Compact strides follow CuTe's compact_major, including _0 for static extent 1.
  CHECK(print_as("Layout<Shape<_4,_8>>{}", "cute") == "(_4,_8):(_1,_4)");
  // The innermost compact stride starts from CuTe's static Int<1>, so it prints as _1.
  CHECK(print_as("make_layout(make_shape(4,8), GenRowMajor{})", "cute") == "(4,8):(8,_1)");
  CHECK(print_as("make_layout(make_shape(8,64))", "cute") == "(8,64):(_1,8)");
  CHECK(print_as("make_layout(make_shape(Int<4>{}, Int<8>{}), LayoutRight{})", "cute") == "(_4,_8):(_8,_1)");
  CHECK(print_as("Layout<Shape<_1,_8>>{}", "cute") == "(_1,_8):(_0,_1)");
  CHECK(print_as("Layout<Shape<Shape<_2,_2>,_4>, GenRowMajor>{}", "cute") == "((_2,_2),_4):((_8,_4),_1)");
  // examples/50_hopper_gemm_with_epilogue_swizzle: a byte-address swizzle on 32-bit elements.
  CHECK(print_as("ComposedLayout<Swizzle<3,4,3>, smem_ptr_flag_bits<32>, Layout<Shape<Shape<_32,_4>,_64>, "
                 "Stride<Stride<_1,_2048>,_32>>>{}",
                 "cute") == "Sw<3,4,3> o smem_ptr[32b](unset) o ((_32,_4),_64):((_1,_2048),_32)");
  // sgemm_sm70.cu:355 with bM = 128: padded m-major (128,8):(1,129).
  CHECK(print_as("make_layout(make_shape(Int<128>{}, Int<8>{}), make_stride(Int<1>{}, Int<128>{} + Int<1>{}))", "cute") ==
        "(_128,_8):(_1,_129)");
  CHECK(print_as("make_layout(make_shape(128, Int<8>{}), make_stride(Int<1>{}, 128 + Int<1>{}))", "cute") ==
        "(128,_8):(_1,129)");
  // Named parameters are not numbers: a diagnostic that says so, at the name.
  auto r = run_layoutproof({"eval", "make_layout(make_shape(bM,bK), make_stride(Int<1>{}, bM+Int<1>{}))"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("<layout>:1:24: error: 'bM' is not a number") != std::string::npos);
}

TEST_CASE("CuTe <-> TIRx conversions are exact, with notes for what lives outside the text", "[cli][convert]") {
  CHECK(print_as("composition(Swizzle<3,3,3>{}, Layout<Shape<_8,_64>, Stride<_64,_1>>{})", "tirx") ==
        "ComposeLayout(3, 3, 3, S[(8,64):(64,1)])");
  CHECK(print_as("ComposeLayout(3, 3, 3, S[(8,64):(64,1)])", "cute") == "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)");
  // The byte form becomes the element form on 16-bit data, with a note saying so.
  auto b = run_layoutproof({"print", "Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)", "--to", "tirx"});
  CHECK(b.out == "ComposeLayout(3, 3, 3, S[(8,64):(64,1)])\n");
  CHECK(b.err.find("note: byte swizzle Sw<3,4,3> on 16-bit elements is element swizzle Sw<3,3,3>") != std::string::npos);
  // Hierarchical CuTe modes: TIRx cannot record the grouping, so a note gives the buffer shape.
  auto h = run_layoutproof({"print", "((_2,_2),_4):((_1,_4),_2)", "--to", "tirx"});
  CHECK(h.out == "S[(2,2,4):(4,1,2)]\n");
  CHECK(h.err.find("buffer of shape ((2,2),4)") != std::string::npos);
  // A memory offset has an exact CuTe spelling through the identity swizzle.
  std::string off = print_as("S[(4,8):(8,1)] + 64", "cute");
  CHECK(off == "Sw<0,0,0> o _64 o (_4,_8):(_8,_1)");
  json a = images("S[(4,8):(8,1)] + 64"), c = images(off);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 8; ++j) CHECK(a[8 * i + j][0]["m"] == c[i + 4 * j]);
}

TEST_CASE("conversions that cannot be exact say precisely why", "[cli][convert]") {
  struct Case {
    const char *layout, *to, *why;
  };
  for (Case c : {Case{"S[(8,4,2):(4@laneid,1@laneid,1@reg)]", "cute", "axis 'laneid' has no CuTe spelling"},
                 Case{"S[(32,4):(1@m,32@m)] + R[4:128@m]", "cute", "replicas"},
                 Case{"(_4,_8):(_1@0,_1@1)", "tirx", "scaled basis '@0' has no TIRx spelling"},
                 Case{"Sw<2,0,-3> o _0 o _64:_1", "tirx", "shifts down (S < 0)"},
                 Case{"Sw<1,1,3> o smem_ptr[64b](unset) o _64:_1", "tirx", "changes bits inside an element"},
                 Case{"(1@0, 8@1)", "cute", "no shape"},
                 Case{"(_4,_3):(_1,_4)", "descriptor", "axis 'm' has no descriptor spelling"}}) {
    auto r = run_layoutproof({"print", c.layout, "--to", c.to});
    INFO(c.layout << " --to " << c.to << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find(c.why) != std::string::npos);
  }
}

TEST_CASE("TIRx layouts from TIRx kernels parse in their Python spelling", "[cli][tirx]") {
  // mlc-ai/TIRx-kernels flashmla sparse_prefill_head128_small_topk_phase1.py:303,332,902.
  CHECK(print_as("T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(64, 8, 64):(64, 4096, 1)]))", "cute") ==
        "Sw<3,3,3> o _0 o (_64,_8,_64):(_64,_4096,_1)");
  CHECK(print_as("T.TileLayout(T.S[(64, 2, 2, 128):(1 @ Axis.TLane, 128 @ Axis.TCol, 64 @ Axis.TLane, 1 @ Axis.TCol)])",
                 "tirx") == "S[(64,2,2,128):(1@TLane,128@TCol,64@TLane,1@TCol)]");
  json frag = images("T.TileLayout(T.S[(2, 32, 2, 32):(1 @ Axis.wid_in_wg, 1 @ Axis.laneid, 2 @ Axis.wid_in_wg, 1)])");
  // Row r = 32 a + l, column 32 b + c: warp a + 2b, lane l, register c. 4 warps x 32 lanes x 32 regs, each once.
  std::set<std::tuple<int, int, int>> seen;
  for (int flat = 0; flat < 4096; ++flat) {
    const json& p = frag[flat][0];
    seen.insert({p["wid_in_wg"].get<int>(), p["laneid"].get<int>(), p["m"].get<int>()});
    CHECK(p["wid_in_wg"] == (flat / 2048) + 2 * ((flat / 32) % 2));
  }
  CHECK(seen.size() == 4096);
  // Offsets as O[...] and as terms are the same thing.
  CHECK(images("S[8:4@laneid] + O[1@gpuid_x]") == images("S[8:4@laneid] + 1@gpuid_x"));
}

TEST_CASE("eval --at, --preimage and the domain", "[cli][eval]") {
  auto at = run_layoutproof({"eval", "(_4,_3):(_3,_1)", "--at", "5", "--json"});
  CHECK(at.exit_code == 0);
  json j = json::parse(at.out);
  CHECK(j["index"] == 5);
  CHECK(j["images"] == json::array({4}));  // (1,1) -> 3 + 1
  auto out = run_layoutproof({"eval", "(_4,_3):(_3,_1)", "--at", "12"});
  CHECK(out.exit_code == 2);
  CHECK(out.err.find("index 12 is outside the layout's domain [0, 12)") != std::string::npos);
  auto pre = run_layoutproof({"eval", "(_4,_3):(_1,_0)", "--preimage", "2", "--json"});
  CHECK(json::parse(pre.out)["preimage"] == json::array({2, 6, 10}));
  auto pre2 = run_layoutproof({"eval", "S[(8,4,2):(4@laneid,1@laneid,1@reg)]", "--preimage", "laneid=5,reg=1", "--json"});
  CHECK(json::parse(pre2.out)["preimage"] == json::array({11}));
  auto big = run_layoutproof({"eval", "(_65536,_65536):(_1,_65536)"});
  CHECK(big.exit_code == 2);
  CHECK(big.err.find("use --at") != std::string::npos);
  auto ok_big = run_layoutproof({"eval", "(_65536,_65536):(_1,_65536)", "--at", "4294967295", "--json"});
  CHECK(json::parse(ok_big.out)["images"] == json::array({int64_t{4294967295}}));
}

TEST_CASE("exit codes: 0 success, 2 usage or bad input", "[cli]") {
  CHECK(run_layoutproof({"--help"}).exit_code == 0);
  CHECK(run_layoutproof({}).exit_code == 2);
  CHECK(run_layoutproof({"no-such-command"}).exit_code == 2);
  CHECK(run_layoutproof({"eval"}).exit_code == 2);
  CHECK(run_layoutproof({"print", "_8:_1", "--to", "klingon"}).exit_code == 2);
  CHECK(run_layoutproof({"eval", "_8:_1", "--notation", "klingon"}).exit_code == 2);
  CHECK(run_layoutproof({"eval", "_8:_1", "--at", "1", "--all"}).exit_code == 2);
  auto forced = run_layoutproof({"eval", "(1@0)", "--notation", "cute"});
  CHECK(forced.exit_code == 2);
  CHECK(forced.err.find("expected ')' or ',' in the shape tuple, found '@'") != std::string::npos);
}

TEST_CASE("algebra: tuple tilers as CuTe's make_tile, and a malformed one is a located error", "[cli][tiler]") {
  // 02_layout_algebra.md: zipped_divide((9,(4,8)):(59,(13,1)), <3:3, (2,4):(1,8)>) has shape
  // ((3,8),(3,4)), and its mode 0 is composition(a, b) = (3,(2,4)):(177,(13,2)).
  auto r = run_layoutproof({"algebra", "zipped_divide", "(_9,(_4,_8)):(_59,(_13,_1))",
                            "[Layout<_3,_3>{}, (_2,_4):(_1,_8)]", "--json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  CHECK(j["legal"] == true);
  CHECK(j["result"].get<std::string>().rfind("((_3,(_2,_4)),(_3,(_2,_2))):((_177,(_13,_2)),", 0) == 0);
  auto bad = run_layoutproof({"algebra", "logical_divide", "_8:_1", "[_2, _4"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("<operand 2>:1:8: error: expected ']' or ',' in the tiler, found end of input") != std::string::npos);
  CHECK(bad.err.find("^") != std::string::npos);
}
