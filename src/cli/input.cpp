#include "cli/input.hpp"

#include <fmt/format.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "text/pretokenizer.hpp"

namespace tok::cli {

Result<MappedFile> open_input(const std::string& path) {
  return MappedFile::open(path.empty() ? std::string("-") : path);
}

bool is_stream(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

int open_if_stream(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  if (is_stream(fd)) return fd;
  ::close(fd);
  return -1;
}

std::string escape_bytes(std::string_view bytes) {
  std::string out;
  std::size_t i = 0;
  while (i < bytes.size()) {
    unsigned char c = static_cast<unsigned char>(bytes[i]);
    if (c >= 0x80) {
      std::size_t valid = text::valid_utf8_prefix(bytes.substr(i, 4));
      std::size_t len = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : 4;
      if (valid >= len) {
        out.append(bytes.substr(i, len));
        i += len;
        continue;
      }
      out += fmt::format("\\x{:02x}", c);
      ++i;
      continue;
    }
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += fmt::format("\\x{:02x}", c);
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
  return out;
}

}  // namespace tok::cli
