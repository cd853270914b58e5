// Each rule on a planted bug (found at the exact line and column, with the counterexample the
// hardware data or the algebra fixes independently) and on the corrected code (no finding).
#include <catch2/catch.hpp>

#include "rules/Checker.h"
#include "rules/TempTree.h"

namespace {

using lp::rules::CheckRun;
using lp::rules::Finding;

CheckRun check_text(const std::string& text, lp::rules::Config config = {}) {
  lp::test::TempTree tree;
  std::string path = tree.write("case.lp", text);
  lp::rules::CheckOptions opt;
  opt.config = std::move(config);
  opt.jobs = 1;
  return lp::rules::check_paths({path}, opt);
}

std::vector<const Finding*> of_rule(const CheckRun& run, const std::string& id) {
  std::vector<const Finding*> out;
  for (const Finding& f : run.findings)
    if (f.rule_id == id) out.push_back(&f);
  return out;
}

// Line and column of a finding.
// The finding's counterexample as the type its rule writes (a wrong type fails the test).
template <class T>
const T& cex(const Finding* f) {
  return std::get<T>(f->counterexample);
}

std::pair<size_t, size_t> at(const Finding& f) { return lp::line_col_of(*f.loc.source, f.loc.offset); }

std::string all_messages(const CheckRun& run) {
  std::string s;
  for (const Finding& f : run.findings) s += f.rule_id + ": " + f.message + "\n";
  return s;
}

}  // namespace

TEST_CASE("LP002 bank-conflict: the measured 32-wavefront ldmatrix pattern, and its swizzled fix", "[rules]") {
  // tests/data/sm90_smem_wavefronts.tsv row A_f16_r64_sw033_r0c0_ldsmA: 32 wavefronts measured; Swizzle<3,3,3>: 4.
  CheckRun bad = check_text("smem sA : f16 = (_64,_64):(_64,_1) align 1024\n"
                            "access a1: sA ldmatrix.x4 lanes (_16,_2,_4,_4):(_1@0,_8@1,_16@0,_16@1)\n");
  auto f = of_rule(bad, "LP002");
  REQUIRE(f.size() == 1);
  CHECK(at(*f[0]) == std::pair<size_t, size_t>{2, 1});
  CHECK(f[0]->message == "ldmatrix.x4 on 'sA' has bank conflicts: 32 wavefronts where 4 are ideal");
  CHECK(cex<lp::rules::BankConflictCex>(f[0]).wavefronts == 32);
  CHECK(cex<lp::rules::BankConflictCex>(f[0]).bank == 0);
  CHECK(cex<lp::rules::BankConflictCex>(f[0]).addresses == std::array<int64_t, 2>{0, 128});
  CheckRun good = check_text("smem sA : f16 = Sw<3,3,3> o _0 o (_64,_64):(_64,_1) align 1024\n"
                             "access a1: sA ldmatrix.x4 lanes (_16,_2,_4,_4):(_1@0,_8@1,_16@0,_16@1)\n");
  INFO(all_messages(good));
  CHECK(good.findings.empty());
  CHECK(good.obligations.size() >= 2);
  // A known cost can be accepted explicitly, and is then held to.
  CheckRun bounded = check_text("smem sA : f16 = (_64,_64):(_64,_1) align 1024\n"
                                "access a1: sA ldmatrix.x4 lanes (_16,_2,_4,_4):(_1@0,_8@1,_16@0,_16@1)\n"
                                "expect a1 wavefronts <= 32\n");
  CHECK(of_rule(bounded, "LP002").empty());
  CheckRun tight = check_text("smem sA : f16 = (_64,_64):(_64,_1) align 1024\n"
                              "access a1: sA ldmatrix.x4 lanes (_16,_2,_4,_4):(_1@0,_8@1,_16@0,_16@1)\n"
                              "expect a1 wavefronts <= 16\n");
  REQUIRE(of_rule(tight, "LP002").size() == 1);
  CHECK(of_rule(tight, "LP002")[0]->message == "ldmatrix.x4 on 'sA' needs 32 wavefronts, more than the 16 expected");
}

TEST_CASE("LP002 bank-conflict: an access outside the buffer is a finding, not a crash", "[rules]") {
  CheckRun r = check_text("smem sA : f16 = (_64,_64):(_64,_1) align 1024\n"
                          "access sA ldmatrix.x4 lanes (_16,_2,_4,_8):(_1@0,_8@1,_16@0,_8@1)\n");
  auto f = of_rule(r, "LP002");
  REQUIRE(f.size() == 1);
  CHECK(f[0]->message.find("outside [0, 64)") != std::string::npos);
  CHECK(at(*f[0]) == std::pair<size_t, size_t>{2, 29});  // the lane map
}

TEST_CASE("LP001 layout-injective: overlapping rows, and the replicated register tile of docs/notations.md", "[rules]") {
  CheckRun bad = check_text("smem sD : f32 = (_32,_33):(_32,_1)\n");
  auto f = of_rule(bad, "LP001");
  REQUIRE(f.size() == 1);
  CHECK(at(*f[0]) == std::pair<size_t, size_t>{1, 17});
  // Element 1 is (1,0) -> 32 and element 1024 is (0,32) -> 32: found independently by hand.
  CHECK(cex<lp::rules::InjectivityCex>(f[0]).image == std::vector<int64_t>{32});
  CheckRun good = check_text("smem sD : f32 = (_32,_33):(_33,_1)\n"
                             "regs t = S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid\n"
                             "regs acc = fragment wgmma.m64n64k16.f32.C\n");
  INFO(all_messages(good));
  CHECK(good.findings.empty());
  // Parameters: a pitch of 48 for 64 columns overlaps rows for every M >= 2.
  CheckRun param = check_text("param M = 64..4096 % 64\nsmem sP : f16 = (M,_64):(_48,_1)\n");
  REQUIRE(of_rule(param, "LP001").size() == 1);
  CHECK(of_rule(param, "LP001")[0]->message.find("is not injective") != std::string::npos);
}

TEST_CASE("LP003 algebra-legality: CuTe's wrong composition, and a documented bug kept on purpose", "[rules]") {
  CheckRun bad = check_text("compose bad = `(_6,_6):(_1,_7)` o `_4:_4`\n");
  auto f = of_rule(bad, "LP003");
  REQUIRE(f.size() == 1);
  CHECK(f[0]->message.find("wrong at 2 of 4 points") != std::string::npos);
  CHECK(cex<lp::rules::AlgebraCex>(f[0]).expected == "9");  // A(B(2)) = A(8) = 2 + 7*1 = 9
  CHECK(cex<lp::rules::AlgebraCex>(f[0]).actual == "7");
  CheckRun kept = check_text("compose bad = `(_6,_6):(_1,_7)` o `_4:_4`\nexpect bad illegal\n");
  CHECK(of_rule(kept, "LP003").empty());
  CheckRun wrong_expectation = check_text("compose ok = `(_8,_8):(_8,_1)` o `_16:_4`\nexpect ok illegal\n");
  REQUIRE(of_rule(wrong_expectation, "LP003").size() == 1);
  CHECK(of_rule(wrong_expectation, "LP003")[0]->message.find("expected to be illegal") != std::string::npos);
}

TEST_CASE("LP003 algebra-legality: by-mode compositions and divides with tuple tilers", "[rules]") {
  // Mode 0 of A is the (6,6):(1,7) of the case above, composed with 4:4 by mode: wrong the same way.
  CheckRun bad = check_text("compose bad = `((_6,_6),_4):((_1,_7),_64)` o [_4:_4, _]\n");
  auto f = of_rule(bad, "LP003");
  REQUIRE(f.size() == 1);
  CHECK(at(*f[0]) == std::pair<size_t, size_t>{1, 1});
  CHECK(cex<lp::rules::AlgebraCex>(f[0]).expected == "9");
  CHECK(cex<lp::rules::AlgebraCex>(f[0]).actual == "7");
  // CuTe's documented 2-D divide (02_layout_algebra.md): legal, and the divide's result is a layout
  // later statements use.
  CheckRun good = check_text("divide zd = zipped_divide(`(_9,(_4,_8)):(_59,(_13,_1))`, [_3:_3, (_2,_4):(_1,_8)])\n"
                             "expect zd injective\n"
                             "compose tile = `(_9,(_4,_8)):(_59,(_13,_1))` o [Layout<_3,_3>{}, (_2,_4):(_1,_8)]\n");
  INFO(all_messages(good));
  CHECK(good.findings.empty());
  CHECK(good.obligations.size() == 3);
}

TEST_CASE("expectations on compose/divide results check the layout CuTe computes", "[rules]") {
  // (4,4):(1,4) o (4,2):(1,0) is legal, and CuTe's result (4,2):(1,0) maps index 4, coordinate
  // (0,1), to offset 0 like index 0: not injective (by hand).
  CheckRun dup = check_text("compose C = `(_4,_4):(_1,_4)` o `(_4,_2):(_1,_0)`\nexpect C injective\n");
  INFO(all_messages(dup));
  CHECK(of_rule(dup, "LP003").empty());
  auto f = of_rule(dup, "LP001");
  REQUIRE(f.size() == 1);
  CHECK(f[0]->message.find("layout of 'C' is not injective: elements 0 and 4 share") == 0);
  CHECK(cex<lp::rules::InjectivityCex>(f[0]).indices == std::array<int64_t, 2>{0, 4});
  // A step CuTe computes no layout for: its legality is LP003's finding, an expectation on it is
  // undecided (never silently skipped), and a later step that uses it cannot be performed.
  CheckRun none = check_text("compose R = `_8:_1` o [_2, _2]\nexpect R injective\ncompose S = R o `_2:_1`\n");
  INFO(all_messages(none));
  auto lp003 = of_rule(none, "LP003");
  REQUIRE(lp003.size() == 2);
  CHECK(lp003[0]->message.find("'R' = A o B is illegal: CuTe rejects this operation: a rank-2 tiler on a rank-1 layout") == 0);
  CHECK(lp003[1]->message == "the operation cannot be performed: 'R' has no layout: CuTe computes no layout for it");
  auto lp001 = of_rule(none, "LP001");
  REQUIRE(lp001.size() == 1);
  CHECK(lp001[0]->kind == lp::rules::FindingKind::Unknown);
  CHECK(at(*lp001[0]) == std::pair<size_t, size_t>{2, 8});
}

TEST_CASE("LP004 replica-coverage: three replicas miss the last warp's TMEM lanes", "[rules]") {
  CheckRun bad = check_text("tmem sf = S[(32,4):(1@TLane,1@TCol)] + R[3:32@TLane]\ncovers sf TLane=0..127\n");
  auto f = of_rule(bad, "LP004");
  REQUIRE(f.size() == 1);
  CHECK(at(*f[0]) == std::pair<size_t, size_t>{2, 1});
  int64_t lane = cex<lp::rules::CoverageCex>(f[0]).uncovered.at(0);
  CHECK(lane >= 96);
  CHECK(lane <= 127);
  CheckRun good = check_text("tmem sf = S[(32,4):(1@TLane,1@TCol)] + R[4:32@TLane]\ncovers sf TLane=0..127, TCol=0..3\n");
  CHECK(good.findings.empty());
}

TEST_CASE("LP005/LP007/LP008: TMA and descriptor swizzles, base alignment and box limits", "[rules]") {
  CheckRun bad = check_text("smem sB : f16 = Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1) align 128\n"
                            "tma load tb: sB box (64, 8) swizzle 64B\n"
                            "tma load tw: sB box (128, 8) swizzle 128B\n");
  auto mismatch = of_rule(bad, "LP005");
  REQUIRE(mismatch.size() == 1);
  CHECK(at(*mismatch[0]) == std::pair<size_t, size_t>{2, 37});
  auto align = of_rule(bad, "LP007");
  REQUIRE(align.size() == 1);
  CHECK(align[0]->message == "'sB' is aligned to 128 bytes, but its byte-address swizzle repeats every 1024 bytes");
  // 64 f16 = 128 bytes is wider than the 64B span, 128 f16 = 256 bytes than the 128B span.
  auto box = of_rule(bad, "LP008");
  REQUIRE(box.size() == 2);
  CHECK(at(*box[0]) == std::pair<size_t, size_t>{2, 21});
  CHECK(at(*box[1]) == std::pair<size_t, size_t>{3, 21});
  CHECK(box[1]->message == "TMA box of 'sB': inner box dimension is 256 bytes; swizzle 128B allows at most 128");
  // The same pattern as element swizzle Sw<3,3,3> on f16 is the 128B TMA swizzle too.
  CheckRun good = check_text("smem sB : f16 = Sw<3,3,3> o _0 o (_8,_64):(_64,_1) align 1024\n"
                             "tma load tb: sB box (64, 8) swizzle 128B\n"
                             "wgmma desc d: sB swizzle 128B major K\n");
  INFO(all_messages(good));
  CHECK(good.findings.empty());
}

TEST_CASE("LP008: every element a TMA box writes lands on an element of the buffer's layout", "[rules]") {
  // Rows padded to 72 f16: the box's second row starts at byte 128 (element 64), which is the
  // padding after row 0 (row 1 starts at element 72). By hand.
  CheckRun padded = check_text("smem sA : f16 = (_64,_64):(_72,_1) align 1024\ntma load sA box (64, 64) swizzle none\n");
  auto f = of_rule(padded, "LP008");
  REQUIRE(f.size() == 1);
  CHECK(f[0]->message == "TMA box of 'sA' writes element (0,1) to byte 128, where the layout has no element");
  CHECK(at(*f[0]) == std::pair<size_t, size_t>{2, 17});
  CHECK(cex<lp::rules::TmaBoxCex>(f[0]).coordinate == std::vector<int64_t>{0, 1});
  // A 64B-swizzled box of 16 f16 (32 bytes) pads each row to the 64-byte span (measured on an
  // H100): into a dense (16,16) tile its second row lands on byte 64, element 32, beyond row 1.
  CheckRun narrow = check_text("smem sN : f16 = Sw<2,4,3> o smem_ptr[16b](unset) o (_16,_16):(_16,_1) align 512\n"
                               "tma load sN box (16, 16) swizzle 64B\n");
  auto n = of_rule(narrow, "LP008");
  REQUIRE(n.size() == 1);
  CHECK(cex<lp::rules::TmaBoxCex>(n[0]).byte.value_or(0) >= 64);
  // What the hardware writes for the CUTLASS SW128 K-major atom tiled to 64x64 bf16, for a full
  // box, a half-width box (rows padded to 128 bytes) and a 3-D box of two 32-row slabs.
  CheckRun good = check_text("smem sB : bf16 = Sw<3,4,3> o smem_ptr[16b](unset) o (_64,_64):(_64,_1) align 1024\n"
                             "tma load sB box (64, 64) swizzle 128B\n"
                             "tma load sB box (32, 64) swizzle 128B\n"
                             "tma load sB box (64, 32, 2) swizzle 128B\n");
  INFO(all_messages(good));
  CHECK(good.findings.empty());
  size_t footprints = 0;
  for (const auto& o : good.obligations) footprints += o.description == "TMA box of 'sB' lands on the layout's elements" && o.passed;
  CHECK(footprints == 3);
}

TEST_CASE("LP005/LP007: tcgen05's 128B swizzle with 32-byte atoms is CuTe's Swizzle<2,5,2>", "[rules]") {
  // CuTe 4.2's UMMA::Layout_MN_SW128_32B_Atom_Bits (mma_traits_sm100.hpp:72), tf32 MN-major.
  const std::string atom = "smem s : tf32 = Sw<2,5,2> o smem_ptr[32b](unset) o (_32,_4):(_1,_32) align ";
  CheckRun good = check_text(atom + "512\ntcgen05 desc d: s swizzle 128B_base32B major MN\n");
  INFO(all_messages(good));
  CHECK(good.findings.empty());
  CheckRun plain = check_text(atom + "1024\ntcgen05 desc d: s swizzle 128B major MN\n");
  auto mismatch = of_rule(plain, "LP005");
  REQUIRE(mismatch.size() == 1);
  CHECK(mismatch[0]->message.find("uses the 128B swizzle (Sw<3,4,3> on byte addresses), but the layout of 's' has "
                                  "Sw<2,5,2>") != std::string::npos);
  // Its pattern repeats every 512 bytes (address bits 5..8).
  CheckRun low = check_text(atom + "256\ntcgen05 desc d: s swizzle 128B_base32B major MN\n");
  auto align = of_rule(low, "LP007");
  REQUIRE(align.size() == 1);
  CHECK(align[0]->message.find("repeats every 512 bytes") != std::string::npos);
}

TEST_CASE("LP006 byte-swizzle-on-elements (cutlass#2634)", "[rules]") {
  CheckRun bad = check_text("smem sB : f16 = Sw<3,4,3> o _0 o (_8,_64):(_64,_1) align 1024\n");
  auto f = of_rule(bad, "LP006");
  REQUIRE(f.size() == 1);
  CHECK(f[0]->severity == lp::Severity::Warning);
  CHECK(of_rule(check_text("smem sB : u8 = Sw<3,4,3> o _0 o (_8,_128):(_128,_1) align 1024\n"), "LP006").empty());
}

TEST_CASE("LP000 annotation-syntax: a malformed statement is a finding at its column", "[rules]") {
  CheckRun r = check_text("smem sE : f16 = (_64,_64):(_64,_1) align 1024 extra\n");
  auto f = of_rule(r, "LP000");
  REQUIRE(f.size() == 1);
  CHECK(at(*f[0]) == std::pair<size_t, size_t>{1, 47});
  CHECK(f[0]->kind == lp::rules::FindingKind::Invalid);
}

TEST_CASE("suppressions need the rule's name and silence exactly that rule on that statement", "[rules]") {
  const std::string bug = "smem sA : f16 = (_64,_64):(_64,_1) align 1024\n";
  const std::string acc = "access a1: sA ldmatrix.x4 lanes (_16,_2,_4,_4):(_1@0,_8@1,_16@0,_16@1)\n";
  CHECK(of_rule(check_text(bug + "allow bank-conflict \"epilogue only, measured at 1%\"\n" + acc), "LP002").empty());
  CHECK(of_rule(check_text(bug + "allow lp002 \"by id\"\n" + acc), "LP002").empty());
  CHECK(of_rule(check_text(bug + "allow layout-injective \"other rule\"\n" + acc), "LP002").size() == 1);
  CHECK(of_rule(check_text(bug + "allow bank-conflict \"only the next statement\"\nsmem sZ : f16 = (_8,_8):(_8,_1)\n" + acc),
                "LP002")
            .size() == 1);
}

TEST_CASE("an allow on the expectation that states the property counts", "[rules]") {
  const std::string base = "smem sA : f16 = (_64,_64):(_64,_1) align 1024\n"
                           "access a1: sA ldmatrix.x4 lanes (_16,_2,_4,_4):(_1@0,_8@1,_16@0,_16@1)\n";
  CHECK(of_rule(check_text(base + "expect a1 wavefronts <= 4 ; allow bank-conflict \"known, epilogue only\"\n"), "LP002").empty());
  CHECK(of_rule(check_text(base + "expect a1 wavefronts <= 4\n"), "LP002").size() == 1);
  // Buffer-level rules honour an allow on the buffer's declaration.
  CHECK(of_rule(check_text("allow swizzle-mismatch \"the descriptor is rebuilt per stage\"\n"
                           "smem sC : f16 = (_8,_64):(_64,_1) align 1024\nwgmma desc dc: sC swizzle 64B\n"),
                "LP005")
            .empty());
}

TEST_CASE("configured severities and unknowns", "[rules]") {
  const std::string text = "smem sA : f16 = (_64,_64):(_64,_1) align 1024\n"
                           "access a1: sA ldmatrix.x4 lanes (_16,_2,_4,_4):(_1@0,_8@1,_16@0,_16@1)\n";
  lp::rules::Config warn;
  warn.rule_severity["bank-conflict"] = lp::Severity::Warning;
  REQUIRE(of_rule(check_text(text, warn), "LP002").size() == 1);
  CHECK(of_rule(check_text(text, warn), "LP002")[0]->severity == lp::Severity::Warning);
  lp::rules::Config off;
  off.rule_severity["LP002"] = std::nullopt;
  CHECK(of_rule(check_text(text, off), "LP002").empty());
  // A proof the solver cannot finish is unknown: reported (and failing) by default, never proven.
  lp::rules::Config tiny;
  tiny.engine = lp::Engine::Enum;
  tiny.limits.max_enumeration = 16;
  CheckRun u = check_text("smem sX : f32 = (_64,_64):(_64,_1)\n", tiny);
  auto f = of_rule(u, "LP001");
  REQUIRE(f.size() == 1);
  CHECK(f[0]->kind == lp::rules::FindingKind::Unknown);
  CHECK(f[0]->severity == lp::Severity::Error);
  tiny.unknown_severity = std::nullopt;
  CHECK(check_text("smem sX : f32 = (_64,_64):(_64,_1)\n", tiny).findings.empty());
  // A rule that is off reports nothing, not even its unknowns.
  lp::rules::Config tiny_off;
  tiny_off.engine = lp::Engine::Enum;
  tiny_off.limits.max_enumeration = 16;
  tiny_off.rule_severity["layout-injective"] = std::nullopt;
  CHECK(check_text("smem sX : f32 = (_64,_64):(_64,_1)\n", tiny_off).findings.empty());
}

TEST_CASE("LP009: a cp.async.cg fill whose global sectors straddle shared sectors, and its fixes", "[rules]") {
  // The tile: 64 rows of 64 f16 padded to 72 (144 bytes), one warp's 16-byte copies of 4 rows
  // per instruction, 16 instructions. Worked by hand (hw/AsyncCopy.h; H100: 24 sectors measured for
  // rows 0-3): rows 1 and 3 start 16 bytes into a sector, so their 4 global sectors each land in 2
  // shared sectors: 4 + 8 + 4 + 8 = 24 where 16 carry the data; the first split is lanes 8 and 9.
  const std::string lanes = "lanes (_8,_4,_4,_4):(_8@1,_1@0,_4@0,_16@0)\n";
  CheckRun padded = check_text("smem K : f16 = (_64,_64):(_72,_1) align 1024\naccess g2s: K cp.async.cg.16 " + lanes);
  auto f = of_rule(padded, "LP009");
  REQUIRE(f.size() == 1);
  CHECK(at(*f[0]) == std::pair<size_t, size_t>{2, 1});
  CHECK(f[0]->severity == lp::Severity::Warning);
  CHECK(f[0]->message == "cp.async.cg.16 on 'K' moves 24 L2-to-SM sectors per instruction where its data needs 16");
  CHECK(cex<lp::rules::AsyncSectorCex>(f[0]).lanes == std::vector<int64_t>{8, 9});
  CHECK(cex<lp::rules::AsyncSectorCex>(f[0]).shared_sectors == std::vector<int64_t>{4, 5});
  // Over the 16 instructions, every other row is split: 16 x 24 = 384 sectors for 256.
  bool total = false;
  for (const auto& n : f[0]->notes) total |= n.message.find("384 sectors where 256 carry the data (1.50x)") != std::string::npos;
  CHECK(total);
  CHECK(of_rule(padded, "LP002").empty());  // the bank model has no conflict here
  // The fixes: a 32-byte pad (pitch 160) or the 128B swizzle; and .ca, whose data come through L1.
  for (const std::string& fixed : {"smem K : f16 = (_64,_64):(_80,_1) align 1024\naccess g2s: K cp.async.cg.16 " + lanes,
                                   "smem K : f16 = Sw<3,3,3> o _0 o (_64,_64):(_64,_1) align 1024\naccess g2s: K cp.async.cg.16 " + lanes,
                                   "smem K : f16 = (_64,_64):(_72,_1) align 1024\naccess g2s: K cp.async.ca.16 " + lanes}) {
    CheckRun run = check_text(fixed);
    INFO(fixed << "\n" << all_messages(run));
    CHECK(run.findings.empty());
  }
  // The retired name is a diagnostic at the instruction, naming the forms that replace it.
  CheckRun retired = check_text("smem K : f16 = (_64,_64):(_72,_1) align 1024\naccess g2s: K cp.async.16 " + lanes);
  auto d = of_rule(retired, "LP000");
  REQUIRE(d.size() == 1);
  CHECK(at(*d[0]) == std::pair<size_t, size_t>{2, 15});
  CHECK(d[0]->message.find("cp.async.ca.16 or cp.async.cg.16") != std::string::npos);
}
