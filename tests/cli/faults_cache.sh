#!/usr/bin/env bash
# The table cache cannot lie: an image is used only when its header names the
# exact vocabulary (content hash, size, format version), only from a cache
# directory of this user that no one else may write, and only when it is a
# regular file (a FIFO there neither hangs tok nor counts).
source "$(dirname "$0")/lib.sh"
printf 'Hello, world! Some text to encode: 12345, ünïcödé.' >"$T/text"
text="$T/text"
want_o200k=$(TOK_TABLE_CACHE=0 "$TOK" encode -e o200k_base "$text")
want_cl100k=$(TOK_TABLE_CACHE=0 "$TOK" encode -e cl100k_base "$text")
[ "$want_o200k" != "$want_cl100k" ] || fail "the two encodings agree; the test proves nothing"
export XDG_CACHE_HOME="$T/cache"
tables="$T/cache/tok/tables"

expect_eq "cl100k, first run" "$want_cl100k" "$("$TOK" encode -e cl100k_base "$text")"
cl_image=$(ls "$tables"/*.bin)
expect_eq "o200k, first run" "$want_o200k" "$("$TOK" encode -e o200k_base "$text")"
o_image=$(ls "$tables"/*.bin | grep -v "$cl_image")
[ -f "$o_image" ] || fail "no o200k image was cached"
[ "$(stat -c %a "$tables")" == 700 ] || fail "the tables directory is not private: $(stat -c %a "$tables")"

# cl100k's image under o200k's name: refused (and rebuilt), never used.
cp "$cl_image" "$o_image"
expect_eq "o200k with cl100k's image in its place" "$want_o200k" "$("$TOK" encode -e o200k_base "$text")"
cmp -s "$cl_image" "$o_image" && fail "the planted image was not replaced by a rebuilt one"
expect_eq "o200k, rebuilt image" "$want_o200k" "$("$TOK" encode -e o200k_base "$text")"

# A FIFO where the image should be: no hang, right ids, replaced by an image.
rm "$o_image"; mkfifo "$o_image"
expect_eq "o200k with a FIFO in the cache" "$want_o200k" "$(timeout 20 "$TOK" encode -e o200k_base "$text")"
[ -f "$o_image" ] || fail "the FIFO was not replaced by an image"

# A cache directory others may write, or owned by another user: not used at
# all (nothing read from it, nothing written to it).
rm -f "$tables"/*.bin
chmod 777 "$tables"
expect_eq "o200k, world-writable cache" "$want_o200k" "$("$TOK" encode -e o200k_base "$text")"
[ -z "$(ls "$tables")" ] || fail "tok wrote into a world-writable cache directory"
chmod 700 "$tables"
if [ "$(id -u)" == 0 ]; then
  chown 65534 "$tables"
  expect_eq "o200k, another user's cache" "$want_o200k" "$("$TOK" encode -e o200k_base "$text")"
  [ -z "$(ls "$tables")" ] || fail "tok wrote into another user's cache directory"
  chown 0 "$tables"
fi

# No home directory at all: nothing cached under /tmp.
before=$(ls -d /tmp/.cache/tok/tables 2>/dev/null)
expect_eq "o200k, HOME unset" "$want_o200k" \
  "$(env -u HOME -u XDG_CACHE_HOME "$TOK" encode -e o200k_base "$text")"
[ -n "$before" ] || [ ! -e /tmp/.cache/tok/tables ] || fail "tok made a shared cache in /tmp/.cache/tok"
echo ok
