#!/usr/bin/env bash
# Output paths that are not regular files. A character device, FIFO or socket
# is written in place and stays what it was (as root, `tok show --html
# /dev/null f` must not turn /dev/null into a file); a symbolic link keeps
# pointing where it did while its target is replaced; "-" is stdout; a block
# device or a directory is refused. Devices are nodes made here with mknod
# (a null and a full device), never the real /dev entries, so a wrong tok
# cannot harm the machine.
source "$(dirname "$0")/lib.sh"
M="$TOK_ROOT/vocab/tok-tiny-bible.gguf"
S="$TOK_TEST_DATA/train/sample.txt"
printf 'Hello, world. The quick brown fox.\n' >"$T/in.txt"
mkdir "$T/par"
printf 'The river is beautiful.\n' >"$T/par/en.txt"
printf 'Река красивая.\n' >"$T/par/ru.txt"
"$TOK" show --html "$T/ref.html" "$T/in.txt" || fail "show --html to a file"

is_char_device() { [ -c "$2" ] || fail "$1: $2 is no longer a character device ($(stat -c %F "$2"))"; }
no_temporaries() {
  local left
  left=$(find "$T" -name '*.tmp.*')
  [ -z "$left" ] || fail "$1: temporary files left behind: $left"
}

# --- character devices (made here; skipped where mknod is not allowed).
if mknod "$T/null" c 1 3 2>/dev/null && mknod "$T/full" c 1 7 2>/dev/null; then
  expect_status 0 "$TOK" show --html "$T/null" "$T/in.txt"
  is_char_device "show --html to a null device" "$T/null"
  expect_status 0 "$TOK" quantize "$M" "$T/null" --type q8_0
  is_char_device "quantize to a null device" "$T/null"
  expect_status 0 "$TOK" train "$S" --save-counts "$T/null" -q
  is_char_device "train --save-counts to a null device" "$T/null"
  expect_status 0 "$TOK" compare -q -e cl100k_base --no-composition --svg "$T/null" --html "$T/null" "$T/par"
  is_char_device "compare --svg --html to a null device" "$T/null"
  expect_error 1 "^tok: error: $T/full: cannot write: no space left on device$" \
    "$TOK" show --html "$T/full" "$T/in.txt"
  is_char_device "show --html to a full device" "$T/full"
  expect_error 1 "^tok: error: $T/full: cannot write: no space left on device$" \
    "$TOK" quantize "$M" "$T/full" --type q8_0
  is_char_device "quantize to a full device" "$T/full"
  # A block device node with a number no driver has: refused, never replaced.
  if mknod "$T/blk" b 240 250 2>/dev/null; then
    expect_error 1 "^tok: error: $T/blk: is a block device" "$TOK" show --html "$T/blk" "$T/in.txt"
    [ -b "$T/blk" ] || fail "the block device node was replaced"
  fi
  no_temporaries "devices"
else
  echo "mknod not permitted: character device cases skipped"
fi

# --- a FIFO: written in place, its reader gets the page.
mkfifo "$T/fifo"
cat "$T/fifo" >"$T/from-fifo" &
reader=$!
expect_status 0 timeout 20 "$TOK" show --html "$T/fifo" "$T/in.txt"
wait "$reader"
[ -p "$T/fifo" ] || fail "the FIFO was replaced"
cmp -s "$T/from-fifo" "$T/ref.html" || fail "the FIFO's reader did not get the page"

# --- a listening Unix socket: the page goes over a connection.
if command -v python3 >/dev/null; then
  python3 - "$T/sock" "$T/from-sock" <<'PY' &
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1]); s.listen(1)
open(sys.argv[2] + ".ready", "w").close()
c, _ = s.accept()
with open(sys.argv[2], "wb") as f:
    while True:
        b = c.recv(65536)
        if not b: break
        f.write(b)
PY
  server=$!
  for _ in $(seq 100); do [ -e "$T/from-sock.ready" ] && break; sleep 0.05; done
  expect_status 0 timeout 20 "$TOK" show --html "$T/sock" "$T/in.txt"
  wait "$server"
  [ -S "$T/sock" ] || fail "the socket was replaced"
  cmp -s "$T/from-sock" "$T/ref.html" || fail "the socket's peer did not get the page"
fi

# --- "-" is standard output.
"$TOK" show --html - "$T/in.txt" >"$T/stdout.html" || fail "show --html -"
cmp -s "$T/stdout.html" "$T/ref.html" || fail "show --html - differs from the file"
[ -e ./- ] && fail "show --html - created a file named -"

# --- a link like /dev/stdout (made here: /proc/self/fd/1) with stdout a pipe:
# the link leads to "pipe:[...]", which names no file; the pipe gets the page.
ln -s /proc/self/fd/1 "$T/my-stdout"
"$TOK" show --html "$T/my-stdout" "$T/in.txt" | cat >"$T/piped.html"
cmp -s "$T/piped.html" "$T/ref.html" || fail "show --html to a /dev/stdout-like link on a pipe"
[ -L "$T/my-stdout" ] || fail "the /dev/stdout-like link was replaced"

# --- symbolic links: the target is replaced, the link stays.
echo old >"$T/real.html"
ln -s real.html "$T/link.html"
expect_status 0 "$TOK" show --html "$T/link.html" "$T/in.txt"
[ -L "$T/link.html" ] || fail "the symbolic link was replaced by a file"
cmp -s "$T/real.html" "$T/ref.html" || fail "the link's target was not rewritten"
mkdir "$T/sub"
ln -s ../link.html "$T/sub/chain.html"  # a link to a link, relative to its directory
echo old >"$T/real.html"
expect_status 0 "$TOK" quantize "$M" "$T/sub/chain.html" --type q8_0
[ -L "$T/sub/chain.html" ] && [ -L "$T/link.html" ] || fail "a link in the chain was replaced"
[ "$(head -c 4 "$T/real.html")" == GGUF ] || fail "the end of the link chain was not rewritten"
ln -s new.html "$T/dangling.html"
expect_status 0 "$TOK" show --html "$T/dangling.html" "$T/in.txt"
[ -L "$T/dangling.html" ] || fail "the dangling link was replaced"
cmp -s "$T/new.html" "$T/ref.html" || fail "the dangling link's target was not created"
ln -s loop2 "$T/loop1"; ln -s loop1 "$T/loop2"
expect_error 1 "^tok: error: $T/loop1: too many levels of symbolic links$" \
  "$TOK" show --html "$T/loop1" "$T/in.txt"
expect_error 1 "^tok: error: $T/sub: is a directory$" "$TOK" show --html "$T/sub" "$T/in.txt"
no_temporaries "links"
echo ok
