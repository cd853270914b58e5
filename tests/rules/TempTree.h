#pragma once
// A scratch directory for one test, removed afterwards.
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace lp::test {

class TempTree {
 public:
  TempTree() {
    std::random_device rd;
    root_ = std::filesystem::temp_directory_path() / ("lp-test-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(root_);
  }
  ~TempTree() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;

  /// Writes `text` to `rel` (creating directories) and returns the full path.
  std::string write(const std::string& rel, const std::string& text) const {
    auto p = root_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  std::string path(const std::string& rel = "") const { return (root_ / rel).string(); }

 private:
  std::filesystem::path root_;
};

}  // namespace lp::test
