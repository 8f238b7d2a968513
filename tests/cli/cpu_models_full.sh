#!/usr/bin/env bash
# tok runs on x86-64 CPUs without AVX-512 or without AVX at all: the binary
# is emulated (qemu-user) as a Nehalem (SSE4.2, no AVX) and as a Haswell
# (AVX2, no AVX-512). Only the kernel files are built with ISA flags, and
# code in them must never run unless the CPU has the ISA: a constructor of a
# global in such a file, or an inline function whose AVX-512 copy the linker
# keeps, would stop the program with SIGILL on those CPUs at once. Each
# emulated run must pick the kernel set its CPU allows (`--stats`), and give
# the native run's greedy text, ids and counts.
source "$(dirname "$0")/lib.sh"
if ! command -v qemu-x86_64 >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q qemu-user >/dev/null 2>&1
  fi
  command -v qemu-x86_64 >/dev/null || fail "qemu-x86_64 is missing (apt-get install qemu-user)"
fi
prompt="In the beginning"
"$TOK" generate --greedy -n 24 "$prompt" >"$T/native.txt" 2>/dev/null || fail "native generate"
printf 'naïve café 東京 — def f(x):\n\treturn x**2  # ok\n' >"$T/text"
for enc in cl100k_base o200k_base; do "$TOK" encode -e $enc "$T/text" >>"$T/native.ids" || fail "native encode"; done
"$TOK" count -e o200k_base "$T/text" >"$T/native.count" || fail "native count"
for cpu in Nehalem:scalar Haswell:avx2; do
  model=${cpu%%:*} want=${cpu##*:}
  run() { qemu-x86_64 -cpu "$model" "$TOK" "$@"; }
  run generate --greedy -n 24 --stats "$prompt" >"$T/out.txt" 2>"$T/err" || fail "$model: generate: exit $?: $(tail -3 "$T/err")"
  got=$(grep -o '"kernels":"[^"]*"' "$T/err")
  expect_eq "$model: kernel set" "\"kernels\":\"$want\"" "$got"
  cmp -s "$T/native.txt" "$T/out.txt" || fail "$model: greedy text differs: [$(cat "$T/out.txt")] vs [$(cat "$T/native.txt")]"
  : >"$T/emu.ids"
  for enc in cl100k_base o200k_base; do run encode -e $enc "$T/text" >>"$T/emu.ids" 2>"$T/err" || fail "$model: encode -e $enc: $(cat "$T/err")"; done
  cmp -s "$T/native.ids" "$T/emu.ids" || fail "$model: encode ids differ from the native run"
  run count -e o200k_base "$T/text" >"$T/emu.count" 2>"$T/err" || fail "$model: count: $(cat "$T/err")"
  cmp -s "$T/native.count" "$T/emu.count" || fail "$model: count differs from the native run"
done
echo "ok: emulated Nehalem (scalar kernels) and Haswell (AVX2) runs match the native one"
