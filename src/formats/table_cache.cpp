#include "formats/table_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>

#include "core/atomic_file.hpp"
#include "core/data_dir.hpp"
#include "core/huge_buffer.hpp"

namespace tok::formats {
namespace {

// Before the table image: which vocabulary it was built from. The file name
// carries the same key, but a name proves nothing (a copied or planted file);
// these fields are compared on every load, at no cost beyond reading them.
constexpr char kMagic[8] = {'T', 'O', 'K', 'C', 'A', 'C', 'H', 'E'};
constexpr std::uint32_t kCacheVersion = 1;
struct CacheHeader {
  char magic[8];
  std::uint32_t version;
  std::uint32_t header_bytes;  // sizeof(CacheHeader): the image starts here, 8-aligned
  std::uint64_t source_hash;   // bpe::hash_bytes of the vocabulary file
  std::uint64_t source_size;   // its length in bytes
};
static_assert(sizeof(CacheHeader) % 8 == 0);

// source_hash is source_hash_of(source).
CacheHeader header_for(std::string_view source, std::uint64_t source_hash) {
  CacheHeader h{};
  std::memcpy(h.magic, kMagic, sizeof(kMagic));
  h.version = kCacheVersion;
  h.header_bytes = sizeof(CacheHeader);
  h.source_hash = source_hash;
  h.source_size = source.size();
  return h;
}

// The hash that keys the cache (0 for a file too small to be cached):
// computed once per load (o200k's 3.6 MB file hashed twice was a tenth of a
// load).
std::uint64_t source_hash_of(std::string_view source) {
  return source.size() < kTableCacheMinBytes ? 0 : bpe::hash_bytes(source);
}

// Where the table for `source` (whose hash is source_hash) is cached.
std::string cache_path(std::string_view source, std::uint64_t source_hash) {
  const char* off = std::getenv("TOK_TABLE_CACHE");
  if (off && std::string_view(off) == "0") return {};
  if (source.size() < kTableCacheMinBytes) return {};
  std::string dir = cache_dir();
  if (dir.empty()) return {};
  return fmt::format("{}/tables/{:016x}-{}.bin", dir, source_hash, source.size());
}

// A directory only this user can change: another user's directory, or one
// others may write, could hold a planted image (root would load it).
bool trusted_dir(const std::string& dir) {
  struct stat st {};
  return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::geteuid() &&
         (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

// Creates the cache's directories (private), but never a missing home: with
// HOME=/nonexistent/x nothing is created. Only the last three levels
// (.cache, tok, tables) are made, each with mkdir, not mkdir -p.
bool make_cache_dirs(const std::filesystem::path& tables) {
  std::filesystem::path tok_dir = tables.parent_path();
  for (const auto& d : {tok_dir.parent_path(), tok_dir, tables}) {
    if (::mkdir(d.c_str(), 0700) != 0 && errno != EEXIST) return false;
  }
  return trusted_dir(tok_dir.string()) && trusted_dir(tables.string());
}

// The cached image, or nothing: opened without following a link and without
// blocking (a FIFO planted there must not hang tok), and only a regular file
// of this user whose header names exactly this vocabulary.
std::shared_ptr<const HugeBuffer> read_image(const std::string& path, const CacheHeader& want) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat st {};
  CacheHeader h{};
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() &&
            ::pread(fd, &h, sizeof(h), 0) == static_cast<ssize_t>(sizeof(h)) &&
            std::memcmp(&h, &want, sizeof(h)) == 0;
  std::shared_ptr<const HugeBuffer> out;
  if (ok) {
    if (auto image = HugeBuffer::read_fd(fd, path); image.ok()) {
      out = std::make_shared<const HugeBuffer>(std::move(image).value());
    }
  }
  ::close(fd);
  return out;
}

}  // namespace

std::string table_cache_path(std::string_view source) {
  return cache_path(source, source_hash_of(source));
}

Result<bpe::MergeTable> cached_merge_table(std::string_view source,
                                           const std::function<Result<bpe::MergeTable>()>& build) {
  const std::uint64_t source_hash = source_hash_of(source);
  std::string path = cache_path(source, source_hash);
  if (path.empty()) return build();
  std::filesystem::path tables = std::filesystem::path(path).parent_path();
  bool trusted = trusted_dir(tables.parent_path().string()) && trusted_dir(tables.string());
  CacheHeader want = header_for(source, source_hash);
  // A missing, foreign, unreadable or damaged image is rebuilt.
  if (trusted) {
    if (auto buffer = read_image(path, want)) {
      // The table reads the buffer in place and keeps it.
      auto table =
          bpe::MergeTable::deserialize(buffer->bytes().substr(sizeof(CacheHeader)), buffer);
      if (table.ok()) return table;
    }
  }
  TOK_ASSIGN(bpe::MergeTable table, build());
  // Best effort: an untrusted, read-only or full cache directory only costs speed.
  if (!trusted && !make_cache_dirs(tables)) return table;
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    // Not an image (a FIFO, a link, a directory): clear it out of our own
    // directory rather than write through it.
    if (::unlink(path.c_str()) != 0 && ::rmdir(path.c_str()) != 0) return table;
  }
  if (auto f = AtomicFile::create(path); f.ok()) {
    std::string_view head(reinterpret_cast<const char*>(&want), sizeof(want));
    if (f->write(head).ok() && f->write(table.serialize()).ok()) (void)f->commit();
  }
  return table;
}

}  // namespace tok::formats
