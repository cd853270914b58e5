// The cubin side of the PTX front end: nvdisasm's listing read (against readelf's section sizes),
// the constant evaluator of SASS (against hand-computed values and IEEE half encodings), and the
// placement of shared variables read from a probe cubin (against the addresses an H200 reported
// for the same kernels, tests/data/sass/sm90_shared_placement.tsv, and against the unmodified
// cubin's section sizes).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <regex>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "frontend/ptx/MergedAccess.h"
#include "frontend/ptx/SharedPlacement.h"
#include "frontend/sass/SassConstants.h"
#include "frontend/sass/SassListing.h"
#include "analyzer/support/Process.h"
#include "replay/Process.h"
#include "support/Process.h"

namespace fs = std::filesystem;

namespace {

const std::string kData = LP_SOURCE_DIR "/tests/data/sass/";

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

lp::sass::Function function_of(const std::string& code) {
  const lp::sass::Listing l = lp::sass::read_listing("\t.section\t.text.k,\"ax\",@progbits\n" + code);
  REQUIRE(l.functions.size() == 1);
  return l.functions.front();
}

std::map<uint64_t, uint32_t> stores_of(const std::string& code, uint32_t cta = 0) {
  std::map<uint64_t, uint32_t> out;
  for (const lp::sass::ConstantStore& s : lp::sass::entry_constant_stores(function_of(code), cta)) out[s.address] = s.value;
  return out;
}

// kernel -> variable (as the source names it) -> byte, for one architecture of the measurements.
std::map<std::string, std::map<std::string, uint64_t>> measured(const std::string& arch) {
  std::map<std::string, std::map<std::string, uint64_t>> out;
  std::istringstream in(read_text(kData + "sm90_shared_placement.tsv"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream row(line);
    std::string a, kernel, variable;
    uint64_t byte = 0;
    row >> a >> kernel >> variable >> byte;
    if (a == arch) out[kernel][variable] = byte;
  }
  return out;
}

// Whether a PTX symbol is the source's variable: `dyn` itself, or a function's static
// `_ZZ<function>E<length><name>`.
bool names_variable(const std::string& symbol, const std::string& var) {
  const std::string suffix = "E" + std::to_string(var.size()) + var;
  return symbol == var || (symbol.size() > suffix.size() && symbol.compare(symbol.size() - suffix.size(), suffix.size(), suffix) == 0);
}

}  // namespace

TEST_CASE("SASS listing: functions, instructions, guards, source lines and shared sections as nvdisasm prints them", "[sass]") {
  const lp::sass::Listing l = lp::sass::read_listing(read_text(kData + "shared_placement_probe_sm_80.sass"));
  REQUIRE(l.functions.size() == 3);
  // readelf -S of the same cubin: .nv.shared.<kernel> sizes 0x1400, 0x12b0, 0x210 (no reserved prefix on sm_80).
  CHECK(l.shared_section_bytes.at("_Z10two_floatsPfPj") == 0x1400);
  CHECK(l.shared_section_bytes.at("_Z5mixedPdPj") == 0x12b0);
  CHECK(l.shared_section_bytes.at("_Z12with_dynamicPfPj") == 0x210);
  const lp::sass::Function* f = l.function("_Z10two_floatsPfPj");
  REQUIRE(f);
  REQUIRE(f->code.size() > 20);
  CHECK(f->code[0].offset == 0);
  CHECK(f->code[1].offset == 0x10);
  bool vector_store = false, guarded = false;
  for (const lp::sass::Instruction& i : f->code) {
    if (i.opcode == "STS.128") {
      vector_store = true;
      REQUIRE(i.source);
      CHECK(i.source->file.find("shared_placement.cu") != std::string::npos);
      CHECK(i.source->line == 18);  // reinterpret_cast<float4*>(b)[t] = ... in scripts/gpu/shared_placement.cu
      CHECK(i.operands.size() == 2);
    }
    if (i.guard) guarded = true;
  }
  CHECK(vector_store);
  CHECK(guarded);  // `if (t == 0) where[...] = ...`

  const lp::sass::Listing l90 = lp::sass::read_listing(read_text(kData + "shared_placement_probe_sm_90a.sass"));
  // sm_90's sections begin with the system's reserved 1 KB (readelf: 0x1800, 0x16b0, 0x610).
  CHECK(l90.shared_section_bytes.at("_Z10two_floatsPfPj") == 0x1800);
  CHECK(l90.shared_section_bytes.at("_Z5mixedPdPj") == 0x16b0);
  CHECK(l90.shared_section_bytes.at("_Z12with_dynamicPfPj") == 0x610);
  CHECK(l90.shared_section_bytes.count("reserved.0") == 0);

  CHECK_THROWS_WITH(lp::sass::read_listing("\t.section\t.text.k,\"ax\",@progbits\n        /*00zz*/ MOV R1, R2 ;\n"),
                    Catch::Contains("line 2 of the SASS listing"));
}

TEST_CASE("SASS constants: moves, sums, shifts, products and logic through registers, and nothing else", "[sass]") {
  // sm_90's shared window: the CTA's rank in its cluster above bit 24 (ULEA ..., 0x18).
  const std::string window =
      "/*0000*/ S2UR UR5, SR_CgaCtaId ;\n"
      "/*0010*/ UMOV UR4, 0x400 ;\n"
      "/*0020*/ ULEA UR6, UR5, UR4, 0x18 ;\n"
      "/*0030*/ UIADD3 UR4, UR4, 0x400, URZ ;\n"
      "/*0040*/ MOV R5, UR6 ;\n"
      "/*0050*/ VIADD R6, R5, 0x30 ;\n"
      "/*0060*/ IMAD.SHL.U32 R7, R6, 0x4, RZ ;\n"
      "/*0070*/ LOP3.LUT R8, R7, 0xff0, RZ, 0xc0, !PT ;\n"
      "/*0080*/ IMAD.IADD R9, R8, 0x1, -R5 ;\n"
      "/*0090*/ CS2R R2, SRZ ;\n"
      "/*00a0*/ STG.E.STRONG.SYS desc[UR8][R2.64+0x1000], R5 ;\n"
      "/*00b0*/ STG.E.STRONG.SYS desc[UR8][R2.64+0x1010], R9 ;\n"
      "/*00c0*/ STG.E [R2.64+0x1020], RZ ;\n";
  auto s = stores_of(window);
  CHECK(s.at(0x1000) == 0x400);
  // ((0x400 + 0x30) * 4) & 0xff0 = 0x10c0 & 0xff0 = 0xc0; 0xc0 - 0x400 (mod 2^32).
  CHECK(s.at(0x1010) == static_cast<uint32_t>(0xc0 - 0x400));
  CHECK(s.at(0x1020) == 0);
  CHECK(stores_of(window, 3).at(0x1000) == (3u << 24 | 0x400));

  // A register an unmodelled instruction writes is unknown afterwards, and so is each register of
  // a 64-bit or vector result.
  auto clobbered = stores_of(
      "/*0000*/ MOV R4, 0x400 ;\n"
      "/*0010*/ MOV R5, 0x800 ;\n"
      "/*0020*/ CS2R R2, SRZ ;\n"
      "/*0030*/ LDS.64 R4, [R0] ;\n"
      "/*0040*/ STG.E [R2.64+0x10], R5 ;\n"
      "/*0050*/ MOV R6, 0x40 ;\n"
      "/*0060*/ HMMA.16816.F32 R8, R12, R14, R8 ;\n"
      "/*0070*/ STG.E [R2.64+0x20], R6 ;\n"
      "/*0080*/ MOV R7, 0x40 ;\n"
      "/*0090*/ @P0 MOV R7, 0x80 ;\n"
      "/*00a0*/ STG.E [R2.64+0x30], R7 ;\n");
  CHECK(clobbered.empty());

  // A branch target or a branch ends the straight-line entry.
  CHECK(stores_of("/*0000*/ MOV R4, 0x400 ;\n/*0010*/ CS2R R2, SRZ ;\n.L_x_0:\n/*0020*/ STG.E [R2.64+0x10], R4 ;\n").empty());
  CHECK(stores_of("/*0000*/ MOV R4, 0x400 ;\n/*0010*/ CS2R R2, SRZ ;\n/*0020*/ @P0 BRA `(.L_x_1) ;\n"
                  "/*0030*/ STG.E [R2.64+0x10], R4 ;\n")
            .empty());
  // A store through an unknown address, or of an unknown value, is not a constant store.
  CHECK(stores_of("/*0000*/ MOV R4, 0x400 ;\n/*0010*/ STG.E [R2.64+0x10], R4 ;\n").empty());
  CHECK(stores_of("/*0000*/ CS2R R2, SRZ ;\n/*0010*/ S2R R4, SR_TID.X ;\n/*0020*/ STG.E [R2.64+0x10], R4 ;\n").empty());
}

TEST_CASE("SASS constants: HFMA2 of zeros and two exact half immediates is a 32-bit move", "[sass]") {
  // IEEE binary16: 1.0 = 0x3c00, 2^-14 = 0x0400 (smallest normal), 2^-24 = 0x0001 (smallest
  // subnormal), -2.0 = 0xc000, 65504 = 0x7bff (largest finite).
  auto s = stores_of(
      "/*0000*/ CS2R R2, SRZ ;\n"
      "/*0010*/ HFMA2.MMA R4, -RZ, RZ, 1, 6.103515625e-05 ;\n"
      "/*0020*/ HFMA2.MMA R5, -RZ, RZ, -2, 5.9604644775390625e-08 ;\n"
      "/*0030*/ HFMA2 R6, -RZ, RZ, 65504, 0 ;\n"
      "/*0040*/ HFMA2.MMA R7, -RZ, RZ, 0, 0.1 ;\n"
      "/*0050*/ HFMA2.MMA R8, R9, RZ, 0, 1 ;\n"
      "/*0060*/ STG.E [R2.64+0x10], R4 ;\n"
      "/*0070*/ STG.E [R2.64+0x20], R5 ;\n"
      "/*0080*/ STG.E [R2.64+0x30], R6 ;\n"
      "/*0090*/ STG.E [R2.64+0x40], R7 ;\n"
      "/*00a0*/ STG.E [R2.64+0x50], R8 ;\n");
  CHECK(s.at(0x10) == 0x3c000400u);
  CHECK(s.at(0x20) == 0xc0000001u);
  CHECK(s.at(0x30) == 0x7bff0000u);
  CHECK(s.count(0x40) == 0);  // 0.1 is no half
  CHECK(s.count(0x50) == 0);  // a product of an unknown register
}

TEST_CASE("shared placement: the probe of committed PTX, read from its cubin's listing, puts each variable where the H200 found it",
          "[sass]") {
  // nvcc 13.0's PTX of scripts/gpu/shared_placement.cu and nvdisasm's listing of its probe's cubin
  // (ptxas 13.0), both committed: the whole path but the two tools.
  for (const std::string arch : {"sm_90a", "sm_80"}) {
    INFO(arch);
    auto src = std::make_shared<lp::SourceText>();
    src->name = kData + "shared_placement_" + arch + ".ptx";
    src->text = read_text(src->name);
    const lp::ptx::Module m = lp::ptx::read_ptx(src);
    const lp::ptx::PlacementProbe probe = lp::ptx::placement_probe(m);
    CHECK(probe.skipped.empty());
    CHECK(probe.markers.size() == 8);
    // The probe is the module plus its markers: still PTX the reader accepts.
    auto probe_src = std::make_shared<lp::SourceText>();
    probe_src->name = "probe.ptx";
    probe_src->text = probe.ptx;
    CHECK_NOTHROW(lp::ptx::read_ptx(probe_src));
    const lp::sass::Listing listing = lp::sass::read_listing(read_text(kData + "shared_placement_probe_" + arch + ".sass"));
    const lp::ptx::SharedPlacement placed = lp::ptx::read_placement(m, probe, listing);
    CHECK(placed.unplaced.empty());
    // sm_90 windows begin with the system's 1 KB (readelf: the sections are 1 KB larger on sm_90a);
    // the H200 ran the sm_90a build. On sm_80 the same layout starts at 0.
    const uint64_t reserved = arch == "sm_90a" ? 0 : 1024;
    size_t compared = 0;
    for (const auto& [kernel, vars] : measured("sm_90a"))
      for (const auto& [var, byte] : vars)
        for (const auto& [ptx_kernel, offsets] : placed.offsets)
          if (ptx_kernel.find(std::to_string(kernel.size()) + kernel) != std::string::npos)
            for (const auto& [symbol, offset] : offsets)
              if (names_variable(symbol, var)) {
                INFO(kernel << " " << var);
                CHECK(offset == byte - reserved);
                ++compared;
              }
    CHECK(compared == 8);
    // Dynamic shared memory begins where the static section ends (readelf: 0x610 on sm_90a, 0x210 on sm_80).
    for (const auto& [ptx_kernel, offsets] : placed.offsets)
      if (offsets.count("dyn")) CHECK(offsets.at("dyn") == listing.shared_section_bytes.at(ptx_kernel));
    // The evaluator takes each placed base as that one value, aligned to its low zero bits.
    lp::ptx::EvalOptions options;
    options.placement = placed.offsets;
    lp::ptx::Analysis analysis;
    lp::ptx::analyze(m, options, analysis);
    size_t bases = 0;
    for (const lp::ptx::KernelResult& r : analysis.kernels)
      for (const lp::ptx::Site& site : r.sites) {
        if (!site.symbol_base || !site.symbol) continue;
        const lp::term::VarInfo& v = analysis.pool.var(*site.symbol_base);
        const uint64_t offset = placed.offsets.at(r.name).at(*site.symbol);
        INFO(r.name << " " << *site.symbol);
        CHECK(v.lo == offset);
        CHECK(v.hi == offset);
        CHECK(v.align_log2 == (offset == 0 ? 31 : __builtin_ctzll(offset)));
        ++bases;
      }
    CHECK(bases > 8);
  }
}

TEST_CASE("shared placement: check --cuda places each variable where the H200 found it, and keeps .align without a cubin",
          "[sass][nvcc]") {
  if (lp::replay::find_tool("nvcc").empty() || lp::replay::find_tool("nvdisasm").empty()) {
    WARN("nvcc or nvdisasm not found: the cubin's placement not exercised");
    return;
  }
  const std::string source = LP_SOURCE_DIR "/scripts/gpu/shared_placement.cu";
  auto r = lp::test::run_layoutproof({"check", "--no-cache", "--verbose", "--cuda", source, "--arch", "sm_90a"});
  // With the cubin's placement, b (a float array PTX aligns to 4, stored as float4) is aligned.
  CHECK(r.out.find("misaligned") == std::string::npos);
  for (const auto& [kernel, vars] : measured("sm_90a"))
    for (const auto& [var, byte] : vars) {
      const std::string shown = var == "dyn" ? "'dyn'" : "::" + var + "'";
      INFO(kernel << " " << var << "\n" << r.out);
      CHECK(r.out.find(shown + " at byte " + std::to_string(byte) + " ") != std::string::npos);
    }
  // Without nvdisasm the PTX's promise alone: b's 16-byte stores may be misaligned, and --verbose says why.
  setenv("LP_REPLAY_NVDISASM", "/nonexistent/nvdisasm", 1);
  r = lp::test::run_layoutproof({"check", "--no-cache", "--verbose", "--cuda", source, "--arch", "sm_90a"});
  unsetenv("LP_REPLAY_NVDISASM");
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("st.shared.v4.f32") != std::string::npos);
  CHECK(r.out.find("misaligned") != std::string::npos);
  CHECK(r.out.find("shared variables at any offset their .align allows: the cubin is not read: nvdisasm not found") !=
        std::string::npos);
  CHECK(r.out.find("shared-memory instructions judged at PTX level: the cubin is not read: nvdisasm not found") != std::string::npos);
}

TEST_CASE("shared placement: the probe's cubin has the unmodified cubin's shared sections and shared-memory instructions",
          "[sass][nvcc]") {
  const std::string ptxas = lp::replay::find_tool("ptxas"), nvdisasm = lp::replay::find_tool("nvdisasm");
  if (ptxas.empty() || nvdisasm.empty()) {
    WARN("ptxas or nvdisasm not found: the probe's faithfulness not exercised");
    return;
  }
  const fs::path dir = fs::temp_directory_path() / "lp_sass_probe";
  fs::create_directories(dir);
  for (const auto& [name, arch] : std::vector<std::pair<std::string, std::string>>{
           {"shared_placement_sm_90a", "sm_90a"}, {"shared_placement_sm_80", "sm_80"}, {"merged_loads_sm_90a", "sm_90a"}}) {
    INFO(name);
    auto src = std::make_shared<lp::SourceText>();
    src->name = kData + name + ".ptx";
    src->text = read_text(src->name);
    const lp::ptx::PlacementProbe probe = lp::ptx::placement_probe(lp::ptx::read_ptx(src));
    const std::string probe_ptx = (dir / "probe.ptx").string();
    std::ofstream(probe_ptx, std::ios::binary) << probe.ptx;
    lp::sass::Listing listings[2];
    int i = 0;
    for (const std::string& ptx : {src->name, probe_ptx}) {
      const std::string cubin = (dir / "k.cubin").string();
      REQUIRE(lp::run_process({ptxas, "-arch=" + arch, "-lineinfo", ptx, "-o", cubin}).exit_code == 0);
      const lp::ProcessResult listing = lp::run_process({nvdisasm, "-gp", cubin});
      REQUIRE(listing.exit_code == 0);
      listings[i++] = lp::sass::read_listing(listing.output);
    }
    CHECK(listings[0].shared_section_bytes.size() == 3);
    CHECK(listings[0].shared_section_bytes == listings[1].shared_section_bytes);
    // Each kernel's shared-memory instructions, with the module line they come from, in order.
    for (const lp::sass::Function& original : listings[0].functions) {
      const lp::sass::Function* probed = listings[1].function(original.name);
      REQUIRE(probed);
      auto shared = [](const lp::sass::Function& f, const std::function<std::optional<int>(int)>& line) {
        std::vector<std::pair<std::string, std::optional<int>>> out;
        for (const lp::sass::Instruction& ins : f.code)
          if (ins.opcode.rfind("LDS", 0) == 0 || ins.opcode.rfind("STS", 0) == 0)
            out.emplace_back(ins.opcode, ins.ptx_line ? line(*ins.ptx_line) : std::nullopt);
        return out;
      };
      const auto expected = shared(original, [](int l) { return std::optional<int>(l); });
      CHECK(!expected.empty());
      CHECK(shared(*probed, [&](int l) { return probe.original_line(l); }) == expected);
    }
  }
  fs::remove_all(dir);
}

namespace {

struct MergedFixture {
  std::shared_ptr<lp::SourceText> ptx = std::make_shared<lp::SourceText>();
  lp::ptx::Module module;
  lp::ptx::PlacementProbe probe;
  lp::sass::Listing listing;
  lp::ptx::Analysis analysis;

  // nvcc 13.0's PTX of scripts/gpu/PROGRAM.cu (sm_90a) and nvdisasm -gp's listing of its probe's
  // cubin; `edit` changes the PTX text (without changing its lines) before it is read.
  explicit MergedFixture(const std::function<void(std::string&)>& edit = {}, const std::string& program = "merged_loads") {
    ptx->name = program + "_sm_90a.ptx";
    ptx->text = read_text(kData + program + "_sm_90a.ptx");
    if (edit) edit(ptx->text);
    module = lp::ptx::read_ptx(ptx);
    probe = lp::ptx::placement_probe(module);
    listing = lp::sass::read_listing(read_text(kData + program + "_probe_sm_90a.sass"));
    lp::ptx::analyze(module, {}, analysis);
  }

  // kernel (as its name contains) -> each merge: its SASS and its members' PTX lines.
  std::map<std::string, std::vector<std::pair<std::string, std::vector<int>>>> merges() const {
    std::map<std::string, std::vector<std::pair<std::string, std::vector<int>>>> out;
    for (const lp::ptx::KernelResult& r : analysis.kernels) {
      const lp::sass::Function* code = listing.function(r.name);
      REQUIRE(code);
      for (const lp::ptx::MergedAccess& g :
           lp::ptx::merged_accesses(module, r, *code, [&](int line) { return probe.original_line(line); })) {
        std::vector<int> lines;
        for (size_t s : g.sites) lines.push_back(static_cast<int>(lp::line_col_of(*ptx, r.sites[s].origin.pos).first));
        out[r.name].push_back({g.sass, lines});
      }
    }
    for (auto& [kernel, groups] : out) std::sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    return out;
  }
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

}  // namespace

TEST_CASE("shared placement: every line of the probe maps back to the module's line with the same text", "[sass]") {
  const MergedFixture f;
  REQUIRE(f.probe.insertions.size() == 3);
  const std::vector<std::string> original = lines_of(f.ptx->text), probe = lines_of(f.probe.ptx);
  size_t markers = 0;
  for (size_t p = 1; p <= probe.size(); ++p) {
    const std::optional<int> line = f.probe.original_line(static_cast<int>(p));
    if (!line) {
      ++markers;
      continue;
    }
    INFO("probe line " << p << ": " << probe[p - 1]);
    REQUIRE(*line >= 1);
    REQUIRE(static_cast<size_t>(*line) <= original.size());
    // The line the markers were put into keeps its indentation on one line and its instruction on
    // the last: both are pieces of the original line.
    const std::string& text = probe[p - 1];
    const size_t start = text.find_first_not_of(" \t");
    if (start != std::string::npos) CHECK(original[static_cast<size_t>(*line) - 1].find(text.substr(start)) != std::string::npos);
  }
  // One register pair, two moves and the store per variable, three kernels of one variable each.
  CHECK(markers == 3 * 5);
}

TEST_CASE("merged accesses: the members of every LDS/STS ptxas widened, as the H200 measured them", "[sass]") {
  const MergedFixture f;
  const auto merges = f.merges();
  using G = std::vector<std::pair<std::string, std::vector<int>>>;
  // tests/data/sass/sm90_sass_ncu.tsv: each of these SASS instructions measured at the cost of the
  // merged access (rows_of_four 4/4, pairs_strided 16/2, rows_of_four_padded 8/4 per warp).
  CHECK(merges.at("_Z12rows_of_fourPf") == G{{"STS.128", {38, 42, 46, 50}}, {"LDS.128", {54, 55, 56, 57}}});
  CHECK(merges.at("_Z13pairs_stridedPf") == G{{"STS.64", {88, 92}}, {"LDS.64", {96, 97}}});
  CHECK(merges.at("_Z19rows_of_four_paddedPf") == G{{"STS.128", {128, 130, 132, 134}}, {"LDS.128", {138, 139, 141, 143}}});
  CHECK(lp::sass::access_bytes("LDS.U8") == 1);
  CHECK(lp::sass::access_bytes("LDS.S16") == 2);
  CHECK(lp::sass::access_bytes("STS") == 4);
  CHECK(lp::sass::access_bytes("LDS.U.64") == 8);
  CHECK(lp::sass::access_bytes("STS.128") == 16);
}

TEST_CASE("merged accesses: a store's line names the last of its members, and the addresses and the cover find the first",
          "[sass]") {
  // merged_rows: 32 stores [%r5+0] ... [%r5+124] and eight STS.128 [R2], [R2+0x10], ..., each
  // annotated with the PTX line of its last store. Four windows hold each annotated store; only
  // 0-15, 16-31, ... cover every store, as the SASS immediates (0x0, 0x10, ...) show. The loads'
  // lines name their first member. tests/data/sass/sm90_sass_ncu.tsv: all 16 measured at 32/4.
  const MergedFixture f({}, "merged_rows");
  const auto merges = f.merges().at("_Z8row_sumsPfPKf");
  REQUIRE(merges.size() == 16);
  for (size_t i = 0; i < 8; ++i) {
    INFO(i);
    const int first_store = 41 + 8 * static_cast<int>(i), first_load = 110 + 8 * static_cast<int>(i);
    CHECK(merges[i] == std::pair<std::string, std::vector<int>>{"STS.128", {first_store, first_store + 2, first_store + 4, first_store + 6}});
    CHECK(merges[8 + i] == std::pair<std::string, std::vector<int>>{"LDS.128", {first_load, first_load + 2, first_load + 4, first_load + 6}});
  }
  // One store fewer (its line's instruction gone from the PTX): the stores can no longer be covered
  // and none is taken for merged, while the loads still are.
  const MergedFixture missing(
      [](std::string& text) {
        const size_t at = text.find("st.shared.f32 \t[%r5+124]");
        REQUIRE(at != std::string::npos);
        text.replace(at, text.find(';', at) - at, "mov.f32 %f33, %f32");
      },
      "merged_rows");
  const auto partial = missing.merges().at("_Z8row_sumsPfPKf");
  CHECK(partial.size() == 8);
  CHECK(std::all_of(partial.begin(), partial.end(), [](const auto& g) { return g.first == "LDS.128"; }));
}

TEST_CASE("merged accesses: no group where the base register changes, a branch intervenes or a piece is missing", "[sass]") {
  // The base register %r4 rewritten between the first two stores (on an existing line, so the
  // listing's PTX lines still fit): those stores are no longer one access at one address, and only
  // the loads stay merged.
  const MergedFixture rewritten([](std::string& text) {
    const size_t at = text.find("add.s32 \t%r5, %r1, 1;");
    REQUIRE(at != std::string::npos);
    text.insert(at, "add.s32 %r4, %r4, 16; ");
  });
  CHECK(rewritten.merges().at("_Z12rows_of_fourPf") == std::vector<std::pair<std::string, std::vector<int>>>{{"LDS.128", {54, 55, 56, 57}}});
  // A label between the loads: control may enter between them.
  const MergedFixture labelled([](std::string& text) {
    const size_t at = text.find("ld.shared.f32 \t%f6, [%r4+4];");
    REQUIRE(at != std::string::npos);
    text.insert(at, "$L__lp_join: ");
  });
  CHECK(labelled.merges().at("_Z12rows_of_fourPf") == std::vector<std::pair<std::string, std::vector<int>>>{{"STS.128", {38, 42, 46, 50}}});
  // A load of another width in the run: the pieces no longer tile the merged access.
  const MergedFixture gap([](std::string& text) {
    const size_t at = text.find("ld.shared.f32 \t%f7, [%r4+8];");
    REQUIRE(at != std::string::npos);
    text.replace(at, std::string("ld.shared.f32 \t%f7, [%r4+8];").size(), ".reg .b16 %lp_rs; ld.shared.u16 \t%lp_rs, [%r4+8]; cvt.rn.f32.u16 %f7, %lp_rs;");
  });
  CHECK(gap.merges().at("_Z12rows_of_fourPf") == std::vector<std::pair<std::string, std::vector<int>>>{{"STS.128", {38, 42, 46, 50}}});
}

namespace {

// `check --cuda` on scripts/gpu/PROGRAM.cu against the rows of the H200's measurements for it: the
// obligation naming each SASS instruction's PTX line costs what Nsight Compute counted per warp.
// Returns the rows compared.
size_t compare_with_measurements(const std::string& program) {
  const auto r = lp::test::run_layoutproof({"check", "--no-cache", "--no-fold", "--format", "json", "--cuda",
                                            LP_SOURCE_DIR "/scripts/gpu/" + program + ".cu", "--arch", "sm_90a"});
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  std::istringstream in(read_text(kData + "sm90_sass_ncu.tsv"));
  size_t compared = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line.rfind(program + ".cu\t", 0) != 0) continue;
    std::vector<std::string> col;
    std::istringstream row(line);
    for (std::string c; std::getline(row, c, '\t');) col.push_back(c);
    const std::string ptx_line = col[3], sass = col[2];
    const int64_t wavefronts = std::stoll(col[4]), ideal = std::stoll(col[5]);
    INFO(program << ": " << sass << " at PTX line " << ptx_line);
    const std::regex names_line(sass + " \\(ptxas merged [0-9]+ [a-z.0-9]+, PTX lines [0-9, and]*\\b" + ptx_line + "\\b.*");
    bool found = false;
    for (const auto& o : doc["obligations"]) {
      const std::string d = o["description"];
      if (!std::regex_match(d, names_line) || d.find("conflict-free") == std::string::npos) continue;
      found = true;
      if (o["passed"].get<bool>()) {
        CHECK(wavefronts == ideal);
        CHECK(o["proof"]["wavefronts"] == wavefronts);
        CHECK(o["proof"]["ideal"] == ideal);
        continue;
      }
      const std::string what = d.substr(0, d.size() - std::string(" is conflict-free").size());
      bool reported = false;
      for (const auto& f : doc["findings"]) {
        const std::string message = f["message"];
        if (message.rfind(what, 0) != 0) continue;
        reported = true;
        CHECK(message.find(fmt::format("has bank conflicts: {} wavefronts where {} ", wavefronts, ideal)) != std::string::npos);
      }
      CHECK(reported);
    }
    CHECK(found);
    ++compared;
  }
  return compared;
}

}  // namespace

TEST_CASE("merged accesses: check --cuda costs each merged SASS instruction as the H200 measured it", "[sass][nvcc]") {
  if (lp::replay::find_tool("nvcc").empty() || lp::replay::find_tool("nvdisasm").empty()) {
    WARN("nvcc or nvdisasm not found: the SASS-level costs not exercised");
    return;
  }
  CHECK(compare_with_measurements("merged_loads") == 6);
  CHECK(compare_with_measurements("merged_rows") == 16);
}
