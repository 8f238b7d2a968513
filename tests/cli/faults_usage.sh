# Usage errors: exit 2 and one line "tok: error: ...". Unknown encodings
# (exit 1) suggest the closest names.
source "$(dirname "$0")/lib.sh"

expect_error 2 "A subcommand is required|subcommand" "$TOK"
expect_error 2 "^tok: error: unknown command 'bogus'; commands: encode, decode, count" "$TOK" bogus
expect_error 2 "^tok: error: unknown command 'encdoe'; did you mean encode\?" "$TOK" encdoe
expect_error 2 "--nope" "$TOK" encode --nope
expect_error 2 "threads" "$TOK" count --threads many
expect_error 2 "special" "$TOK" encode --special maybe
expect_error 2 "json|tokens" "$TOK" encode --json --tokens
expect_error 2 "encoding" "$TOK" encode -e

expect_error 1 "^tok: error: unknown encoding 'o200k_bse'; did you mean .*o200k_base" "$TOK" encode -e o200k_bse
expect_error 1 "did you mean .*cl100k_base" "$TOK" count -e cl100kbase
expect_error 1 "did you mean .*r50k" "$TOK" decode -e r50 1
expect_error 1 "^tok: error: unknown encoding 'zzzzzzzz'; known: o200k_base" "$TOK" encode -e zzzzzzzz
expect_error 1 "^tok: error: unknown encoding 'ñ_bäse'" "$TOK" encode -e 'ñ_bäse'
expect_error 1 '^tok: error: unknown encoding .a\\x1b\[31mb.' "$TOK" encode -e $'a\e[31mb'  # escaped, one line
expect_error 1 "^tok: error: $T/no.tiktoken: no such vocabulary file$" "$TOK" encode -e "$T/no.tiktoken"
expect_error 1 "^tok: error: $T: is a directory without tokenizer.json or vocab.json \\+ merges.txt; expected an encoding name or a vocabulary file$" \
  "$TOK" encode -e "$T"
echo hi >"$T/vocab.txt"
expect_error 1 "unrecognized vocabulary format" "$TOK" encode -e "$T/vocab.txt"
expect_error 1 "regex|pattern" "$TOK" encode --pattern '([unclosed' "$T/vocab.txt"
exit 0
