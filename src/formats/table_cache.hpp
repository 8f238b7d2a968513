// A cache of built merge tables under cache_dir()/tables, so that loading a
// large vocabulary (o200k_base: parse 200k base64 lines, build the index) is
// a file read on every run after the first.
//
// The key is the vocabulary file's content (a 64-bit hash of its bytes and its
// size) and the cache format version. It names the file and is written in a
// header before the image, compared on every load, so an edited vocabulary
// never meets a stale table and a copied or renamed image is refused; the
// image itself is checksummed and bounds-checked (MergeTable::deserialize).
// Only a cache directory that belongs to this user and that no one else may
// write is used, and only regular files of this user in it are read (opened
// without blocking, so a FIFO there cannot hang tok). With no home directory
// nothing is cached. Anything wrong with the cache (foreign, unwritable,
// corrupt, another tok version) only means the table is built from the file
// again. TOK_TABLE_CACHE=0 turns it off.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "bpe/merge_table.hpp"
#include "core/result.hpp"

namespace tok::formats {

// Files smaller than this are quick to parse and not cached.
inline constexpr std::size_t kTableCacheMinBytes = 256 * 1024;

// The table for vocabulary file bytes `source`: from the cache when present
// and valid, else build() (stored in the cache on success).
Result<bpe::MergeTable> cached_merge_table(std::string_view source,
                                           const std::function<Result<bpe::MergeTable>()>& build);

// Where the table for `source` is cached ("" when caching is off).
std::string table_cache_path(std::string_view source);

}  // namespace tok::formats
