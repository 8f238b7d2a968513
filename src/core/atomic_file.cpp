#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>

#include "core/fatal_signals.hpp"
#include "core/output.hpp"
#include "core/output_paths.hpp"

namespace tok {
namespace {

// Fixed-size registry of live temporary paths for the signal handler, which
// may not allocate. A command holds a few outputs at once (compare: one chart
// per corpus); past the limit create() refuses rather than leave one unguarded.
constexpr int kMaxPending = 256;
std::array<std::atomic<const char*>, kMaxPending> g_pending{};

bool register_temp(const char* p) {
  for (auto& slot : g_pending) {
    const char* expected = nullptr;
    if (slot.compare_exchange_strong(expected, p)) return true;
  }
  return false;
}
void unregister_temp(const char* p) {
  for (auto& slot : g_pending) {
    const char* expected = p;
    if (slot.compare_exchange_strong(expected, nullptr)) return;
  }
}

std::string describe(int e) {
  if (e == ENOSPC) return "no space left on device";
  if (e == EFBIG) return "file too large (size limit reached)";
  return std::strerror(e);
}

// A listening Unix socket takes the bytes over a connection.
int connect_socket(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path)) {
    errno = ENAMETOOLONG;
    return -1;
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    int e = errno;
    ::close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

// The descriptor to write `target` in place, or -1 with errno.
int open_in_place(const std::string& target, mode_t mode) {
  if (S_ISSOCK(mode)) return connect_socket(target);
  return ::open(target.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
}

}  // namespace

void remove_pending_temporaries() {
  for (auto& slot : g_pending) {
    const char* p = slot.load();
    if (p) ::unlink(p);
  }
}

Result<AtomicFile> AtomicFile::create(const std::string& path) {
  AtomicFile f;
  f.path_ = path;
  int fd = -1;
  if (path == "-") {
    f.path_ = "<stdout>";
    fd = ::fcntl(1, F_DUPFD_CLOEXEC, 3);
    if (fd < 0) return make_error("<stdout>: cannot write: {}", std::strerror(errno));
  } else {
    struct stat st {};
    bool exists = ::stat(path.c_str(), &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) return make_error("{}: is a directory", path);
    if (exists && S_ISBLK(st.st_mode)) {
      return make_error("{}: is a block device; tok does not write to one", path);
    }
    if (exists && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
      // Opened by the path as given: the kernel follows the links, including
      // /dev/stdout's /proc/self/fd/1 -> "pipe:[...]", which names no file.
      fd = open_in_place(path, st.st_mode);
      if (fd < 0) return make_error("{}: cannot open for writing: {}", path, std::strerror(errno));
    } else {
      TOK_ASSIGN(f.target_, resolve_links(path));
    }
  }
  if (fd >= 0) {
    f.file_ = ::fdopen(fd, "wb");
    if (!f.file_) {
      ::close(fd);
      return make_error("{}: cannot open output: {}", f.path_, std::strerror(errno));
    }
    return f;
  }
  // A regular file (or none yet): a temporary beside the target, registered
  // before any signal can see it unregistered.
  DeferSignals defer;
  f.temp_ = f.target_ + ".tmp.XXXXXX";
  fd = ::mkostemp(f.temp_.data(), O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    f.temp_.clear();  // names no file of ours
    return make_error("{}: cannot create output file: {}", path, std::strerror(e));
  }
  if (!register_temp(f.temp_.c_str())) {
    ::close(fd);
    ::unlink(f.temp_.c_str());
    return make_error("{}: too many output files open at once", path);
  }
  // The replacement keeps the permissions of the file it replaces.
  struct stat old {};
  ::fchmod(fd, ::stat(f.target_.c_str(), &old) == 0 ? (old.st_mode & 07777) : 0644);
  f.file_ = ::fdopen(fd, "wb");
  if (!f.file_) {
    int e = errno;
    ::close(fd);
    f.discard();
    return make_error("{}: cannot open output file: {}", path, std::strerror(e));
  }
  return f;
}

AtomicFile::AtomicFile(AtomicFile&& o) noexcept
    : path_(std::move(o.path_)), target_(std::move(o.target_)), file_(o.file_), done_(o.done_) {
  // The registry holds a pointer into temp_'s buffer: re-register after move.
  DeferSignals defer;
  bool live = !o.temp_.empty();
  if (live) unregister_temp(o.temp_.c_str());
  temp_ = std::move(o.temp_);
  o.temp_.clear();
  if (live) register_temp(temp_.c_str());
  o.file_ = nullptr;
  o.done_ = false;
}

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::discard() {
  if (file_) std::fclose(file_);
  file_ = nullptr;
  if (!temp_.empty()) {
    ::unlink(temp_.c_str());
    unregister_temp(temp_.c_str());
    temp_.clear();
  }
  done_ = false;
}

Status AtomicFile::write(std::string_view bytes) {
  if (!file_) return make_error("{}: output file already closed", path_);
  if (bytes.empty()) return {};
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
    int e = errno;
    if (e == EPIPE && in_place()) throw BrokenPipe{};
    return make_error("{}: cannot write: {}", path_, describe(e));
  }
  return {};
}

Status AtomicFile::write_at(std::uint64_t offset, std::string_view bytes) {
  if (!file_) return make_error("{}: output file already closed", path_);
  if (::fseeko(file_, static_cast<off_t>(offset), SEEK_SET) != 0 ||
      std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size() ||
      ::fseeko(file_, 0, SEEK_END) != 0) {
    // A device, FIFO or socket written in place cannot seek back.
    return make_error("{}: cannot write: {}", path_, describe(errno));
  }
  return {};
}

bool AtomicFile::seekable() const { return file_ && ::lseek(::fileno(file_), 0, SEEK_CUR) != -1; }

Status AtomicFile::finish() {
  if (!file_) return make_error("{}: output file already closed", path_);
  int e = 0;
  if (std::fflush(file_) != 0) e = errno;
  // A device or pipe has nothing to sync (fsync fails with EINVAL there).
  if (!e && !in_place() && ::fsync(::fileno(file_)) != 0) e = errno;
  if (std::fclose(file_) != 0 && !e) e = errno;
  file_ = nullptr;
  if (e) {
    discard();
    if (e == EPIPE && in_place()) throw BrokenPipe{};
    return make_error("{}: cannot write: {}", path_, describe(e));
  }
  done_ = true;
  return {};
}

Status AtomicFile::publish() {
  if (in_place()) {
    done_ = false;
    return {};
  }
  if (::rename(temp_.c_str(), target_.c_str()) != 0) {
    int e = errno;
    discard();
    return make_error("{}: cannot write: {}", path_, describe(e));
  }
  unregister_temp(temp_.c_str());
  temp_.clear();
  done_ = false;
  return {};
}

Status AtomicFile::commit() {
  TOK_TRY(finish());
  return publish();
}

Status commit_together(std::span<AtomicFile> files) {
  for (AtomicFile& f : files) TOK_TRY(f.finish());
  DeferSignals defer;
  for (AtomicFile& f : files) TOK_TRY(f.publish());
  return {};
}

Status write_file_atomic(const std::string& path, std::string_view bytes) {
  TOK_ASSIGN(AtomicFile f, AtomicFile::create(path));
  TOK_TRY(f.write(bytes));
  return f.commit();
}

}  // namespace tok
