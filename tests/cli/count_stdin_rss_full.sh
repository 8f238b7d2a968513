# Counting an unbounded stream keeps memory bounded: 300 MB of random bytes on
# stdin must peak well under 200 MB RSS (tok count reads stdin in chunks).
source "$(dirname "$0")/lib.sh"
[ -x /usr/bin/time ] || fail "/usr/bin/time is needed (apt-get install time)"
head -c 300000000 /dev/urandom | /usr/bin/time -v "$TOK" count -q >"$T/n" 2>"$T/time" ||
  fail "count of 300 MB stdin failed: $(grep -v '^\s' "$T/time" | head -3)"
rss_kb=$(awk -F: '/Maximum resident set size/ {gsub(/ /, "", $2); print $2}' "$T/time")
echo "count of 300 MB stdin: $(cat "$T/n") tokens, peak RSS $((rss_kb / 1024)) MB"
[ "$rss_kb" -lt $((200 * 1024)) ] ||
  fail "count of 300 MB stdin peaked at $((rss_kb / 1024)) MB RSS (limit 200 MB): stdin is not streamed"
exit 0
