#include "Fixtures.h"

#include <fmt/format.h>

#include <stdexcept>

namespace lp::report::test {

std::shared_ptr<const SourceText> source(std::string name, std::string text) {
  auto s = std::make_shared<SourceText>();
  s->name = std::move(name);
  s->text = std::move(text);
  return s;
}

SourceLoc at(const std::shared_ptr<const SourceText>& src, const std::string& needle) {
  size_t off = src->text.find(needle);
  if (off == std::string::npos) throw std::logic_error("fixture: '" + needle + "' not in " + src->name);
  return {src, off};
}

Finding finding(std::string rule, SourceLoc loc, std::string message, Severity severity) {
  Finding f;
  f.rule_id = std::move(rule);
  f.severity = severity;
  f.loc = std::move(loc);
  f.message = std::move(message);
  return f;
}

CheckRun sample_run() {
  auto gemm = source("kernels/gemm.cu",
                     "// gemm kernel\n"
                     "// layoutproof: layout sA = smem bf16 (64,64):(64,1)\n"
                     "// layoutproof: access ldmatrix.x4 sA\n"
                     "__global__ void k() {}\n");
  auto attn = source("kernels/attn.py",
                     "# layoutproof: tma load sK box (64,128) swizzle 128B\n"
                     "# layoutproof: expect injective sQ\n");
  CheckRun run;
  run.tool_version = "0.1.0";
  run.files = {"kernels/gemm.cu", "kernels/attn.py", "kernels/empty.cu"};
  run.rules = {
      {"LP002", "bank-conflict", "Shared-memory access is bank-conflict free",
       "Every warp-wide shared-memory access an annotation declares is served in the minimum number of wavefronts.",
       "docs/rules/LP002.md", Severity::Error, {"banks", "smem"}},
      {"LP001", "injectivity", "Layout is injective", "No two coordinates of the layout map to the same offset.",
       "docs/rules/LP001.md", Severity::Error, {}},
      {"LP005", "tma-box", "TMA box fits the swizzle span",
       "The inner box dimension of a swizzled TMA copy is at most the swizzle span.", "docs/rules/LP005.md",
       Severity::Warning, {"tma", "swizzle"}},
      {"LP004", "base-alignment", "Base alignment covers the swizzle period",
       "A swizzled buffer is aligned to at least its swizzle period.", "docs/rules/LP004.md", Severity::Error, {}},
  };

  Finding conflict;
  conflict.rule_id = "LP002";
  conflict.severity = Severity::Error;
  conflict.loc = at(gemm, "access");
  conflict.message = "ldmatrix.x4 reads of sA are 8-way bank conflicted";
  conflict.notes = {{{}, "lanes 0 and 8 read bank 0 at byte addresses 0x0 and 0x80"}};
  rules::BankConflictCex cex;
  cex.lanes = {0, 8};
  cex.bank = 0;
  cex.addresses = {0, 128};
  cex.wavefronts = 8;
  cex.ideal = 1;
  cex.instruction = "ldmatrix.x4";
  cex.arch = "sm_90";
  conflict.counterexample = cex;
  conflict.trace = {{at(gemm, "layout sA"), "sA rows are 128 bytes apart"},
                    {at(gemm, "ldmatrix"), "ldmatrix.x4 lanes 0-7 read one row each"}};
  conflict.fingerprint = "LP002:kernels/gemm.cu:access ldmatrix.x4 sA";

  Finding unknown;
  unknown.rule_id = "LP001";
  unknown.severity = Severity::Error;
  unknown.kind = FindingKind::Unknown;
  unknown.loc = at(gemm, "layout sA");
  unknown.message = "injectivity of sA not decided within 10 s";
  unknown.fingerprint = "LP001:kernels/gemm.cu:layout sA = smem bf16 (64,64):(64,1)";

  Finding box;
  box.rule_id = "LP005";
  box.severity = Severity::Warning;
  box.loc = at(attn, "box");
  box.message = "TMA box of sK is 256 bytes wide, wider than the 128-byte swizzle span";
  box.notes = {{at(attn, "(64,128)"), "inner box dimension: 128 x bf16 = 256 bytes"}};
  box.counterexample = rules::TmaBoxCex{{128, 64}, 2, "128B", std::nullopt, std::nullopt};
  box.fingerprint = "LP005:kernels/attn.py:tma load sK box (64,128) swizzle 128B";

  Finding invalid;
  invalid.rule_id = "LP000";
  invalid.severity = Severity::Error;
  invalid.kind = FindingKind::Invalid;
  invalid.loc = at(attn, "sQ");
  invalid.message = "'sQ' is not a declared buffer";
  invalid.fingerprint = "LP000:kernels/attn.py:expect injective sQ";

  run.findings = {conflict, unknown, box, invalid};
  run.obligations = {
      {"LP002", at(gemm, "access"), "sA: ldmatrix.x4 access is conflict-free", false, 12.5, std::nullopt},
      {"LP005", at(attn, "box"), "sK: TMA box fits the swizzle span", false, 1.0, std::nullopt},
      {"LP001", at(gemm, "layout sA"), "sA is injective", false, 10000.0, std::nullopt},
      {"LP004", at(gemm, "layout sA"), "sA: base alignment covers the swizzle period", true, 0.5, std::nullopt},
      {"LP002", at(attn, "tma"), "sK: TMA writes are conflict-free", true, 2.0, std::nullopt},
  };
  return run;
}

CheckRun hostile_run() {
  using namespace std::string_literals;
  auto weird = source("dir with space/b\\a#d%20\xC3\xA9\x01\x1B[31m<&>\".cu",
                      "// \xC3\xA9t\xC3\xA9 \xF0\x9D\x94\xB8 <tag attr=\"x\"> & ]]> \x01\x02\x1B[2J\x7F \xFF\xFE\xEF\xBF\xBE\r\n"
                      "\t// layoutproof: layout s\"A\" = (4,4):(1,4)\0tail\n"s);
  auto abs = source("/abs/path/k\xE2\x82\xAC.cu", "// layoutproof: x\n");
  CheckRun run;
  run.tool_version = "0.1.0-dev+<&>";
  run.files = {weird->name, abs->name, "./rel/./x.cu"};
  run.rules = {{"LP<&>\"'", "weird-rule", "short \"<&>\"\n\x01", "full \xFF\xFE\n]]>", "https://example.invalid/r?a=1&b=<2>",
                Severity::Note, {"t<&>", "\xC3\xA9"}}};

  Finding f;
  f.rule_id = "LP<&>\"'";
  f.severity = Severity::Note;
  f.loc = at(weird, "&");
  f.message = "quote \" apos ' lt < gt > amp & cdata-end ]]> newline\nCR\r tab\t ctrl \x01\x1B[31m nul "s + '\0' +
              " del \x7F bad \xFF\xC0\x80 \xED\xA0\x80 nonchar \xEF\xBF\xBF euro \xE2\x82\xAC astral \xF0\x9D\x94\xB8";
  f.notes = {{at(weird, "\xF0\x9D\x94\xB8"), "note with </failure> and \x1B]0;title\x07"},
             {{}, "note without location & <x>"}};
  f.counterexample = rules::SwizzleMismatchCex{"\xFF\x01<&>\"", "k\"<", "]]> \x1B[31m"};
  f.trace = {{at(weird, "layoutproof"), "step \"1\" <a>\n"}, {{}, ""}};
  f.fingerprint = "fp \"<&>\"\n\x01";
  Finding g = f;
  g.kind = FindingKind::Unknown;
  g.severity = Severity::Warning;
  g.rule_id = "";
  g.loc = at(weird, "tail");
  g.message = "";
  Finding h;
  h.rule_id = "LP9";
  h.loc = at(abs, "x");
  h.message = "absolute path";
  Finding nowhere;
  nowhere.rule_id = "LP9";
  nowhere.message = "no location at all";
  run.findings = {f, g, h, nowhere};
  run.obligations = {{"LP<&>\"'", at(weird, "&"), "desc \"<&>\" \x01\n"s + '\0', false, 1.25},
                     {"LP9", {}, "obligation without location", true, 0, std::nullopt}};
  return run;
}

CheckRun compiled_run() {
  auto header = source("include/row_sum.cuh", "template <int N> __global__ void row_sum(float* out) {\n  tile[threadIdx.x][c] = 0;\n}\n");
  auto ptx = source("<PTX of src/a.cu for sm_90>", "\tst.shared.f32 [%r5], %f1;\n");
  CheckRun run;
  run.tool_version = "0.1.0";
  run.files = {"src/a.cu"};
  run.rules = {{"LP002", "bank-conflict", "Shared-memory access is bank-conflict free", "", "docs/rules/LP002.md",
                Severity::Error, {"banks", "ptx"}}};
  auto conflict = [&](const std::string& kernel, int line, int wavefronts, Severity severity) {
    const std::string instruction = fmt::format("st.shared.f32 (PTX line {})", line);
    Finding f = finding("LP002", at(header, "tile"),
                        fmt::format("{} has bank conflicts: {} wavefronts where 1 is ideal", instruction, wavefronts), severity);
    f.notes = {{{}, fmt::format("lanes 0 and 1 access bank {}", line % 32)}, {at(ptx, "st.shared"), "the PTX instruction"}};
    f.fingerprint = fmt::format("LP002:{}:{}", kernel, line);
    f.compiled = {rules::CompiledInstance{kernel, instruction, "st.shared.f32", "<PTX of src/a.cu for sm_90>", line}};
    return f;
  };
  run.findings = {conflict("void row_sum<32>(float*)", 41, 32, Severity::Error),
                  conflict("void row_sum<32>(float*)", 43, 32, Severity::Error),
                  conflict("void row_sum<32>(float*)", 45, 16, Severity::Error),
                  conflict("void row_sum<64>(float*)", 207, 32, Severity::Error),
                  conflict("void row_sum<64>(float*)", 209, 32, Severity::Warning),
                  finding("LP002", at(header, "tile"), "st.shared.f32 (PTX line 41) has bank conflicts: 32 wavefronts where 1 is ideal")};
  return run;
}

}  // namespace lp::report::test
