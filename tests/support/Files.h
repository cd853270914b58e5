#pragma once
// A file's bytes as a string, for tests that compare or parse fixtures and docs.
#include <fstream>
#include <sstream>
#include <string>

namespace lp::test {

/// The whole file, byte for byte; "" when it cannot be opened.
inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace lp::test
