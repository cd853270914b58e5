// `layoutproof explain`: an access lane by lane and phase by phase, checked against a brute-force
// recomputation of the addresses (the row-major formula written out) and of the banks (byte / 4
// mod 32, the sm_90 bank mapping); a layout's images against its stride formula.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "support/Process.h"

using lp::test::run_layoutproof;

namespace {

std::string write_file(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("lp_explain_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(path) << text;
  return path.string();
}

const char* kFile =
    "arch sm_90\n"
    "smem sA : f16 = (_64,_64):(_64,_1) align 1024\n"
    "access a1: sA ldmatrix.x4 lanes (_16,_2,_4,_4):(_1@0,_8@1,_16@0,_16@1)\n"
    "smem small : f32 = (_4,_8):(_8,_1)\n";

}  // namespace

TEST_CASE("explain: every lane's coordinate, byte address, banks and words, phase by phase", "[cli][explain]") {
  const std::string path = write_file("a.lp", kFile);
  for (int issue : {0, 5}) {
    const auto r = run_layoutproof({"explain", path + ":a1", "--issue", std::to_string(issue)});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    // By hand: issue q covers rows 16*(q%4)+(0..15) and columns 16*(q/4) + {0, 8}; lane l < 16
    // reads row base+l at the first column, lane l >= 16 row base+l-16 at the second; the f16
    // element (r, c) is at byte 2*(64 r + c); a 16-byte row covers 4 words, word w in bank w % 32.
    const int64_t row0 = 16 * (issue % 4), col0 = 16 * (issue / 4);
    std::map<int, int64_t> expected_byte;
    for (int lane = 0; lane < 32; ++lane)
      expected_byte[lane] = 2 * (64 * (row0 + lane % 16) + col0 + 8 * (lane / 16));
    const std::regex lane_line(R"(^\s+(\d+)  \((\d+),(\d+)\)\s+(\d+)  ([\d,]+)\s+([\d,]+))");
    const std::regex phase_line(R"(^  phase (\d+) \(lanes (\d+)-(\d+)\): (\d+) wavefronts?; busiest bank (\d+))");
    std::istringstream in(r.out);
    std::string line;
    int lanes_seen = 0, phases_seen = 0;
    while (std::getline(in, line)) {
      std::smatch m;
      if (std::regex_search(line, m, phase_line)) {
        const int phase = std::stoi(m[1]);
        CHECK(std::stoi(m[2]) == 8 * phase);
        CHECK(std::stoi(m[3]) == 8 * phase + 7);
        // Brute force: the phase's 8 lanes, distinct words per bank, the most is the wavefronts.
        std::map<int64_t, std::set<int64_t>> words_of_bank;
        for (int lane = 8 * phase; lane < 8 * phase + 8; ++lane)
          for (int64_t w = expected_byte[lane] / 4; w < expected_byte[lane] / 4 + 4; ++w) words_of_bank[w % 32].insert(w);
        size_t most = 0;
        for (const auto& [bank, words] : words_of_bank) most = std::max(most, words.size());
        CHECK(std::stoul(m[4]) == most);
        ++phases_seen;
      } else if (std::regex_search(line, m, lane_line)) {
        const int lane = std::stoi(m[1]);
        CHECK(std::stoi(m[2]) == row0 + lane % 16);
        CHECK(std::stoi(m[3]) == col0 + 8 * (lane / 16));
        CHECK(std::stoll(m[4]) == expected_byte[lane]);
        std::string banks, words;
        for (int64_t w = expected_byte[lane] / 4; w < expected_byte[lane] / 4 + 4; ++w) {
          banks += (banks.empty() ? "" : ",") + std::to_string(w % 32);
          words += (words.empty() ? "" : ",") + std::to_string(w);
        }
        CHECK(m[5].str() == banks);
        CHECK(m[6].str() == words);
        ++lanes_seen;
      }
    }
    CHECK(phases_seen == 4);
    CHECK(lanes_seen == 32);
    CHECK(r.out.find("32 wavefronts, ideal 4") != std::string::npos);  // 4 phases of 8 rows in one bank group
  }
}

TEST_CASE("explain: the HTML picture of the issue is written", "[cli][explain]") {
  const std::string path = write_file("b.lp", kFile);
  const std::string html = write_file("b.html", "");
  const auto r = run_layoutproof({"explain", path + ":3", "--html", html});
  REQUIRE(r.exit_code == 0);
  std::ifstream in(html);
  const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(page.find("data-lane") != std::string::npos);  // the lane x bank grid
  CHECK(page.find("(_64,_64):(_64,_1)") != std::string::npos);
}

TEST_CASE("explain: a layout's images over a range of coordinates", "[cli][explain]") {
  const std::string path = write_file("c.lp", kFile);
  const auto r = run_layoutproof({"explain", path + ":small", "--rows", "1..2", "--cols", "3..5"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  // (_4,_8):(_8,_1): (r, c) -> 8 r + c.
  CHECK(r.out.find("      1  11  12  13\n") != std::string::npos);
  CHECK(r.out.find("      2  19  20  21\n") != std::string::npos);
}

TEST_CASE("explain: what cannot be explained is said precisely", "[cli][explain]") {
  const std::string path = write_file("d.lp", kFile);
  auto err = [&](std::vector<std::string> args) {
    const auto r = run_layoutproof(args);
    CHECK(r.exit_code == 2);
    return r.err;
  };
  CHECK(err({"explain", path + ":zz"}) == "error: " + path + ": nothing is named 'zz'\n");
  CHECK(err({"explain", path + ":1"}) == "error: " + path + ":1: no access, buffer or computed layout starts on this line\n");
  CHECK(err({"explain", path + ":a1", "--issue", "16"}) == "error: --issue 16: the access issues 16 instructions (0..15)\n");
  CHECK(err({"explain", path + ":a1", "--base", "8"}) ==
        "error: --base 8: the base is a non-negative multiple of the buffer's 1024-byte alignment\n");
  CHECK(err({"explain", path + ":small", "--rows", "2..9"}) == "error: the range 2..9 passes mode 0's extent 4\n");
  CHECK(err({"explain", path + ":small", "--rows", "3..1"}) == "error: --rows '3..1': expected 0 <= A <= B\n");
}

TEST_CASE("explain: a name declared in a for loop names every instance, or one", "[cli][explain][loops]") {
  const std::string path = write_file("loop.lp",
                                      "arch sm_90\n"
                                      "for P in 64, 72 {\n"
                                      "  smem t : f16 = (_16,_64):(P,_1) align 128\n"
                                      "  access rd: t ldmatrix.x4 lanes (_16,_2):(_1@0,_8@1)\n"
                                      "}\n");
  auto headers = [](const std::string& out) {
    std::vector<std::string> h;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);)
      if (line.find("ldmatrix.x4 on") != std::string::npos) h.push_back(line.substr(line.find("ldmatrix.x4 on")));
    return h;
  };
  // By hand: pitch 64 halves (128 bytes) puts the 8 rows of a phase in one bank group, 8 wavefronts a
  // phase, 32 for the x4; pitch 72 (144 bytes) moves each row one 16-byte group on: 4.
  const auto all = run_layoutproof({"explain", path + ":rd"});
  REQUIRE(all.exit_code == 0);
  const auto h = headers(all.out);
  REQUIRE(h.size() == 2);
  CHECK(h[0].find("'t[P=64]'") != std::string::npos);
  CHECK(h[0].find("32 wavefronts, ideal 4") != std::string::npos);
  CHECK(h[1].find("'t[P=72]'") != std::string::npos);
  CHECK(h[1].find("4 wavefronts, ideal 4") != std::string::npos);
  const auto one = run_layoutproof({"explain", path + ":rd[P=72]"});
  REQUIRE(one.exit_code == 0);
  CHECK(headers(one.out).size() == 1);
  CHECK(run_layoutproof({"explain", path + ":rd[P=80]"}).err == "error: " + path + ": nothing is named 'rd[P=80]'\n");
  CHECK(run_layoutproof({"explain", path + ":rd[P]"}).err ==
        "error: '" + path + ":rd[P]': expected FILE, FILE:LINE, FILE:NAME or FILE:NAME[D=64]\n");
}
