#include "core/huge_buffer.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <utility>

#include "core/huge_pages.hpp"

namespace tok {
namespace {

// Closes a descriptor on every path out.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

Result<HugeBuffer> HugeBuffer::read_file(const std::string& path) {
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) return make_error("{}: cannot open: {}", path, std::strerror(errno));
  return read_fd(f.fd, path);
}

Result<HugeBuffer> HugeBuffer::read_fd(int fd, const std::string& name) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    return make_error("{}: not a regular file", name);
  }
  TOK_ASSIGN(HugeBuffer b, allocate(static_cast<std::size_t>(st.st_size), name));
  for (std::size_t done = 0; done < b.size_;) {
    ssize_t n = ::pread(fd, b.data_ + done, b.size_ - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return make_error("{}: read failed after {} bytes", name, done);
    done += static_cast<std::size_t>(n);
  }
  return b;
}

Result<HugeBuffer> HugeBuffer::copy_of(std::string_view bytes, const std::string& name) {
  TOK_ASSIGN(HugeBuffer b, allocate(bytes.size(), name));
  if (!bytes.empty()) std::memcpy(b.data_, bytes.data(), bytes.size());
  return b;
}

Result<HugeBuffer> HugeBuffer::allocate(std::size_t size, const std::string& name) {
  HugeBuffer b;
  if (size == 0) return b;
  try {
    b.data_ = static_cast<char*>(huge_allocate(size));  // 2 MiB-aligned, advised for huge pages
  } catch (const std::bad_alloc&) {
    return make_error("{}: cannot allocate {} bytes", name, size);
  }
  b.size_ = size;
  return b;
}

HugeBuffer::HugeBuffer(HugeBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

HugeBuffer& HugeBuffer::operator=(HugeBuffer&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

HugeBuffer::~HugeBuffer() { release(); }

void HugeBuffer::release() {
  if (data_) huge_deallocate(data_, size_);
  data_ = nullptr;
  size_ = 0;
}

}  // namespace tok
