#!/usr/bin/env bash
# `cmake --install` of the build tok was built in: the binary, tok(1), the
# bash, zsh and fish completions and the vocabularies land under the prefix;
# the installed binary finds its vocabularies there after the prefix is moved;
# the man page renders cleanly and names every command and long option that
# --help lists (so a man page that drifted from the binary fails); the
# completion scripts parse, and the bash one completes commands, options and
# option values.
source "$TOK_ROOT/tests/cli/lib.sh"
build=$(dirname "$TOK")
P="$T/prefix"
cmake --install "$build" --prefix "$P" >"$T/install.log" 2>&1 || fail "cmake --install: $(cat "$T/install.log")"
for f in bin/tok share/man/man1/tok.1 share/bash-completion/completions/tok share/zsh/site-functions/_tok \
  share/fish/vendor_completions.d/tok.fish share/tok/vocab/o200k_base.tiktoken share/tok/vocab/models.json \
  share/tok/vocab/tok-tiny-bible.gguf; do
  [ -s "$P/$f" ] || fail "install: $f missing or empty"
done
[ -x "$P/bin/tok" ] || fail "install: bin/tok not executable"

# The installed binary reads the prefix's vocabularies, wherever the prefix
# is moved: with the prefix's o200k_base removed, the error names the moved
# prefix, not the source tree.
mv "$P" "$T/moved"
P="$T/moved"
printf 'hello world\n' >"$T/h.txt"
expect_status 0 env -u TOK_VOCAB_DIR "$P/bin/tok" count -e o200k_base "$T/h.txt"
grep -qE '^ +3 +12 ' "$T/out" || fail "moved prefix: count: $(cat "$T/out")"
mv "$P/share/tok/vocab/o200k_base.tiktoken" "$T/o200k.saved"
expect_error 1 "$P/share/tok/vocab/o200k_base.tiktoken: no such file" env -u TOK_VOCAB_DIR "$P/bin/tok" count -e o200k_base "$T/h.txt"
mv "$T/o200k.saved" "$P/share/tok/vocab/o200k_base.tiktoken"

# The generators are hidden from --help; a bad shell is a usage error.
"$TOK" --help | grep -q generate- && fail "--help lists the hidden generator flags"
expect_error 2 "unknown shell 'tcsh'" "$TOK" --generate-completion tcsh
expect_error 2 "needs one shell" "$TOK" --generate-completion
"$TOK" --generate-man >/dev/full 2>"$T/err"
expect_eq "--generate-man >/dev/full: status" 1 $?
grep -q '^tok: error: cannot write output' "$T/err" || fail "--generate-man >/dev/full: $(cat "$T/err")"

# The man page: groff renders it without a warning, man too where installed.
man1="$P/share/man/man1/tok.1"
command -v groff >/dev/null || fail "groff is missing (Debian package groff-base; scripts/setup.sh installs it)"
groff -man -Tutf8 -ww -z "$man1" 2>"$T/groff.err" || fail "groff failed: $(cat "$T/groff.err")"
[ -s "$T/groff.err" ] && fail "groff warnings: $(head -5 "$T/groff.err")"
groff -man -Tutf8 "$man1" 2>/dev/null | grep -q 'tok count' || fail "the rendered man page lacks 'tok count'"
if command -v man >/dev/null; then
  MANWIDTH=80 man -l "$man1" 2>"$T/man.err" | head -3 | grep -q '^TOK(1)' || fail "man -l: $(cat "$T/man.err")"
fi

# Every command and long option of --help is in the man page, in the section
# of its command. check_help CMD...: the --help of `tok CMD...` against the
# man section "tok CMD...", then its subcommands.
man_section() {  # the roff text of .SS "tok CMD...", minus font and minus escapes
  awk -v want=".SS \"$1\"" '$0 == want {on = 1; next} /^\.S[SH] / {on = 0} on' "$man1" |
    sed -e 's/\\-/-/g' -e 's/\\f[BIR]//g'
}
checked=0
check_help() {
  local name="tok${*:+ $*}" help section opt sub
  help=$("$TOK" "$@" --help) || fail "$name --help failed"
  if [ $# -eq 0 ]; then
    section=$(sed -n '/^\.SH OPTIONS/,/^\.SH COMMANDS/p' "$man1" | sed -e 's/\\-/-/g' -e 's/\\f[BIR]//g')
  else
    section=$(man_section "$name")
    [ -n "$section" ] || fail "man page has no section for '$name'"
  fi
  for opt in $(printf '%s\n' "$help" | awk '/^  -/ {print $1}' | tr ',' '\n' | sed -n 's/^\(--[A-Za-z0-9][A-Za-z0-9-]*\).*/\1/p'); do
    [ "$opt" = --help ] && [ $# -gt 0 ] && continue  # listed once, under OPTIONS
    grep -qe "^$opt\( \|,\|$\)" <<<"$section" || grep -qe ", $opt\( \|$\)" <<<"$section" ||
      fail "man page section '$name' lacks $opt"
    checked=$((checked + 1))
  done
  for sub in $(printf '%s\n' "$help" | sed -n '/^Subcommands:/,/^$/p' | awk '/^  [a-z]/ {print $1}'); do
    check_help "$@" "$sub"
  done
}
check_help
[ "$checked" -gt 100 ] || fail "only $checked long options checked; is the --help parsing broken?"

# The completion scripts parse.
bash -n "$P/share/bash-completion/completions/tok" || fail "bash -n: the bash completion"
for sh in zsh fish; do
  f=$([ $sh = zsh ] && echo "$P/share/zsh/site-functions/_tok" || echo "$P/share/fish/vendor_completions.d/tok.fish")
  if command -v $sh >/dev/null; then
    $sh -n "$f" || fail "$sh -n: $f"
  else
    echo "install.sh: $sh not installed (Debian package $sh; not needed by the fast suite): $sh -n skipped" >&2
  fi
done

# bash completion: commands, options, option values.
complete_words() {  # complete_words WORD...: COMPREPLY for the last word
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _tok; echo "${COMPREPLY[*]}"' \
    _ "$P/share/bash-completion/completions/tok" "$@"
}
expect_eq "tok enc<TAB>" "encode" "$(complete_words tok enc)"
expect_eq "tok vocab <TAB>" "fetch list info" "$(complete_words tok vocab '')"
expect_eq "tok encode --spec<TAB>" "--special" "$(complete_words tok encode --spec)"
expect_eq "tok encode --special <TAB>" "error allow text" "$(complete_words tok encode --special '')"
expect_eq "tok count -e cl100<TAB>" "cl100k_base cl100k" "$(complete_words tok count -e cl100)"
expect_eq "tok vocab info -e qwe<TAB>" "qwen3" "$(complete_words tok vocab info -e qwe)"
complete_words tok count -m gpt-4o | grep -qw gpt-4o || fail "tok count -m gpt-4o<TAB>: no catalog model"
expect_eq "tok generate -m <TAB> (files)" "" "$(complete_words tok generate -m '')"
# fish completion, where fish is installed (complete -C asks it directly).
if command -v fish >/dev/null; then
  fish_complete() {  # fish_complete LINE: the completions, without descriptions
    (cd "$T" && fish -c 'source $argv[1]; complete -C"$argv[2]"' "$P/share/fish/vendor_completions.d/tok.fish" "$1") |
      cut -f1 | tr '\n' ' '
  }
  expect_eq "fish: tok enc<TAB>" "encode " "$(fish_complete 'tok enc')"
  expect_eq "fish: tok vocab <TAB>" "fetch info list " "$(fish_complete 'tok vocab ')"
  expect_eq "fish: tok encode --special <TAB>" "allow error text " "$(fish_complete 'tok encode --special ')"
  expect_eq "fish: tok count -e cl100<TAB>" "cl100k cl100k_base " "$(fish_complete 'tok count -e cl100')"
  fish_complete 'tok count ' | grep -qw h.txt || fail "fish: tok count <TAB>: no file names"
  expect_eq "fish: tok models <TAB> (takes no file)" "" "$(fish_complete 'tok models ')"
  fish_complete 'tok models --models ' | grep -qw h.txt || fail "fish: tok models --models <TAB>: no file names"
fi
echo "install.sh: $checked long options checked against the man page"
