# tok compare's charts and report are replaced together (issue 19, item 2):
# with the disk "full" (a 3 KiB file size limit: the 2.3 KB chart fits, the
# 4.2 KB report does not) the run fails with one line, and both previous
# files stay as they were, with no temporary left.
source "$(dirname "$0")/lib.sh"
mkdir "$T/par" "$T/charts"
printf 'The river is beautiful.\n' >"$T/par/en.txt"
printf 'Река красивая.\n' >"$T/par/ru.txt"
printf old >"$T/charts/c.svg"
printf old >"$T/charts/r.html"
expect_error 1 "cannot write: file too large" bash -c \
  "trap '' XFSZ; ulimit -f 3; exec '$TOK' compare -q -e cl100k_base --no-composition --svg '$T/charts/c.svg' --html '$T/charts/r.html' '$T/par'"
expect_eq "chart after a failed run" old "$(cat "$T/charts/c.svg")"
expect_eq "report after a failed run" old "$(cat "$T/charts/r.html")"
expect_eq "files left" "c.svg r.html" "$(ls "$T/charts" | tr '\n' ' ' | sed 's/ $//')"
expect_status 0 "$TOK" compare -q -e cl100k_base --no-composition --svg "$T/charts/c.svg" --html "$T/charts/r.html" "$T/par"
grep -q '<svg' "$T/charts/c.svg" || fail "no chart written"
exit 0
