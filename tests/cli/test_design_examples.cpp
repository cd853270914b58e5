// Every worked example and table row of the notations' design (docs/notations.md: shape:stride,
// named axes, replication, TIRx layouts, descriptors and CuTe's algebra), run through the CLI as a
// user would, and checked against the closed formulas of each example (not against our own output).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/Process.h"

using lp::test::run_layoutproof;
using json = nlohmann::json;

namespace {

json eval_json(const std::string& layout, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"eval", layout, "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = run_layoutproof(args);
  INFO(layout << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

// The single image object of a TIRx layout without replicas.
json tirx_at(const json& j, int64_t flat) {
  REQUIRE(j["images"][flat].size() == 1);
  return j["images"][flat][0];
}

}  // namespace

TEST_CASE("row-major 4x4 tile S[(4,4):(4,1)] gives addr = 4i + j", "[examples][cli]") {
  json j = eval_json("S[(4,4):(4,1)]");
  CHECK(j["notation"] == "tirx");
  CHECK(j["size"] == 16);
  for (int i = 0; i < 4; ++i)
    for (int jj = 0; jj < 4; ++jj) CHECK(tirx_at(j, 4 * i + jj)["m"] == 4 * i + jj);
}

TEST_CASE("torch (3,4):(4,1) and its permute (4,3):(1,4) address the same bytes", "[examples][cli]") {
  json t = eval_json("(_3,_4):(_4,_1)");
  json tt = eval_json("(_4,_3):(_1,_4)");
  CHECK(t["notation"] == "cute");
  // CuTe's 1-D index is colexicographic: coordinate (i,j) of a (3,4) layout is index i + 3j.
  for (int i = 0; i < 3; ++i)
    for (int jj = 0; jj < 4; ++jj) {
      CHECK(t["images"][i + 3 * jj] == 4 * i + jj);          // t[i][j] = 4i + j
      CHECK(tt["images"][jj + 4 * i] == t["images"][i + 3 * jj]);  // t.T[j][i] == t[i][j]
    }
}

TEST_CASE("8x8 tiled into 2x4 tiles S[(4,2,2,4):(16,4,8,1)]", "[examples][cli]") {
  json j = eval_json("S[(4,2,2,4):(16,4,8,1)]");
  for (int i = 0; i < 8; ++i)
    for (int jj = 0; jj < 8; ++jj)
      CHECK(tirx_at(j, 8 * i + jj)["m"] == 16 * (i / 2) + 4 * (i % 2) + 8 * (jj / 4) + jj % 4);
}

TEST_CASE("named axes", "[examples][cli]") {
  json mem = eval_json("S[(8, 16) : (16@m, 1@m)]");
  for (int i = 0; i < 8; ++i)
    for (int jj = 0; jj < 16; ++jj) CHECK(tirx_at(mem, 16 * i + jj)["m"] == 16 * i + jj);

  // The tensor-core register fragment: rows and column pairs onto lanes, column parity onto reg.
  json frag = eval_json("S[(8, 4, 2) : (4@laneid, 1@laneid, 1@reg)]");
  for (int i = 0; i < 8; ++i)
    for (int jj = 0; jj < 8; ++jj) {
      json p = tirx_at(frag, 8 * i + jj);
      CHECK(p["laneid"] == 4 * i + jj / 2);
      CHECK(p["reg"] == jj % 2);
    }
}

TEST_CASE("shard over a 2x2 GPU mesh plus replication along gpuid_x", "[examples][cli]") {
  json j = eval_json("S[(2, 4, 8) : (1@gpuid_y, 8@m, 1@m)] + R[2 : 1@gpuid_x]");
  CHECK(j["size"] == 64);
  for (int flat = 0; flat < 64; ++flat) {
    const json& reps = j["images"][flat];
    REQUIRE(reps.size() == 2);
    for (int r = 0; r < 2; ++r) {
      CHECK(reps[r]["gpuid_y"] == flat / 32);
      CHECK(reps[r]["m"] == flat % 32);
      CHECK(reps[r]["gpuid_x"] == r);
    }
  }
}

TEST_CASE("TMEM scale factors replicated warpx4 across TLane", "[examples][cli]") {
  // The design example elides sf_per_mma; 4 scale factors per row is the 4-per-cell e8m0 case.
  json j = eval_json("S[(32, 4) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]");
  for (int row = 0; row < 32; ++row)
    for (int sf = 0; sf < 4; ++sf) {
      const json& reps = j["images"][4 * row + sf];
      REQUIRE(reps.size() == 4);
      for (int r = 0; r < 4; ++r) {
        CHECK(reps[r]["TLane"] == row + 32 * r);  // lanes l, l+32, l+64, l+96 hold the same scale
        CHECK(reps[r]["TCol"] == sf);
      }
    }
  // The example's text elides the extent with an ellipsis: a precise diagnostic, not a guess.
  auto r = run_layoutproof({"eval", "S[(32, \xE2\x80\xA6):(1@TLane, \xE2\x80\xA6)] + R[4:32@TLane]"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("<layout>:1:8: error: expected an extent of the shard, found byte 0xE2") != std::string::npos);
  CHECK(r.err.find("       ^") != std::string::npos);
}

TEST_CASE("the register tile over laneid/warpid, every table row", "[examples][cli]") {
  const std::string layout = "S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid";
  json j = eval_json(layout);
  CHECK(j["size"] == 128);
  struct Row {
    int i, jj, flat, lane, w0, w1, m;
  };
  // (i, j) | flat | laneid | warpid (x2) | m, as the design example prints it.
  const Row rows[] = {{0, 0, 0, 0, 5, 9, 0}, {0, 1, 1, 0, 5, 9, 1}, {0, 2, 2, 1, 5, 9, 0},
                      {1, 0, 16, 4, 5, 9, 0}, {0, 8, 8, 0, 6, 10, 0}, {7, 15, 127, 31, 6, 10, 1}};
  for (const Row& row : rows) {
    CHECK(16 * row.i + row.jj == row.flat);
    const json& reps = j["images"][row.flat];
    REQUIRE(reps.size() == 2);
    CHECK(reps[0]["laneid"] == row.lane);
    CHECK(reps[1]["laneid"] == row.lane);
    CHECK(reps[0]["warpid"] == row.w0);
    CHECK(reps[1]["warpid"] == row.w1);
    CHECK(reps[0]["m"] == row.m);
  }
  // The closed form of the example, over the whole tile.
  for (int i = 0; i < 8; ++i)
    for (int jj = 0; jj < 16; ++jj) {
      const json& reps = j["images"][16 * i + jj];
      for (int r = 0; r < 2; ++r) {
        CHECK(reps[r]["laneid"] == 4 * i + (jj / 2) % 4);
        CHECK(reps[r]["warpid"] == jj / 8 + 5 + 4 * r);
        CHECK(reps[r]["m"] == jj % 2);
      }
    }
  // The contract's example: object keys in order of appearance.
  auto at0 = run_layoutproof({"eval", layout, "--at", "0", "--json"});
  CHECK(at0.out.find(R"([{"laneid":0,"warpid":5,"m":0},{"laneid":0,"warpid":9,"m":0}])") != std::string::npos);
}

TEST_CASE("Blackwell tensor memory S[(2,128,112):(112@TCol,1@TLane,1@TCol)]", "[examples][cli]") {
  json j = eval_json("S[(2,128,112):(112@TCol,1@TLane,1@TCol)]");
  CHECK(j["size"] == 2 * 128 * 112);
  CHECK(j["cosize"]["TLane"] == 128);
  CHECK(j["cosize"]["TCol"] == 224);
  const int rows[][5] = {{0, 0, 0, 0, 0}, {0, 5, 3, 5, 3}, {1, 0, 0, 0, 112}, {1, 127, 111, 127, 223}};
  for (auto& r : rows) {
    json p = tirx_at(j, r[0] * 128 * 112 + r[1] * 112 + r[2]);
    CHECK(p["TLane"] == r[3]);
    CHECK(p["TCol"] == r[4]);
  }
}

TEST_CASE("128B swizzle of an (8,64) fp16 tile, both ComposeLayout spellings", "[examples][cli]") {
  for (const char* layout : {"ComposeLayout(SwizzleLayout(3,3,3), S[(8,64):(64,1)])",
                             "ComposeLayout(3, 3, 3, S[(8,64):(64@m,1@m)])",
                             "T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(8, 64):(64, 1)]))",
                             "ComposeLayout(SwizzleLayout(per_element=3, swizzle_len=3, atom_len=3), S[(8,64):(64,1)])"}) {
    INFO(layout);
    json j = eval_json(layout);
    for (int i = 0; i < 8; ++i)
      for (int jj = 0; jj < 64; ++jj) CHECK(tirx_at(j, 64 * i + jj)["m"] == 64 * i + 8 * ((jj / 8) ^ i) + jj % 8);
    // Column 0 down the 8 rows: addr = 72 i, banks 0, 4, ..., 28 (2-byte elements, 4-byte banks).
    for (int i = 0; i < 8; ++i) {
      int addr = tirx_at(j, 64 * i)["m"];
      CHECK(addr == 72 * i);
      CHECK((addr * 2 / 4) % 32 == 4 * i);
    }
  }
  // Without the swizzle the column sits in one bank.
  json plain = eval_json("S[(8,64):(64,1)]");
  for (int i = 0; i < 8; ++i) CHECK((tirx_at(plain, 64 * i)["m"].get<int>() * 2 / 4) % 32 == 0);
}

TEST_CASE("SwizzleLayout parameters from dtype and mode match CuTe's Swizzle<B,M,S>", "[examples][cli]") {
  // M = bitlen(128/bits) - 1, B = 1/2/3 for 32B/64B/128B, S = 3: the element form of the byte
  // swizzle Sw<B,4,3> (CuTe's GMMA atoms: byte <3,4,3> = element <3,3,3> on 16-bit, <3,2,3> on 32-bit).
  struct Case {
    int bits, m;
  };
  for (Case c : {Case{8, 4}, Case{16, 3}, Case{32, 2}, Case{64, 1}})
    for (int b = 1; b <= 3; ++b) {
      std::string tile = "S[(16,512):(512,1)]";
      std::string tirx = "ComposeLayout(" + std::to_string(c.m) + "," + std::to_string(b) + ",3," + tile + ")";
      std::string cute = "Sw<" + std::to_string(b) + ",4,3> o smem_ptr[" + std::to_string(c.bits) + "b](unset) o (_8192):(_1)";
      json t = eval_json(tirx), k = eval_json(cute);
      REQUIRE(t["size"] == k["size"]);
      for (int x = 0; x < 8192; ++x) REQUIRE(tirx_at(t, x)["m"] == k["images"][x]);
    }
}

TEST_CASE("descriptor examples parse, normalise and round-trip", "[examples][cli]") {
  for (const char* d : {"(1@0, 1@1)", "(16@0, 1@1)", "((1@0, 8@1), 1@2)", "(1@0@1)", "()"}) {
    auto r = run_layoutproof({"print", d, "--to", "descriptor"});
    INFO(d << "\n" << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out == std::string(d) + "\n");
  }
  // Fractions: reduced when integral, rejected (with the place) when not; never divide by zero.
  auto half = run_layoutproof({"print", "(1/2@0, 4@1)", "--to", "descriptor"});
  CHECK(half.exit_code == 2);
  CHECK(half.err.find("<layout>:1:2: error: basis count 1/2 is not an integer") != std::string::npos);
  auto zero = run_layoutproof({"print", "(1/0@0)", "--to", "descriptor"});
  CHECK(zero.exit_code == 2);
  CHECK(zero.err.find("zero denominator") != std::string::npos);
  auto two = run_layoutproof({"print", "(4/2@0, -6/-3@1)", "--to", "descriptor"});
  CHECK(two.out == "(2@0, 2@1)\n");
  // A basis used both as a number and as a tuple is impossible.
  auto clash = run_layoutproof({"print", "(1@1, 1@0@1)", "--to", "descriptor"});
  CHECK(clash.exit_code == 2);
  CHECK(clash.err.find("impossible") != std::string::npos);
  // A bare descriptor has no domain: eval says so instead of inventing one.
  auto bare = run_layoutproof({"eval", "(1@0, 8@1)"});
  CHECK(bare.exit_code == 2);
  CHECK(bare.err.find("domain is unknown") != std::string::npos);
  // With a shape (CuTe notation) the same bases evaluate to coordinates.
  json j = eval_json("(4,8):(1@0,8@1)");
  CHECK(j["images"][0] == json::array({0, 0}));
  CHECK(j["images"][5] == json::array({1, 8}));
  CHECK(j["images"][31] == json::array({3, 56}));
  json nested = eval_json("(_2,_3):(_1@0,_1@1@1)");  // E<1,1>: coordinate (a, (0, b))
  CHECK(nested["images"][5] == json::array({1, json::array({0, 2})}));
}

TEST_CASE("layout model and algebra examples evaluate as CuTe defines them", "[examples][cli]") {
  json a = eval_json("<8 : 2>");
  CHECK(a["cosize"] == 15);
  for (int i = 0; i < 8; ++i) CHECK(a["images"][i] == 2 * i);
  CHECK(eval_json("<4 : 1>")["cosize"] == 4);
  json rm = eval_json("(2, 2) : (2, 1)"), cm = eval_json("(2, 2) : (1, 2)");
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 2; ++c) {
      CHECK(rm["images"][r + 2 * c] == r * 2 + c);
      CHECK(cm["images"][r + 2 * c] == r + c * 2);
    }
  json h = eval_json("(4, 2) : (1, 4)");  // offset r + 4c
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 2; ++c) CHECK(h["images"][r + 4 * c] == r + 4 * c);
  json comp = eval_json("<4 : 32>");
  CHECK(comp["images"] == json::array({0, 32, 64, 96}));
  // Seed 003 claims coalesce((2,4):(4,1)) = <8:1>; as a CuTe (colex) layout it is the
  // permutation 0,4,1,5,2,6,3,7, so no 1-mode layout with stride 1 equals it.
  CHECK(eval_json("(2, 4) : (4, 1)")["images"] == json::array({0, 4, 1, 5, 2, 6, 3, 7}));
  json bc = eval_json("(4, 3) : (1, 0)");  // 4 contiguous elements broadcast 3 times
  for (int i = 0; i < 12; ++i) CHECK(bc["images"][i] == i % 4);
}

TEST_CASE("the swizzle operator is CuTe's, not a common misreading (docs/algebra.md)", "[examples][cli]") {
  // CuTe's Swizzle<B,M,S> (include/cute/swizzle.hpp) XORs bits [M+S, M+S+B) into [M, M+B). Sw<3,4,3> reads bits 7..9.
  json j = eval_json("Sw<3,4,3> o _0 o _1024:_1");
  for (int x = 0; x < 1024; ++x) REQUIRE(j["images"][x] == (x ^ (((x >> 7) & 7) << 4)));
  // The misreading's worked inputs: 0x40 and 0x18 have no bit at or above 7, so CuTe leaves them alone
  // (the misread formula would give 0x28 for 0x18).
  CHECK(j["images"][0x40] == 0x40);
  CHECK(j["images"][0x18] == 0x18);
  CHECK(j["images"][0x20] == 0x20);
  CHECK(j["images"][0x80] == 0x90);
  // With S >= B the swizzle is an involution.
  json twice = eval_json("Sw<3,4,3> o _0 o Sw<3,4,3> o _0 o _1024:_1");
  for (int x = 0; x < 1024; ++x) REQUIRE(twice["images"][x] == x);
  // Negative S moves bits the other way: Sw<2,0,-3> XORs bits [0,2) into [3,5).
  json neg = eval_json("Sw<2,0,-3> o _0 o _64:_1");
  for (int x = 0; x < 64; ++x) REQUIRE(neg["images"][x] == (x ^ ((x & 3) << 3)));
}
