#include "core/huge_buffer.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace tok {
namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;

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
  struct stat st {};
  if (::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    return make_error("{}: not a regular file", path);
  }
  HugeBuffer b;
  b.size_ = static_cast<std::size_t>(st.st_size);
  if (b.size_ == 0) return b;
  // Whole 2 MB pages: the kernel backs an advised range with huge pages only
  // where it covers them entirely.
  b.mapped_ = (b.size_ + kHugePage - 1) / kHugePage * kHugePage;
  void* p = ::mmap(nullptr, b.mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    b.mapped_ = 0;
    return make_error("{}: cannot allocate {} bytes: {}", path, b.size_, std::strerror(errno));
  }
  b.data_ = static_cast<char*>(p);
  (void)::madvise(p, b.mapped_, MADV_HUGEPAGE);  // advice only: fine if refused
  for (std::size_t done = 0; done < b.size_;) {
    ssize_t n = ::pread(f.fd, b.data_ + done, b.size_ - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return make_error("{}: read failed after {} bytes", path, done);
    done += static_cast<std::size_t>(n);
  }
  return b;
}

HugeBuffer::HugeBuffer(HugeBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      mapped_(std::exchange(other.mapped_, 0)) {}

HugeBuffer& HugeBuffer::operator=(HugeBuffer&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    mapped_ = std::exchange(other.mapped_, 0);
  }
  return *this;
}

HugeBuffer::~HugeBuffer() { release(); }

void HugeBuffer::release() {
  if (mapped_) ::munmap(data_, mapped_);
  data_ = nullptr;
  size_ = mapped_ = 0;
}

}  // namespace tok
