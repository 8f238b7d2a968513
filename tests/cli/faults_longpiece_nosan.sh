# Long pieces and endless devices in bounded memory (not under sanitizers:
# they reserve address space and slow the 16 MiB merge tenfold).
#  - a piece just under the 16 MiB limit merges in linear time and about
#    8 bytes per byte (the heap merge took 620 MB of it);
#  - /dev/zero where a whole stream is read stops at its limit holding about
#    the limit, not twice it (2 GB before);
#  - a prompt from stdin stops at 256 MiB.
# The timeouts only catch a hang: reading 1 GiB takes seconds idle but
# more than a minute on a loaded CI machine.
source "$(dirname "$0")/lib.sh"
M="$TOK_ROOT/tests/fuzz/corpus/gguf/llama_f32_tied.gguf"

head -c 16777000 /dev/zero | tr '\0' a >"$T/run"
got=$(bash -c "ulimit -v 320000; exec timeout 120 '$TOK' count -q '$T/run'" 2>"$T/err") ||
  fail "count of a 16 MiB run under ulimit -v 320000 failed: $(cat "$T/err")"
expect_eq "tokens of a 16 MiB run of 'a'" 2097125 "$got"
bash -c "ulimit -v 320000; exec timeout 120 '$TOK' encode '$T/run'" >"$T/ids" 2>"$T/err" ||
  fail "encode of a 16 MiB run under ulimit -v 320000 failed: $(cat "$T/err")"
"$TOK" decode "$T/ids" | cmp -s - "$T/run" || fail "decode(encode(16 MiB run)) differs"

expect_error 1 "<stdin>: a stream of more than 1024 MiB" \
  bash -c "ulimit -v 1400000; exec timeout 300 '$TOK' train --vocab-size 300 -o '$T/v' </dev/zero"
expect_error 1 "/dev/zero: a stream of more than 1024 MiB" \
  bash -c "ulimit -v 1400000; exec timeout 300 '$TOK' generate -m /dev/zero hi"
expect_error 1 "<stdin>: a stream of more than 256 MiB" \
  bash -c "ulimit -v 600000; exec timeout 300 '$TOK' generate -m '$M' -n 1 </dev/zero"
exit 0
