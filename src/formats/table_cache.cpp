#include "formats/table_cache.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <memory>

#include "core/atomic_file.hpp"
#include "core/data_dir.hpp"
#include "core/huge_buffer.hpp"

namespace tok::formats {

std::string table_cache_path(std::string_view source) {
  const char* off = std::getenv("TOK_TABLE_CACHE");
  if (off && std::string_view(off) == "0") return {};
  if (source.size() < kTableCacheMinBytes) return {};
  return fmt::format("{}/tables/{:016x}-{}.bin", cache_dir(), bpe::hash_bytes(source),
                     source.size());
}

Result<bpe::MergeTable> cached_merge_table(
    std::string_view source, const std::function<Result<bpe::MergeTable>()>& build) {
  std::string path = table_cache_path(source);
  if (path.empty()) return build();
  // A missing, unreadable or damaged image is rebuilt.
  if (auto image = HugeBuffer::read_file(path); image.ok()) {
    // The table reads the buffer in place and keeps it.
    auto buffer = std::make_shared<const HugeBuffer>(std::move(image).value());
    auto table = bpe::MergeTable::deserialize(buffer->bytes(), buffer);
    if (table.ok()) return table;
  }
  TOK_ASSIGN(bpe::MergeTable table, build());
  // Best effort: a read-only or full cache directory only costs speed.
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  if (!ec) (void)write_file_atomic(path, table.serialize());
  return table;
}

}  // namespace tok::formats
