#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>

namespace tok {
namespace {

// Fixed-size registry of live temporary paths for the SIGINT handler.
constexpr int kMaxPending = 16;
std::array<std::atomic<const char*>, kMaxPending> g_pending{};

void register_temp(const char* p) {
  for (auto& slot : g_pending) {
    const char* expected = nullptr;
    if (slot.compare_exchange_strong(expected, p)) return;
  }
}
void unregister_temp(const char* p) {
  for (auto& slot : g_pending) {
    const char* expected = p;
    if (slot.compare_exchange_strong(expected, nullptr)) return;
  }
}

// Holds SIGINT and SIGTERM back while a temporary exists but is not (or not
// yet again) in the registry, so the handler never misses it; a signal that
// arrives meanwhile is delivered when the block ends.
class SignalBlock {
 public:
  SignalBlock() {
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGINT);
    sigaddset(&s, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &s, &old_);
  }
  ~SignalBlock() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  SignalBlock(const SignalBlock&) = delete;
  SignalBlock& operator=(const SignalBlock&) = delete;

 private:
  sigset_t old_;
};

std::string describe(int e) {
  if (e == ENOSPC) return "no space left on device";
  if (e == EFBIG) return "file too large (size limit reached)";
  return std::strerror(e);
}

}  // namespace

void remove_pending_temporaries() {
  for (auto& slot : g_pending) {
    const char* p = slot.load();
    if (p) ::unlink(p);
  }
}

Result<AtomicFile> AtomicFile::create(const std::string& path) {
  SignalBlock block;
  AtomicFile f;
  f.path_ = path;
  f.temp_ = path + ".tmp.XXXXXX";
  int fd = ::mkstemp(f.temp_.data());
  if (fd < 0) {
    return make_error("{}: cannot create output file: {}", path, std::strerror(errno));
  }
  ::fchmod(fd, 0644);
  f.file_ = ::fdopen(fd, "wb");
  if (!f.file_) {
    ::close(fd);
    ::unlink(f.temp_.c_str());
    return make_error("{}: cannot open output file: {}", path, std::strerror(errno));
  }
  register_temp(f.temp_.c_str());
  return f;
}

AtomicFile::AtomicFile(AtomicFile&& o) noexcept
    : path_(std::move(o.path_)), file_(o.file_), failed_(o.failed_) {
  // The registry holds a pointer into temp_'s buffer: re-register after move.
  SignalBlock block;
  if (file_) unregister_temp(o.temp_.c_str());
  temp_ = std::move(o.temp_);
  if (file_) register_temp(temp_.c_str());
  o.file_ = nullptr;
}

AtomicFile::~AtomicFile() {
  if (file_) {
    std::fclose(file_);
    ::unlink(temp_.c_str());
    unregister_temp(temp_.c_str());
  }
}

Status AtomicFile::write(std::string_view bytes) {
  if (!file_) return make_error("{}: output file already closed", path_);
  if (bytes.empty()) return {};
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
    failed_ = true;
    return make_error("{}: cannot write: {}", path_, describe(errno));
  }
  return {};
}

Status AtomicFile::write_at(std::uint64_t offset, std::string_view bytes) {
  if (!file_) return make_error("{}: output file already closed", path_);
  if (::fseeko(file_, static_cast<off_t>(offset), SEEK_SET) != 0 ||
      std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size() ||
      ::fseeko(file_, 0, SEEK_END) != 0) {
    failed_ = true;
    return make_error("{}: cannot write: {}", path_, describe(errno));
  }
  return {};
}

Status AtomicFile::commit() {
  if (!file_) return make_error("{}: output file already closed", path_);
  int e = 0;
  if (std::fflush(file_) != 0) e = errno;
  if (!e && ::fsync(::fileno(file_)) != 0) e = errno;
  std::fclose(file_);
  file_ = nullptr;
  if (!e && ::rename(temp_.c_str(), path_.c_str()) != 0) e = errno;
  if (e) {
    ::unlink(temp_.c_str());
    unregister_temp(temp_.c_str());
    return make_error("{}: cannot write: {}", path_, describe(e));
  }
  unregister_temp(temp_.c_str());
  return {};
}

Status write_file_atomic(const std::string& path, std::string_view bytes) {
  TOK_ASSIGN(AtomicFile f, AtomicFile::create(path));
  TOK_TRY(f.write(bytes));
  return f.commit();
}

}  // namespace tok
