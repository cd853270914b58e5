#include "frontend/cuda/CompileDatabase.h"

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace lp::cuda {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::shared_ptr<const SourceText>& src, size_t offset, std::string message) {
  Diagnostic d;
  d.loc = SourceLoc{src, std::min(offset, src->text.size())};
  d.message = std::move(message);
  throw DiagnosticError(std::move(d));
}

// The offset of each element of the top-level array (nlohmann's DOM keeps no positions): a scan
// that follows strings and nesting, run on text the JSON parser has accepted.
std::vector<size_t> element_offsets(const std::string& text) {
  std::vector<size_t> out;
  int depth = 0;
  bool in_string = false, expect_element = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    if (depth == 1 && expect_element) {
      out.push_back(i);
      expect_element = false;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') expect_element = (++depth == 1);
    else if (c == ']' || c == '}') --depth;
    else if (c == ',' && depth == 1) expect_element = true;
  }
  return out;
}

std::string normal_path(const std::string& path, const std::string& directory) {
  fs::path p(path);
  if (p.is_relative()) p = fs::path(directory) / p;
  return p.lexically_normal().string();
}

bool is_nvcc(const std::string& program) {
  const std::string base = fs::path(program).filename().string();
  return base == "nvcc" || base == "nvcc.exe";
}

// "sm_90a" for sm_XX/compute_XX/lto_XX with its suffix; nullopt for anything else.
std::optional<std::string> sm_of(const std::string& value) {
  static const std::regex kArch("(?:sm|compute|lto)_([0-9]+[af]?)");
  std::smatch m;
  if (!std::regex_match(value, m, kArch)) return std::nullopt;
  return "sm_" + m[1].str();
}

// The items of a comma-separated value, empty ones left out.
std::vector<std::string> split_commas(const std::string& value) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= value.size()) {
    size_t end = value.find(',', start);
    if (end == std::string::npos) end = value.size();
    if (end > start) out.push_back(value.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// `-gencode`'s value, "arch=compute_80,code=[compute_80,sm_80]" (quotes and brackets optional):
// its `code` values, else its `arch`.
std::vector<std::string> gencode_archs(std::string value) {
  value.erase(std::remove_if(value.begin(), value.end(), [](char c) { return c == '"' || c == '\'' || c == '[' || c == ']'; }),
              value.end());
  std::vector<std::string> arch, code;
  std::vector<std::string>* field = nullptr;
  for (std::string item : split_commas(value)) {
    if (item.rfind("arch=", 0) == 0) field = &arch, item.erase(0, 5);
    else if (item.rfind("code=", 0) == 0) field = &code, item.erase(0, 5);
    if (field && !item.empty()) field->push_back(item);
  }
  return code.empty() ? arch : code;
}

// The architectures one of nvcc's values names: the sm_XX ones when it names any (the SASS the
// unit carries), else its compute_XX ones.
void add_archs(const std::vector<std::string>& values, CompileUnit& u, const std::string& option) {
  std::vector<std::string> sm, compute;
  for (const std::string& v : values) {
    if (v == "native" || v == "all" || v == "all-major") {
      u.notes.push_back(fmt::format("{}={} names no architecture the checker can know: add -arch=sm_XX to check for one",
                                    option, v));
      continue;
    }
    if (auto a = sm_of(v)) (v.rfind("sm_", 0) == 0 ? sm : compute).push_back(*a);
  }
  for (const std::string& a : sm.empty() ? compute : sm)
    if (std::find(u.archs.begin(), u.archs.end(), a) == u.archs.end()) u.archs.push_back(a);
}

// An option `name` at args[i] spelt `name VALUE`, `name=VALUE` or (for short options given in
// `glued`) `nameVALUE`: its value, advancing i past it.
std::optional<std::string> option_value(const std::vector<std::string>& args, size_t& i, const std::string& name,
                                        bool glued = false) {
  const std::string& a = args[i];
  if (a == name) {
    if (i + 1 >= args.size()) return std::string();
    return args[++i];
  }
  if (a.size() > name.size() && a.compare(0, name.size(), name) == 0) {
    if (a[name.size()] == '=') return a.substr(name.size() + 1);
    if (glued) return a.substr(name.size());
  }
  return std::nullopt;
}

// nvcc's options the PTX compile replaces or must not repeat (nvcc --help): the compile mode,
// outputs and dependency files. Those taking a value take it as the next word or after '='.
const std::set<std::string>& nvcc_dropped_flags() {
  static const std::set<std::string> k{"-c", "--compile", "-dc", "--device-c", "-dw", "--device-w", "-cubin", "--cubin",
                                       "-ptx", "--ptx", "-fatbin", "--fatbin", "-E", "--preprocess", "-M", "-MM", "-MD",
                                       "-MMD", "-MP", "--generate-dependencies", "--generate-nonsystem-dependencies",
                                       "--generate-dependencies-with-compile",
                                       "--generate-nonsystem-dependencies-with-compile", "-dlink", "--device-link",
                                       "-lib", "--lib", "-link", "--link", "-run", "--run", "-optix-ir", "--optix-ir",
                                       "-dlto", "--dlink-time-opt", "-keep", "--keep", "-save-temps", "--save-temps",
                                       "-lineinfo", "--generate-line-info"};
  return k;
}
const std::vector<std::string>& nvcc_dropped_valued() {
  static const std::vector<std::string> k{"-o", "--output-file", "-MF", "--dependency-output", "-MT",
                                          "--dependency-target-name", "-odir", "--output-directory", "-keep-dir",
                                          "--keep-dir"};
  return k;
}

void read_nvcc_flags(const std::vector<std::string>& args, CompileUnit& u) {
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (normal_path(a, u.directory) == u.file) continue;
    if (nvcc_dropped_flags().count(a)) continue;
    if (a == "-G" || a == "--device-debug") {
      u.notes.push_back(a + " (device debug) is left out: the checker reads the optimized PTX of a release build");
      continue;
    }
    bool dropped = false;
    for (const std::string& name : nvcc_dropped_valued())
      if (option_value(args, i, name)) {
        dropped = true;
        break;
      }
    if (dropped) continue;
    if (auto v = option_value(args, i, "-arch")) add_archs(split_commas(*v), u, "-arch");
    else if (auto v = option_value(args, i, "--gpu-architecture")) add_archs(split_commas(*v), u, "--gpu-architecture");
    else if (auto v = option_value(args, i, "-code")) add_archs(split_commas(*v), u, "-code");
    else if (auto v = option_value(args, i, "--gpu-code")) add_archs(split_commas(*v), u, "--gpu-code");
    else if (auto v = option_value(args, i, "-gencode")) add_archs(gencode_archs(*v), u, "-gencode");
    else if (auto v = option_value(args, i, "--generate-code")) add_archs(gencode_archs(*v), u, "--generate-code");
    else u.flags.push_back(a);
  }
}

// clang compiling CUDA: its preprocessor and language options, which nvcc spells alike.
void read_clang_flags(const std::vector<std::string>& args, CompileUnit& u) {
  u.notes.push_back(fmt::format("compiled by {}, not nvcc: only its -I, -isystem, -D, -U, -include and -std options are "
                                "passed to nvcc", fs::path(u.compiler).filename().string()));
  for (size_t i = 1; i < args.size(); ++i) {
    bool kept = false;
    for (const char* name : {"-I", "-isystem", "-D", "-U", "-include"})
      if (auto v = option_value(args, i, name, true)) {
        u.flags.push_back(name);
        u.flags.push_back(*v);
        kept = true;
        break;
      }
    if (kept) continue;
    if (args[i].rfind("-std=", 0) == 0) u.flags.push_back(args[i]);
    else if (auto v = option_value(args, i, "--cuda-gpu-arch")) add_archs({*v}, u, "--cuda-gpu-arch");
    else if (auto v = option_value(args, i, "--offload-arch")) add_archs(split_commas(*v), u, "--offload-arch");
  }
}

bool compiles_cuda(const std::vector<std::string>& args, const std::string& file) {
  if (fs::path(file).extension() == ".cu") return true;
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "-x" && (args[i + 1] == "cu" || args[i + 1] == "cuda")) return true;
  return std::find(args.begin(), args.end(), "-xcuda") != args.end();
}

}  // namespace

std::optional<std::vector<std::string>> split_command_line(const std::string& command) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::move(word)), word.clear(), in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\\') {
      if (i + 1 < command.size()) word += command[++i];
    } else if (c == '\'') {
      const size_t end = command.find('\'', i + 1);
      if (end == std::string::npos) return std::nullopt;
      word += command.substr(i + 1, end - i - 1);
      i = end;
    } else if (c == '"') {
      size_t j = i + 1;
      for (; j < command.size() && command[j] != '"'; ++j) {
        // Inside double quotes a backslash escapes only $ ` " \ and a newline.
        if (command[j] == '\\' && j + 1 < command.size() && std::string_view("$`\"\\\n").find(command[j + 1]) != std::string_view::npos)
          ++j;
        word += command[j];
      }
      if (j >= command.size()) return std::nullopt;
      i = j;
    } else {
      word += c;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

std::vector<CompileUnit> read_compile_database(std::shared_ptr<const SourceText> src) {
  nlohmann::json db;
  try {
    db = nlohmann::json::parse(src->text);
  } catch (const nlohmann::json::parse_error& e) {
    std::string what = e.what();
    if (const size_t colon = what.rfind(": "); colon != std::string::npos) what = what.substr(colon + 2);
    fail(src, e.byte > 0 ? e.byte - 1 : 0, "not JSON: " + what);
  } catch (const nlohmann::json::exception& e) {  // a number past a double's range
    std::string what = e.what();
    if (const size_t bracket = what.find("] "); bracket != std::string::npos) what = what.substr(bracket + 2);
    fail(src, 0, "not JSON: " + what);
  }
  if (!db.is_array()) fail(src, src->text.find_first_not_of(" \t\r\n"), "expected a compilation database: a JSON array of entries");
  const std::vector<size_t> at = element_offsets(src->text);
  std::vector<CompileUnit> units;
  std::set<std::string> seen;
  for (size_t k = 0; k < db.size(); ++k) {
    const nlohmann::json& e = db[k];
    const size_t offset = k < at.size() ? at[k] : 0;
    if (!e.is_object()) fail(src, offset, "expected an entry: an object with \"directory\", \"file\" and \"arguments\" or \"command\"");
    for (const char* key : {"directory", "file"})
      if (!e.contains(key) || !e[key].is_string())
        fail(src, offset, fmt::format("entry {} has no \"{}\" string", k + 1, key));
    std::vector<std::string> args;
    if (e.contains("arguments")) {
      if (!e["arguments"].is_array() || e["arguments"].empty())
        fail(src, offset, fmt::format("entry {}: \"arguments\" must be a non-empty array of strings", k + 1));
      for (const auto& a : e["arguments"]) {
        if (!a.is_string()) fail(src, offset, fmt::format("entry {}: \"arguments\" must be a non-empty array of strings", k + 1));
        args.push_back(a.get<std::string>());
      }
    } else if (e.contains("command") && e["command"].is_string()) {
      auto words = split_command_line(e["command"].get<std::string>());
      if (!words) fail(src, offset, fmt::format("entry {}: \"command\" has a quote that is not closed", k + 1));
      if (words->empty()) fail(src, offset, fmt::format("entry {}: \"command\" is empty", k + 1));
      args = std::move(*words);
    } else {
      fail(src, offset, fmt::format("entry {} has neither an \"arguments\" array nor a \"command\" string", k + 1));
    }
    if (args.front().empty()) fail(src, offset, fmt::format("entry {}: the command's first word, its compiler, is empty", k + 1));
    CompileUnit u;
    u.directory = fs::path(e["directory"].get<std::string>()).lexically_normal().string();
    u.file = normal_path(e["file"].get<std::string>(), u.directory);
    if (!compiles_cuda(args, u.file)) continue;
    std::string identity = u.directory + '\n';
    for (const std::string& a : args) identity += a + '\n';
    if (!seen.insert(identity).second) continue;
    u.compiler = args.front();
    u.where = SourceLoc{src, offset};
    if (is_nvcc(u.compiler)) read_nvcc_flags(args, u);
    else read_clang_flags(args, u);
    units.push_back(std::move(u));
  }
  return units;
}

}  // namespace lp::cuda
