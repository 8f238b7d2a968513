# A command that reads its input from a terminal says so on stderr (as
# llama-cli does) instead of waiting silently (issue 43): `tok generate` and
# `tok count` with no input, stdin a pseudo-terminal (python's pty module),
# print "tok: reading standard input (Ctrl-D to end)" once, then read what
# is typed up to Ctrl-D. From a pipe or a file nothing is said.
source "$(dirname "$0")/lib.sh"
notice='tok: reading standard input (Ctrl-D to end)'
# on_tty TEXT CMD...: runs CMD with stdin a terminal on which TEXT and then
# Ctrl-D are typed; its stdout goes to $T/out, its stderr to $T/err.
on_tty() {
  local text=$1; shift
  /usr/bin/python3 - "$text" "$T/out" "$T/err" "$@" <<'PY' || fail "on a terminal: $*: $(cat "$T/err")"
import os, pty, subprocess, sys, time
text, out, err, cmd = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
master, slave = pty.openpty()
with open(out, "wb") as o, open(err, "wb") as e:
    p = subprocess.Popen(cmd, stdin=slave, stdout=o, stderr=e)
    os.close(slave)
    # The notice comes before tok reads: wait for it, then type.
    deadline = time.time() + 20
    while time.time() < deadline and os.path.getsize(err) == 0 and p.poll() is None:
        time.sleep(0.02)
    os.write(master, text.encode() + b"\n\x04")
    try:
        rc = p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        sys.exit("still reading after Ctrl-D")
os.close(master)
sys.exit(rc)
PY
}
on_tty "hello world" "$TOK" count
expect_eq "count: the notice" "$notice" "$(cat "$T/err")"
expect_eq "count: what was typed is counted" "$(printf 'hello world\n' | "$TOK" count)" "$(cat "$T/out")"
on_tty "In the beginning" "$TOK" generate --greedy -n 4
expect_eq "generate: the notice" "$notice" "$(cat "$T/err")"
expect_eq "generate: the typed prompt" "$(printf 'In the beginning\n' | "$TOK" generate --greedy -n 4)" "$(cat "$T/out")"
# A prompt, a file or a pipe: not a terminal read, no notice.
on_tty "" "$TOK" generate --greedy -n 2 "In the beginning"
expect_eq "generate PROMPT on a terminal: no notice" "" "$(cat "$T/err")"
printf 'hello\n' | "$TOK" count 2>"$T/err" >/dev/null || fail "count from a pipe"
expect_eq "count from a pipe: no notice" "" "$(cat "$T/err")"
"$TOK" generate --greedy -n 2 </dev/null >/dev/null 2>"$T/err"
grep -qF "$notice" "$T/err" && fail "generate from /dev/null said it reads a terminal"
echo "ok: a terminal read is announced once"
