// The compilation-database reader (frontend/cuda/CompileDatabase.h) on the entries CMake and
// hand-written databases hold: the oracle is nvcc's own documentation of its options (nvcc --help)
// and clang's JSONCompilationDatabase format; the commands below are CMake 3.25's, as it writes
// them for CUDA targets with the Ninja generator (tests/data/cuda_project, configured).
#include <catch2/catch.hpp>

#include <memory>

#include "frontend/cuda/CompileDatabase.h"

namespace {

using lp::cuda::CompileUnit;
using Strings = std::vector<std::string>;

std::vector<CompileUnit> read(const std::string& json) {
  auto src = std::make_shared<lp::SourceText>();
  src->name = "compile_commands.json";
  src->text = json;
  return lp::cuda::read_compile_database(src);
}

// The diagnostic a malformed database gets, rendered ("file:line:col: error: ...").
std::string error_of(const std::string& json) {
  try {
    read(json);
  } catch (const lp::DiagnosticError& e) {
    return e.diagnostic().render();
  }
  return "no error";
}

}  // namespace

TEST_CASE("CMake's nvcc commands: flags kept in order, source, output and mode left out, each SASS architecture") {
  const auto units = read(R"([
{
  "directory": "/tmp/cp_build",
  "command": "/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -DTILE_PAD=1  --generate-code=arch=compute_80,code=[compute_80,sm_80] --generate-code=arch=compute_90a,code=[sm_90a] -x cu -c /p/src/transpose.cu -o CMakeFiles/transpose.dir/src/transpose.cu.o",
  "file": "/p/src/transpose.cu"
},
{
  "directory": "/p/build",
  "command": "/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -I/p/include -isystem /usr/local/cuda/include -O3 -DNDEBUG -std=c++17 -MD -MT x.o -MF x.o.d -x cu -c ../src/rowsum.cu -o x.o",
  "file": "../src/rowsum.cu"
},
{ "directory": "/tmp/cp_build", "file": "/p/src/host.cpp", "command": "/usr/bin/c++ -c /p/src/host.cpp -o host.o" }
])");
  REQUIRE(units.size() == 2);  // the C++ entry is not a CUDA unit
  CHECK(units[0].file == "/p/src/transpose.cu");
  CHECK(units[0].directory == "/tmp/cp_build");
  CHECK(units[0].compiler == "/usr/local/cuda/bin/nvcc");
  CHECK(units[0].flags == Strings{"-forward-unknown-to-host-compiler", "-DTILE_PAD=1", "-x", "cu"});
  CHECK(units[0].archs == Strings{"sm_80", "sm_90a"});
  CHECK(units[0].notes.empty());
  // A relative file is relative to the directory; dependency-file options and their values go.
  CHECK(units[1].file == "/p/src/rowsum.cu");
  CHECK(units[1].flags == Strings{"-forward-unknown-to-host-compiler", "-I/p/include", "-isystem", "/usr/local/cuda/include",
                                  "-O3", "-DNDEBUG", "-std=c++17", "-x", "cu"});
  CHECK(units[1].archs.empty());  // nvcc's default architecture
  CHECK(units[1].where.offset > units[0].where.offset);
}

TEST_CASE("nvcc's architecture options in every spelling") {
  auto archs = [](const std::string& options) {
    const auto units =
        read(R"([{"directory": "/b", "file": "/s/k.cu", "command": "nvcc )" + options + R"( -c /s/k.cu -o k.o"}])");
    REQUIRE(units.size() == 1);
    return units[0].archs;
  };
  CHECK(archs("-arch=sm_86") == Strings{"sm_86"});
  CHECK(archs("-arch sm_90a") == Strings{"sm_90a"});
  CHECK(archs("--gpu-architecture=compute_80") == Strings{"sm_80"});  // PTX only: the driver compiles it for sm_80 and up
  CHECK(archs("-arch=compute_80 -code=sm_80,sm_86") == Strings{"sm_80", "sm_86"});
  CHECK(archs("-gencode arch=compute_75,code=sm_75 -gencode=arch=compute_90,code=\\\"sm_90,compute_90\\\"") ==
        Strings{"sm_75", "sm_90"});
  CHECK(archs("--generate-code arch=compute_100a,code=[sm_100a] --generate-code=arch=compute_80,code=compute_80") ==
        Strings{"sm_100a", "sm_80"});
  CHECK(archs("-arch=sm_80 -arch=sm_80") == Strings{"sm_80"});
  const auto native =
      read(R"([{"directory": "/b", "file": "/s/k.cu", "arguments": ["nvcc", "-arch=native", "-G", "-c", "/s/k.cu"]}])");
  REQUIRE(native.size() == 1);
  CHECK(native[0].archs.empty());
  REQUIRE(native[0].notes.size() == 2);
  CHECK(native[0].notes[0].find("-arch=native names no architecture") != std::string::npos);
  CHECK(native[0].notes[1].find("-G (device debug) is left out") != std::string::npos);
  CHECK(native[0].flags.empty());
}

TEST_CASE("The arguments array, shell quoting in a command, and repeated entries") {
  const auto units = read(R"([
{"directory": "/b", "file": "/s/a b.cu", "arguments": ["nvcc", "-DNAME=\"x y\"", "-Xcompiler", "-fPIC", "/s/a b.cu", "--output-file", "a.o"]},
{"directory": "/b", "file": "/s/c.cu", "command": "nvcc '-DGREETING=hello world' -DQ=\"a\\\"b\" -I\\ spaced /s/c.cu -o=c.o"},
{"directory": "/b", "file": "/s/c.cu", "command": "nvcc '-DGREETING=hello world' -DQ=\"a\\\"b\" -I\\ spaced /s/c.cu -o=c.o"},
{"directory": "/b", "file": "/s/c.cu", "command": "nvcc -DOTHER /s/c.cu -o c2.o"}
])");
  REQUIRE(units.size() == 3);  // the same command for the same file is one unit; other flags another
  CHECK(units[0].flags == Strings{"-DNAME=\"x y\"", "-Xcompiler", "-fPIC"});
  CHECK(units[1].flags == Strings{"-DGREETING=hello world", "-DQ=a\"b", "-I spaced"});
  CHECK(units[2].flags == Strings{"-DOTHER"});
}

TEST_CASE("clang compiling CUDA: preprocessor and language options and its GPU architectures") {
  const auto units = read(R"([{"directory": "/b", "file": "/s/k.cu",
    "command": "clang++ -x cuda --cuda-gpu-arch=sm_80 --offload-arch=sm_90 -I inc -DX=1 -std=c++20 -O2 -fPIC -c /s/k.cu -o k.o"}])");
  REQUIRE(units.size() == 1);
  CHECK(units[0].flags == Strings{"-I", "inc", "-D", "X=1", "-std=c++20"});
  CHECK(units[0].archs == Strings{"sm_80", "sm_90"});
  REQUIRE(units[0].notes.size() == 1);
  CHECK(units[0].notes[0].find("compiled by clang++, not nvcc") != std::string::npos);
}

TEST_CASE("split_command_line follows the shell's quoting") {
  using lp::cuda::split_command_line;
  CHECK(split_command_line("  a  'b c' \"d \\\" e\" f\\ g \"\\n\"") == Strings{"a", "b c", "d \" e", "f g", "\\n"});
  CHECK(split_command_line("x''y \"\"") == Strings{"xy", ""});
  CHECK(split_command_line("a 'open") == std::nullopt);
  CHECK(split_command_line("a \"open") == std::nullopt);
}

TEST_CASE("A malformed database gets a located diagnostic") {
  CHECK(error_of("[{\"directory\": \"/b\",\n  \"file\": }]").find("compile_commands.json:2:11: error: not JSON") == 0);
  CHECK(error_of("{}").find("compile_commands.json:1:1: error: expected a compilation database") == 0);
  CHECK(error_of("[\n  {\"file\": \"/a.cu\", \"command\": \"nvcc\"}]").find("compile_commands.json:2:3: error: entry 1 has no \"directory\" string") == 0);
  CHECK(error_of("[{\"directory\": \"/b\", \"file\": \"/a.cu\", \"command\": \"nvcc\"},\n 7]")
            .find("compile_commands.json:2:2: error: expected an entry") == 0);
  CHECK(error_of("[{\"directory\": \"/b\", \"file\": \"/a.cu\"}]").find("entry 1 has neither an \"arguments\" array nor a \"command\" string") !=
        std::string::npos);
  CHECK(error_of("[{\"directory\": \"/b\", \"file\": \"/a.cu\", \"arguments\": []}]").find("non-empty array of strings") != std::string::npos);
  CHECK(error_of("[{\"directory\": \"/b\", \"file\": \"/a.cu\", \"arguments\": [\"nvcc\", 3]}]").find("non-empty array of strings") !=
        std::string::npos);
  CHECK(error_of("[{\"directory\": \"/b\", \"file\": \"/a.cu\", \"command\": \"nvcc '-DX\"}]").find("quote that is not closed") !=
        std::string::npos);
  CHECK(error_of("[{\"directory\": \"/b\", \"file\": \"/a.cu\", \"arguments\": [\"\", \"/a.cu\"]}]").find("its compiler, is empty") !=
        std::string::npos);
  CHECK(error_of("[6666e3333]").find("compile_commands.json:1:1: error: not JSON: number overflow") == 0);
  CHECK(error_of("[]") == "no error");
}
