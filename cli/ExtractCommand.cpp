// `layoutproof extract PROBE.cpp [-I DIR...] [--cxx g++] [--emit FILE]`: compiles a host-only CuTe
// probe (include/layoutproof/cute.hpp, docs/cute.md) with the host compiler, runs it, and checks
// the annotations it writes exactly as `check` checks a file. Nothing is proven from a probe that
// does not compile, does not finish, fails, or writes anything but annotations: each is a located
// error and exit 2.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "frontend/annotate/AnnotationParser.h"
#include "analyzer/support/Process.h"
#include "analyzer/support/ReadFile.h"
#include "cli/Command.h"
#include "replay/Process.h"
#include "report/Report.h"
#include "rules/Checker.h"

namespace lp::cli {

namespace fs = std::filesystem;

namespace {

// What a compiler and a probe may print, and the annotations a probe may write (the scanner's
// own file limit).
constexpr size_t kMaxToolOutput = size_t{1} << 20;
constexpr uintmax_t kMaxEmittedBytes = kMaxSourceFileBytes;
// The host compiler may write no file larger (the probe binary, its temporaries).
constexpr uint64_t kMaxCompilerFileBytes = uint64_t{1} << 30;

// A clang-style error at a place in a file we do not show (the probe, or the emitted file).
void located_error(const std::string& file, int64_t line, const std::string& message) {
  std::cerr << fmt::format("{}:{}:1: error: {}\n", file, line, message);
}

// The directory holding layoutproof/cute.hpp: next to an installed binary (PREFIX/include), else
// the source tree this binary was built from.
std::optional<std::string> companion_include_dir() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  std::vector<fs::path> candidates;
  if (!ec) candidates.push_back(self.parent_path().parent_path() / "include");
#ifdef LP_SOURCE_INCLUDE_DIR
  candidates.emplace_back(LP_SOURCE_INCLUDE_DIR);
#endif
  for (const fs::path& c : candidates)
    if (fs::exists(c / "layoutproof" / "cute.hpp", ec)) return c.string();
  return std::nullopt;
}

// The CUDA toolkit's headers, which CuTe's host headers include (cuda_runtime_api.h, and CCCL's).
std::vector<std::string> cuda_include_dirs() {
  std::vector<fs::path> roots;
  for (const char* env : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* v = std::getenv(env); v && *v) roots.emplace_back(v);
  if (std::string nvcc = replay::find_tool("nvcc"); !nvcc.empty()) roots.push_back(fs::path(nvcc).parent_path().parent_path());
  roots.emplace_back("/usr/local/cuda");
  std::error_code ec;
  for (const fs::path& r : roots)
    if (fs::exists(r / "include" / "cuda_runtime_api.h", ec)) {
      std::vector<std::string> dirs{(r / "include").string()};
      if (fs::is_directory(r / "include" / "cccl", ec)) dirs.push_back((r / "include" / "cccl").string());
      return dirs;
    }
  return {};
}

// The line of the last `at "PROBE":LINE` clause in the emitted text, for locating a probe that
// stopped half-way.
std::optional<int64_t> last_origin_line(const std::string& emitted, const std::string& probe) {
  const std::string key = "; at \"" + probe + "\":";
  const size_t at = emitted.rfind(key);
  if (at == std::string::npos) return std::nullopt;
  return std::strtoll(emitted.c_str() + at + key.size(), nullptr, 10);
}

class ExtractCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    auto* sub = app.add_subcommand("extract", "Compile and run a CuTe probe on the host, then check the annotations it writes");
    sub->add_option("probe", probe_, "The probe: a C++ file using layoutproof/cute.hpp (docs/cute.md)")->required();
    sub->add_option("-I,--include-dir", includes_, "A directory of headers for the probe; CuTe's is required");
    sub->add_option("--cxx", cxx_, "The host C++ compiler (default: $CXX, else g++)");
    sub->add_option("--std", std_, "The C++ standard of the probe (default c++17)");
    sub->add_option("--emit", emit_, "Keep the annotations the probe writes in this file (an .lp file `check` reads)");
    sub->add_option("--compile-timeout", compile_timeout_, "Seconds the compiler may take (default 300)")->check(CLI::Range(1.0, 86400.0));
    sub->add_option("--run-timeout", run_timeout_, "Seconds the probe may run (default 60)")->check(CLI::Range(0.1, 86400.0));
    sub->add_option("--format", format_, "text, json, sarif or junit")->check(CLI::IsMember({"text", "json", "sarif", "junit"}));
    sub->add_option("--output", output_, "Write the report here instead of standard output");
    sub->add_option("--config", config_path_, "Configuration file (default: ./.layoutproof.toml when present)");
    sub->add_option("--engine", engine_, "Override the configured engine: " + engine_choices())
        ->check(CLI::IsMember(engine_names()));
    sub->add_option("--fail-on", fail_on_, "Least severity that fails: " + severity_choices() + " (default: warning)")
        ->check(CLI::IsMember(severity_names()));
    return sub;
  }

  int run() override {
    std::error_code ec;
    if (!fs::is_regular_file(probe_, ec)) throw InputError(fmt::format("{}: no such probe file", probe_));
    // `check` reads the annotations of a file by its extension: the probe writes a standalone file.
    if (!emit_.empty() && fs::path(emit_).extension() != ".lp")
      throw InputError(fmt::format("--emit {}: the annotations a probe writes are a standalone file; name it *.lp", emit_));
    rules::CheckOptions opt;
    try {
      if (!config_path_.empty()) opt.config = rules::load_config(config_path_);
      else if (fs::exists(".layoutproof.toml")) opt.config = rules::load_config(".layoutproof.toml");
    } catch (const rules::ConfigError& e) {
      throw InputError(e.what());
    }
    if (!engine_.empty()) opt.config.engine = engine_from_name(engine_);
    opt.shown_files = {probe_};
    opt.jobs = 1;

    TempDir tmp;
    const std::string binary = (tmp.path / "probe").string();
    compile(binary);
    const std::string emitted_path = emit_.empty() ? (tmp.path / (fs::path(probe_).stem().string() + ".lp")).string() : emit_;
    const std::string emitted = run_probe(binary, emitted_path);
    validate(emitted_path, emitted);

    rules::CheckRun run = rules::check_paths({emitted_path}, opt);
    write_output(report::render_report(*report::parse_format(format_), run), output_, "report");
    const Severity threshold = *severity_from_name(fail_on_);  // CLI11 checked the word
    for (const rules::Finding& f : run.findings)
      if (f.severity >= threshold) return kFindings;
    return kOk;
  }

 private:
  struct TempDir {
    fs::path path;
    TempDir() {
      std::string tmpl = (fs::temp_directory_path() / "layoutproof-extract-XXXXXX").string();
      if (!mkdtemp(tmpl.data())) throw InputError("cannot create a temporary directory");
      path = tmpl;
    }
    ~TempDir() {
      std::error_code ec;
      fs::remove_all(path, ec);
    }
  };

  [[noreturn]] static void stop() { throw ExitRequest{kBadInput}; }

  void compile(const std::string& binary) {
    std::string cxx = cxx_;
    if (cxx.empty()) {
      const char* env = std::getenv("CXX");
      cxx = env && *env ? env : "g++";
    }
    std::vector<std::string> argv{cxx, "-std=" + std_, "-O1", "-Wno-deprecated-declarations"};
    for (const std::string& d : includes_) argv.push_back("-I" + d);
    if (std::optional<std::string> own = companion_include_dir()) argv.push_back("-I" + *own);
    for (const std::string& d : cuda_include_dirs()) argv.push_back("-I" + d);
    argv.insert(argv.end(), {probe_, "-o", binary});
    ProcessLimits limits = budget_limits(kMaxCompilerFileBytes);
    limits.timeout_s = compile_timeout_;
    limits.max_output = kMaxToolOutput;
    ProcessResult r = run_process(argv, limits);
    if (r.exit_code == 127 && !r.timed_out) {
      std::cerr << fmt::format("error: the compiler '{}' cannot be started; name one with --cxx\n", cxx);
      stop();
    }
    if (r.timed_out) {
      located_error(probe_, 1, fmt::format("compiling the probe took longer than {} s (--compile-timeout); nothing was "
                                           "checked",
                                           compile_timeout_));
      stop();
    }
    if (r.exit_code == 0 && !r.truncated) return;
    std::cerr << r.output;  // the compiler's own diagnostics, as it printed them
    if (r.truncated) std::cerr << fmt::format("[the compiler's output was cut at {} bytes]\n", kMaxToolOutput);
    if (r.output.find("cute/") != std::string::npos && r.output.find("No such file or directory") != std::string::npos &&
        r.output.find("#include <cute") != std::string::npos)
      std::cerr << fmt::format(
          "{}: error: CuTe's headers were not found: give their directory with -I, e.g. -I "
          "\"$(python3 -c 'import cutlass_library, os; print(os.path.dirname(cutlass_library.__file__))')/source/include\" "
          "(the nvidia-cutlass wheel) or -I <cutlass checkout>/include\n",
          probe_);
    located_error(probe_, 1, fmt::format("the probe did not compile ({} exited with status {}); nothing was checked", cxx,
                                         r.exit_code));
    stop();
  }

  // Runs the probe with $LAYOUTPROOF_EMIT set; returns what it wrote there.
  std::string run_probe(const std::string& binary, const std::string& emitted_path) {
    std::error_code ec;
    fs::remove(emitted_path, ec);
    // The probe's output file stops one byte past what may be read: a flood never reaches the disk.
    ProcessLimits limits = budget_limits(kMaxEmittedBytes + 1);
    limits.timeout_s = run_timeout_;
    limits.max_output = kMaxToolOutput;
    ProcessResult r = run_process({binary}, limits, {"LAYOUTPROOF_EMIT=" + emitted_path});
    std::string emitted;
    const uintmax_t size = fs::exists(emitted_path, ec) ? fs::file_size(emitted_path, ec) : 0;
    if (size > kMaxEmittedBytes) {
      located_error(probe_, 1, fmt::format("the probe wrote {} bytes of annotations, more than the {} a file may have; "
                                           "nothing was checked",
                                           size, kMaxEmittedBytes));
      stop();
    }
    if (size > 0) {
      std::ifstream in(emitted_path, std::ios::binary);
      std::ostringstream s;
      s << in.rdbuf();
      emitted = s.str();
    }
    const int64_t line = last_origin_line(emitted, probe_).value_or(1);
    const char* after = last_origin_line(emitted, probe_) ? " (its last statement came from this line)" : "";
    if (r.timed_out) {
      std::cerr << r.output;
      located_error(probe_, line, fmt::format("the probe did not finish within {} s (--run-timeout){}; nothing was checked",
                                              run_timeout_, after));
      stop();
    }
    if (r.truncated) {
      std::cerr << r.output.substr(0, 4096) << "\n";
      located_error(probe_, line, fmt::format("the probe printed more than {} bytes{}; nothing was checked",
                                              kMaxToolOutput, after));
      stop();
    }
    if (r.exit_code != 0) {
      std::cerr << r.output;  // the probe's own messages (the emitter's FILE:LINE: error: ...)
      const std::string how = r.exit_code > 128 ? fmt::format("was killed by signal {}", r.exit_code - 128)
                                                : fmt::format("exited with status {}", r.exit_code);
      located_error(probe_, line, fmt::format("the probe {}{}; nothing was checked", how, after));
      stop();
    }
    return emitted;
  }

  // What the probe wrote must be annotations and nothing else.
  void validate(const std::string& path, const std::string& emitted) {
    annotate::ParseResult parsed = annotate::parse_annotations(path, emitted, annotate::Language::Standalone);
    size_t errors = 0;
    for (const Diagnostic& d : parsed.diagnostics)
      if (d.severity == Severity::Error) {
        std::cerr << d.render();
        ++errors;
      }
    if (errors > 0) {
      located_error(probe_, 1, fmt::format("the probe wrote {} statement{} that are not annotations (above); nothing was "
                                           "checked",
                                           errors, errors == 1 ? "" : "s"));
      stop();
    }
    if (parsed.statements.empty()) {
      located_error(probe_, 1, "the probe wrote no annotations (did it use layoutproof::Emitter?); nothing was checked");
      stop();
    }
  }

  std::string probe_, cxx_, std_ = "c++17", emit_, format_ = "text", output_, config_path_, engine_, fail_on_ = "warning";
  std::vector<std::string> includes_;
  double compile_timeout_ = 300, run_timeout_ = 60;
};

}  // namespace

std::unique_ptr<Command> make_extract_command() { return std::make_unique<ExtractCommand>(); }

}  // namespace lp::cli
