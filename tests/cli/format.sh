#!/usr/bin/env bash
# The C++ sources in src/ and tests/ are formatted as .clang-format says
# (scripts/format applies it): the files that differ are listed, each with its
# first differing line.
source "$(dirname "$0")/lib.sh"
"$TOK_ROOT/scripts/format" --check >"$T/out" 2>"$T/err" ||
  fail "$(cat "$T/err"):"$'\n'"$(cat "$T/out")"
echo ok
