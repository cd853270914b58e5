// The PTX reader on hostile and malformed input: every error is one located diagnostic (line,
// column, what was expected), never a crash, a hang or a partial module; limits hold.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "frontend/ptx/PtxEval.h"

namespace {

lp::ptx::Module read(const std::string& text, const lp::ptx::ReadLimits& limits = {}) {
  auto src = std::make_shared<lp::SourceText>();
  src->name = "t.ptx";
  src->text = text;
  return lp::ptx::read_ptx(src, limits);
}

// The diagnostic reading `text` gives: "line:col: message".
std::string error_of(const std::string& text, const lp::ptx::ReadLimits& limits = {}) {
  try {
    read(text, limits);
  } catch (const lp::DiagnosticError& e) {
    auto [line, col] = e.diagnostic().line_col();
    return std::to_string(line) + ":" + std::to_string(col) + ": " + e.diagnostic().message;
  }
  return "no error";
}

const std::string kHead = ".version 8.0\n.target sm_80\n.address_size 64\n";

std::string kernel(const std::string& body) {
  return kHead + ".visible .entry k(\n.param .u64 p\n)\n{\n.reg .b32 %r<4>;\n.reg .pred %p<2>;\n" + body + "ret;\n}\n";
}

}  // namespace

TEST_CASE("ptx reader: a well-formed kernel is read with its registers, labels and shared symbols", "[ptx]") {
  const auto m = read(kHead + ".shared .align 16 .b8 buf[256];\n.extern .shared .align 16 .b8 dyn[];\n" +
                      ".visible .entry k(.param .u64 p) .reqntid 64, 2, 1\n{\n.reg .b32 %r<4>;\n.reg .b32 tmp;\n.reg .pred %p<2>;\n"
                      "mov.u32 %r1, %tid.x;\nL1:\n@!%p1 bra L1;\nmov.u32 tmp, %r1;\nret;\n}\n");
  REQUIRE(m.functions.size() == 1);
  const auto& f = m.functions[0];
  CHECK(f.is_entry);
  CHECK(f.reqntid == std::array<int64_t, 3>{64, 2, 1});
  CHECK(f.reg_type("%r3")->bits == 32);
  CHECK(!f.reg_type("%r4"));
  CHECK(f.reg_type("tmp"));
  CHECK(f.labels.at("L1") == 1);
  REQUIRE(m.shared.size() == 2);
  CHECK(m.shared[0].bytes == 256);
  CHECK(m.shared[0].align == 16);
  CHECK(!m.shared[1].bytes);
  CHECK(f.body[1].guard->negated);
}

TEST_CASE("ptx reader: malformed input is one located diagnostic", "[ptx]") {
  // Line numbers count the 3-line header and the 6 lines before the body.
  CHECK(error_of(kernel("frobnicate.u32 %r1, %r2;\n")) == "10:1: unknown instruction 'frobnicate.u32'");
  CHECK(error_of(kernel("add.u32 %r1, %r9, 1;\n")) == "10:14: use of undeclared register '%r9'");
  CHECK(error_of(kernel("bra NOWHERE;\n")) == "10:5: branch to undefined label 'NOWHERE'");
  CHECK(error_of(kernel("add.u32 %r1, %r2 1;\n")) == "10:18: expected ';', found '1'");
  CHECK(error_of(kernel("mov.u32 %r1, 0fXYZ;\n")).find("malformed floating-point literal") != std::string::npos);
  CHECK(error_of(kernel("mov.u32 %r1, 99999999999999999999999;\n")).find("does not fit in 64 bits") != std::string::npos);
  CHECK(error_of(kHead + ".visible .entry k()\n{\nret;\n") == "5:1: unterminated function body: expected '}'");
  CHECK(error_of(kHead + ".visible .entry k(\n") == "5:1: expected '.param', found the end of the file");
  CHECK(error_of(kHead + "garbage\n") == "4:1: expected a directive (.version, .target, .entry, .func, a variable), found 'garbage'");
  CHECK(error_of(kernel("/* never closed\n")) == "10:1: unterminated comment: expected '*/'");
  CHECK(error_of(std::string("\x7f\x45LF\0\0", 6)).find("expected a directive") != std::string::npos);
}

TEST_CASE("ptx reader: truncation at every byte never crashes and never reads a partial module", "[ptx]") {
  const std::string full = kernel("mov.u32 %r1, %tid.x;\nshl.b32 %r2, %r1, 2;\nst.shared.u32 [%r2], %r1;\n");
  REQUIRE(error_of(full) == "no error");
  int errors = 0;
  for (size_t n = 0; n < full.size(); ++n) {
    const std::string e = error_of(full.substr(0, n));
    if (e != "no error") ++errors;
  }
  CHECK(errors > static_cast<int>(full.size()) / 2);
}

TEST_CASE("ptx reader: limits on size, nesting, instructions and register ranges", "[ptx]") {
  lp::ptx::ReadLimits small;
  small.max_bytes = 100;
  CHECK(error_of(kernel(""), small).find("larger than the 100 bytes the reader accepts") != std::string::npos);
  CHECK(error_of(kernel(std::string(100, '{') + std::string(100, '}'))).find("blocks nested more than 64 deep") != std::string::npos);
  lp::ptx::ReadLimits few;
  few.max_instructions = 3;
  CHECK(error_of(kernel("mov.u32 %r1, 1;\nmov.u32 %r1, 1;\nmov.u32 %r1, 1;\n"), few).find("more than 3 instructions") != std::string::npos);
  CHECK(error_of(kHead + ".visible .entry k()\n{\n.reg .b32 %r<99999999999>;\nret;\n}\n").find("register count must be in") != std::string::npos);
}

TEST_CASE("ptx evaluator: a call cycle and an indirect branch leave the kernel unanalysed with a reason", "[ptx]") {
  const auto m = read(kHead + ".func f()\n{\ncall.uni f, ();\nret;\n}\n.visible .entry k()\n{\ncall.uni f, ();\nret;\n}\n");
  lp::ptx::Analysis a;
  lp::ptx::analyze(m, {}, a);
  REQUIRE(a.kernels.size() == 1);
  REQUIRE(a.kernels[0].issues.size() == 1);
  CHECK(a.kernels[0].issues[0].message.find("a recursive call") != std::string::npos);
  const auto b = read(kHead + ".visible .entry k()\n{\n.reg .b32 %r<2>;\nmov.u32 %r1, %tid.x;\nts: .branchtargets L1, L2;\n"
                               "brx.idx %r1, ts;\nL1:\nret;\nL2:\nret;\n}\n");
  lp::ptx::Analysis c;
  lp::ptx::analyze(b, {}, c);
  REQUIRE(c.kernels.size() == 1);
  REQUIRE(c.kernels[0].issues.size() == 1);
  CHECK(c.kernels[0].issues[0].message.find("an indirect branch (brx.idx)") != std::string::npos);
}

TEST_CASE("ptx reader: every special register and predefined identifier of the ISA is read, nothing else", "[ptx]") {
  std::ifstream in(LP_SOURCE_DIR "/tests/data/ptx/isa_special_registers.txt");
  REQUIRE(in.good());
  int names = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const std::string name = line.substr(0, line.find(' ')), type = line.substr(line.find(' ') + 1);
    const std::string dst = type == "pred" ? "%p1" : type == "u64" ? "%rd1" : "%r1";
    const std::string text = kHead + ".visible .entry k()\n{\n.reg .pred %p<2>;\n.reg .b32 %r<2>;\n.reg .b64 %rd<2>;\nmov." +
                             type + " " + dst + ", " + name + ";\nret;\n}\n";
    INFO(name);
    CHECK(error_of(text) == "no error");
    lp::ptx::Analysis a;
    lp::ptx::analyze(read(text), {}, a);
    REQUIRE(a.kernels.size() == 1);
    CHECK(a.kernels[0].issues.empty());
    ++names;
  }
  CHECK(names == 110);
  // Names PTX does not define stay undeclared identifiers.
  for (const char* bad : {"%envreg32", "%pm8", "%pm8_64", "%pm01", "%tid.q", "%laneid.x", "%smid.w", "%WARP_SZ", "%envreg"}) {
    INFO(bad);
    const std::string text = kHead + ".visible .entry k()\n{\n.reg .b32 %r<2>;\nmov.u32 %r1, " + bad + ";\nret;\n}\n";
    CHECK(error_of(text).find("undeclared") != std::string::npos);
  }
}

TEST_CASE("ptx evaluator: the unused fourth element of a vector special register reads 0, WARP_SZ 32", "[ptx]") {
  const std::string text = kHead +
                           ".visible .entry k()\n{\n.reg .b32 %r<6>;\n.shared .align 4 .b8 s[1024];\n"
                           "mov.u32 %r1, %tid.w;\nmov.u32 %r2, %ntid.w;\nadd.s32 %r3, %r1, %r2;\nmov.u32 %r4, WARP_SZ;\n"
                           "add.s32 %r5, %r3, %r4;\nst.shared.u32 [%r5], %r1;\nret;\n}\n";
  lp::ptx::Analysis a;
  lp::ptx::analyze(read(text), {}, a);
  REQUIRE(a.kernels.size() == 1);
  REQUIRE(a.kernels[0].sites.size() == 1);
  CHECK(a.pool.const_value(a.kernels[0].sites[0].address) == 32u);
}
