#include "analyzer/support/ReadFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fmt/format.h>

namespace lp {

namespace {

// Closes the descriptor however the read ends.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

}  // namespace

std::string read_regular_file(const std::string& path, uint64_t max_bytes) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  Fd f{open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (f.fd < 0) throw FileReadError(path, fmt::format("cannot be read: {}", std::strerror(errno)));
  struct stat st {};
  if (fstat(f.fd, &st) != 0) throw FileReadError(path, fmt::format("cannot be read: {}", std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) throw FileReadError(path, "is a directory, not a regular file");
  if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) throw FileReadError(path, "is a FIFO or socket, not a regular file");
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) throw FileReadError(path, "is a device, not a regular file");
  if (!S_ISREG(st.st_mode)) throw FileReadError(path, "not a regular file");
  if (static_cast<uint64_t>(st.st_size) > max_bytes)
    throw FileReadError(path, fmt::format("larger than {} bytes ({} bytes), not read", max_bytes,
                                          static_cast<uint64_t>(st.st_size)));
  std::string text;
  text.reserve(static_cast<size_t>(st.st_size));
  char chunk[1 << 16];
  while (true) {
    const ssize_t n = read(f.fd, chunk, sizeof chunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw FileReadError(path, fmt::format("cannot be read: {}", std::strerror(errno)));
    }
    if (n == 0) break;
    text.append(chunk, static_cast<size_t>(n));
    if (text.size() > max_bytes) throw FileReadError(path, fmt::format("larger than {} bytes, not read", max_bytes));
  }
  return text;
}

nlohmann::json parse_json_document(std::string_view text, const std::string& name) {
  auto limit_depth = [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
    if (depth > kMaxJsonDepth)
      throw FileReadError(name, fmt::format("nested deeper than {} levels, not read", kMaxJsonDepth));
    return true;
  };
  try {
    return nlohmann::json::parse(text, limit_depth);
  } catch (const nlohmann::json::parse_error& e) {
    throw FileReadError(name, fmt::format("not valid JSON (at byte {})", e.byte));
  } catch (const nlohmann::json::exception& e) {  // out_of_range 406: a number too large for a double
    throw FileReadError(name, fmt::format("not valid JSON ({})", e.what()));
  }
}

}  // namespace lp
