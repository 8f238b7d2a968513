#!/usr/bin/env bash
# `cmake --install` of the build tok was built in installs the C++ library as
# a CMake package: only the public headers, package files that name no path
# of the checkout or the build, and a program outside tok
# (tests/install/consumer: find_package(tok) + tok::tok), configured against
# the moved prefix, loads a shipped vocabulary by name and by path and
# prints exactly the ids `tok encode` prints.
source "$TOK_ROOT/tests/cli/lib.sh"
build=$(dirname "$TOK")
cmake --install "$build" --prefix "$T/stage" >"$T/install.log" 2>&1 || fail "cmake --install: $(cat "$T/install.log")"
# The prefix may be moved after installing.
mv "$T/stage" "$T/prefix"
P="$T/prefix"

expect_eq "installed headers" "include/tok/core/result.hpp include/tok/tok.hpp" \
  "$(cd "$P" && find include -type f | sort | tr '\n' ' ' | sed 's/ $//')"
config=$(cd "$P" && find . -name tokConfig.cmake)
[ -n "$config" ] || fail "no tokConfig.cmake under the prefix"
grep -rlF -e "$TOK_ROOT" -e "$build" "$P"/lib*/cmake && fail "the package files name the checkout or the build"

# The consumer, built with the compiler (and ccache) tok was built with.
cache() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
cxx=$(cache CMAKE_CXX_COMPILER)
launcher=$(cache CMAKE_CXX_COMPILER_LAUNCHER)
cmake -S "$TOK_ROOT/tests/install/consumer" -B "$T/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$P" \
  -DCMAKE_CXX_COMPILER="$cxx" ${launcher:+-DCMAKE_CXX_COMPILER_LAUNCHER="$launcher"} \
  -DCMAKE_CXX_FLAGS="-Wall -Wextra -Werror" >"$T/configure.log" 2>&1 ||
  fail "configuring the consumer: $(cat "$T/configure.log")"
cmake --build "$T/consumer" >"$T/build.log" 2>&1 || fail "building the consumer: $(cat "$T/build.log")"
app="$T/consumer/encode_ids"

text='Hello, world! Tokens: 42, déjà vu — 日本語.'
check() {  # check ENCODING SPEC: the consumer's ids for SPEC are tok encode -e ENCODING's
  local enc=$1 spec=$2 want
  want=$("$TOK" encode -e "$enc" -t "$text") || fail "tok encode -e $enc failed"
  expect_status 0 env TOK_VOCAB_DIR="$P/share/tok/vocab" "$app" "$spec" "$text"
  expect_eq "consumer ids ($spec)" "$want" "$(sed -n 1p "$T/out")"
  expect_eq "consumer count ($spec)" "$(wc -w <<<"$want")" "$(sed -n 2p "$T/out")"
  expect_eq "consumer decode ($spec)" "$text" "$(sed -n 3p "$T/out")"
}
check o200k_base o200k_base
check cl100k_base "$P/share/tok/vocab/cl100k_base.tiktoken"
expect_status 1 env TOK_VOCAB_DIR="$P/share/tok/vocab" "$app" o200k_bsae "$text"
grep -q 'o200k_bsae' "$T/err" || fail "unknown name: $(cat "$T/err")"
echo "cmake_package_full.sh: consumer built against $P and agrees with tok encode"
