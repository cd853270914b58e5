#pragma once
// Reading a file a user names (a configuration, a baseline, a findings document) without trusting
// what it is: only regular files are read, never more than a stated size, and a FIFO or a device
// never blocks or streams forever.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include "analyzer/support/Error.h"

namespace lp {

/// The largest source file (annotated source, PTX, a kernel's CUDA source) the checker reads; a
/// larger one is reported, not read.
inline constexpr uint64_t kMaxSourceFileBytes = uint64_t{16} << 20;

/// Whether `p` is the directory `dir` or lies under it, comparing path elements (both canonical, or
/// absolute and lexically normal): which files a run may read or select. False for an empty `dir`
/// (a directory that could not be resolved).
inline bool lies_within(const std::filesystem::path& p, const std::filesystem::path& dir) {
  if (dir.empty()) return false;
  const auto d = std::mismatch(dir.begin(), dir.end(), p.begin(), p.end()).first;
  return d == dir.end() || (std::next(d) == dir.end() && d->empty());  // "dir/" ends with an empty element
}

/// Why a file was not read; `what()` is "PATH: PROBLEM".
class FileReadError : public Error {
 public:
  FileReadError(std::string path, std::string problem)
      : Error(path + ": " + problem), path_(std::move(path)), problem_(std::move(problem)) {}
  const std::string& path() const { return path_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string path_, problem_;
};

/// The whole content of the regular file at `path` (a symlink to one is followed). Throws
/// FileReadError when it does not exist, is not a regular file (a directory, a FIFO, a device such
/// as /dev/zero), is larger than `max_bytes`, or cannot be read. Reads at most max_bytes + 1 bytes
/// whatever the file claims, so a file growing meanwhile is refused, never read whole.
std::string read_regular_file(const std::string& path, uint64_t max_bytes);

/// The JSON documents LayoutProof reads (baselines, findings, benchmark results) are a few levels
/// deep; anything deeper than this is refused while it is parsed.
inline constexpr int kMaxJsonDepth = 16;

/// Parses `text` as JSON. Throws FileReadError ("NAME: not valid JSON ...") on a syntax error, a
/// number too large for a double, or nesting deeper than kMaxJsonDepth.
nlohmann::json parse_json_document(std::string_view text, const std::string& name);

}  // namespace lp
