#include "core/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace tok {
namespace {

// Live mappings, for the SIGBUS handler (which may not allocate or lock). A
// slot is claimed with a marker, filled, then published by its address.
struct MapSlot {
  std::atomic<std::uintptr_t> begin{0};  // 0 free, 1 being filled
  std::size_t size = 0;
  char path[256] = {};
};
constexpr int kMaxMaps = 256;
std::array<MapSlot, kMaxMaps> g_maps;
std::atomic<bool> g_shrunk{false};
char g_shrunk_path[256];
const std::size_t g_page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));

void register_map(const char* data, std::size_t size, const std::string& path) {
  for (MapSlot& s : g_maps) {
    std::uintptr_t expected = 0;
    if (!s.begin.compare_exchange_strong(expected, 1)) continue;
    s.size = size;
    std::size_t n = std::min(path.size(), sizeof(s.path) - 1);
    std::memcpy(s.path, path.data(), n);
    s.path[n] = '\0';
    s.begin.store(reinterpret_cast<std::uintptr_t>(data));
    return;
  }
  // All slots taken: this mapping just stays unguarded (a SIGBUS ends tok).
}

void unregister_map(const char* data) {
  for (MapSlot& s : g_maps) {
    std::uintptr_t expected = reinterpret_cast<std::uintptr_t>(data);
    if (s.begin.compare_exchange_strong(expected, 0)) return;
  }
}

}  // namespace

bool recover_mapped_fault(void* addr) {
  auto a = reinterpret_cast<std::uintptr_t>(addr);
  for (MapSlot& s : g_maps) {
    std::uintptr_t b = s.begin.load();
    if (b <= 1 || a < b || a >= b + s.size) continue;
    std::uintptr_t page = a & ~(g_page - 1);
    std::uintptr_t end = (b + s.size + g_page - 1) & ~(g_page - 1);
    void* p = ::mmap(reinterpret_cast<void*>(page), end - page, PROT_READ,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (p == MAP_FAILED) return false;
    if (!g_shrunk.exchange(true)) std::memcpy(g_shrunk_path, s.path, sizeof(g_shrunk_path));
    return true;
  }
  return false;
}

std::string shrunk_mapped_file() {
  return g_shrunk.load() ? std::string(g_shrunk_path) : std::string();
}

Result<std::size_t> read_some(int fd, char* buf, std::size_t n, const std::string& name) {
  for (;;) {
    ssize_t r = ::read(fd, buf, n);
    if (r >= 0) return static_cast<std::size_t>(r);
    if (errno != EINTR) return make_error("{}: cannot read: {}", name, std::strerror(errno));
  }
}

// Reads into blocks and joins them at the end, freeing each as it is
// copied: the peak is the stream plus one block. A string grown by doubling
// held the old and the new buffer at once (2 GB for a 1 GiB stream).
Result<std::string> read_fd(int fd, const std::string& name, std::size_t max_bytes) {
  constexpr std::size_t kMaxBlock = std::size_t{64} << 20;
  std::vector<std::string> blocks;
  std::size_t total = 0, block = 1 << 16;
  for (bool eof = false; !eof;) {
    if (total > max_bytes) {
      return make_error(
          "{}: a stream of more than {} MiB, the most tok reads whole from a pipe "
          "or device; save it to a regular file",
          name, max_bytes >> 20);
    }
    // Never more than one byte past the limit.
    std::string& b = blocks.emplace_back(std::min(block, max_bytes + 1 - total), '\0');
    std::size_t used = 0;
    while (used < b.size()) {
      TOK_ASSIGN(std::size_t n, read_some(fd, b.data() + used, b.size() - used, name));
      if (n == 0) {
        eof = true;
        break;
      }
      used += n;
    }
    b.resize(used);
    total += used;
    block = std::min(2 * block, kMaxBlock);
  }
  if (blocks.size() == 1) return std::move(blocks.front());
  std::string out;
  out.reserve(total);
  for (std::string& b : blocks) {
    out.append(b);
    std::string().swap(b);
  }
  return out;
}

Result<MappedFile> MappedFile::open(const std::string& path, std::size_t max_stream_bytes) {
  MappedFile f;
  f.path_ = path;
  if (path == "-") {
    TOK_ASSIGN(f.owned_, read_fd(0, "<stdin>", max_stream_bytes));
    f.data_ = f.owned_.data();
    f.size_ = f.owned_.size();
    return f;
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    if (e == ENOENT) return make_error("{}: no such file", path);
    if (e == EACCES) return make_error("{}: permission denied", path);
    return make_error("{}: cannot open: {}", path, std::strerror(e));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return make_error("{}: cannot stat: {}", path, std::strerror(e));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return make_error("{}: is a directory, expected a file", path);
  }
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    void* p = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED) {
      ::close(fd);
      f.data_ = static_cast<const char*>(p);
      f.size_ = static_cast<std::size_t>(st.st_size);
      f.mapped_ = true;
      register_map(f.data_, f.size_, path);
      return f;
    }
  }
  auto r = read_fd(fd, path, max_stream_bytes);
  ::close(fd);
  if (!r.ok()) return r.error();
  f.owned_ = std::move(r).value();
  f.data_ = f.owned_.data();
  f.size_ = f.owned_.size();
  return f;
}

MappedFile MappedFile::from_string(std::string data) {
  MappedFile f;
  f.path_ = "<string>";
  f.owned_ = std::move(data);
  f.data_ = f.owned_.data();
  f.size_ = f.owned_.size();
  return f;
}

MappedFile::MappedFile(MappedFile&& o) noexcept { *this = std::move(o); }

MappedFile& MappedFile::operator=(MappedFile&& o) noexcept {
  if (this == &o) return *this;
  release();
  path_ = std::move(o.path_);
  mapped_ = o.mapped_;
  size_ = o.size_;
  if (mapped_) {
    data_ = o.data_;
  } else {
    owned_ = std::move(o.owned_);
    data_ = owned_.data();
  }
  o.data_ = nullptr;
  o.size_ = 0;
  o.mapped_ = false;
  return *this;
}

MappedFile::~MappedFile() { release(); }

void MappedFile::release() {
  if (mapped_ && data_) {
    unregister_map(data_);
    ::munmap(const_cast<char*>(data_), size_);
  }
  mapped_ = false;
  data_ = nullptr;
  size_ = 0;
}

}  // namespace tok
