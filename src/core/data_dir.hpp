// Where tok finds its shipped data (vocab/) and its cache.
#pragma once

#include <string>

namespace tok {

// $TOK_VOCAB_DIR, else vocab/ beside the shared object holding this code (the
// Python package installed by pip: tok/_tok*.so and tok/vocab/), else the
// source tree's vocab/ (a build in a checkout), else <prefix>/share/tok/vocab
// relative to the running binary (an install).
std::string vocab_dir();

// ${XDG_CACHE_HOME:-$HOME/.cache}/tok; with HOME unset the account's home
// directory (getpwuid); "" when there is none (then nothing is cached).
std::string cache_dir();

// ${XDG_CONFIG_HOME:-$HOME/.config}/tok, the same way ("" when none).
std::string config_dir();

}  // namespace tok
