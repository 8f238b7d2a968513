#!/usr/bin/env bash
# Invalid UTF-8 in SentencePiece-style vocabularies (character symbols, byte
# fallback, no pre-tokenizer): an invalid byte is a run of its own and the
# text after it is encoded normally; decode gives every byte back, or warns
# which ids are <unk> (docs/encode.md, "Invalid UTF-8").
source "$(dirname "$0")/lib.sh"

# Mistral (shipped): "a" after an invalid byte is the token "a" (28708),
# whichever byte it follows; <0xE5> is 232, <0xFF> 258.
expect_eq "mistral \\xe5a" "28705 232 28708" "$(printf '\xe5a' | "$TOK" encode -e mistral)"
expect_eq "mistral \\xffa" "28705 258 28708" "$(printf '\xffa' | "$TOK" encode -e mistral)"
# Hugging Face, given U+FFFD where the invalid bytes are, gives the same ids
# around it ("▁", "�", "ab"; "▁x", "�", "é", "y").
expect_eq "mistral \\xf0\\x9fab" "28705 243 162 375" "$(printf '\xf0\x9fab' | "$TOK" encode -e mistral)"
expect_eq "mistral x\\xc3\\xc3\\xa9y" "1318 198 28797 28724" "$(printf 'x\xc3\xc3\xa9y' | "$TOK" encode -e mistral)"
# A SentencePiece GGUF (llama.cpp's llama-spm vocabulary) the same way.
spm="$TOK_TEST_DATA/llama.cpp-vocab/ggml-vocab-llama-spm.gguf"
expect_eq "llama-spm \\xe5a" "29871 232 29874" "$(printf '\xe5a' | "$TOK" encode -e "$spm")"
expect_eq "llama-spm \\xffa" "29871 258 29874" "$(printf '\xffa' | "$TOK" encode -e "$spm")"
for s in '\xe5a' '\xe5\t b' 'x\xc3\xc3\xa9y' '\xf0\x9f\x98' '\xed\xa0\x80z' '\xe5'; do
  printf "$s" >"$T/in"
  "$TOK" encode -e mistral "$T/in" | "$TOK" decode -e mistral >"$T/back" 2>"$T/err" ||
    fail "mistral round trip of $s failed: $(cat "$T/err")"
  cmp -s "$T/in" "$T/back" || fail "mistral round trip of $s gave $(od -c "$T/back" | head -1)"
  [ -s "$T/err" ] && fail "mistral decode of $s warned: $(cat "$T/err")"
done

# A gemini-like vocabulary: byte tokens for 0xE5 only, "\t" and "a" as
# characters, <unk> for bytes without a token.
cat >"$T/g.json" <<'JSON'
{"model":{"type":"BPE","byte_fallback":true,"unk_token":"<unk>",
  "vocab":{"<unk>":0,"<0xE5>":1,"\t":2,"a":3,"b":4,"ab":5},"merges":["a b"]}}
JSON
expect_eq "gemini-like \\xe5\\t" "1 2 5" "$(printf '\xe5\tab' | "$TOK" encode -e "$T/g.json")"
printf '\xe5\tab' >"$T/in"
"$TOK" encode -e "$T/g.json" "$T/in" | "$TOK" decode -e "$T/g.json" >"$T/back" 2>"$T/err" ||
  fail "gemini-like decode failed"
cmp -s "$T/in" "$T/back" || fail "gemini-like round trip"
[ -s "$T/err" ] && fail "gemini-like decode warned: $(cat "$T/err")"

# Bytes without a token are <unk>: decode writes the bytes it has and warns
# once, naming the id and its positions (arguments, and a stream of ids).
expect_eq "unk" "0 3 0 2" "$(printf '\xe4a\xe4\t' | "$TOK" encode -e "$T/g.json")"
expect_status 0 "$TOK" decode -e "$T/g.json" 0 3 0 2
expect_eq "decode with <unk>" "<unk>a<unk>	" "$(cat "$T/out")"
expect_eq "one warning line" "1" "$(wc -l <"$T/err")"
grep -q '^tok: warning: id 0 (<unk>) at positions 0, 2 (counting from 0) stand for bytes that have no token' "$T/err" ||
  fail "decode warning: $(cat "$T/err")"
echo "3 3 0" | "$TOK" decode -e "$T/g.json" >"$T/out" 2>"$T/err" || fail "stream decode failed"
grep -q '^tok: warning: id 0 (<unk>) at position 2 (counting from 0) stands for' "$T/err" ||
  fail "stream decode warning: $(cat "$T/err")"
# No warning without <unk>, nor for vocabularies that have none.
"$TOK" decode -e "$T/g.json" 1 2 5 >/dev/null 2>"$T/err"
[ -s "$T/err" ] && fail "warned without <unk>: $(cat "$T/err")"
"$TOK" decode 0 1 2 >/dev/null 2>"$T/err"
[ -s "$T/err" ] && fail "o200k_base decode warned: $(cat "$T/err")"
# Mistral has every byte token, so its <unk> never stands for lost bytes.
"$TOK" decode -e mistral 0 1 2 >/dev/null 2>"$T/err"
[ -s "$T/err" ] && fail "mistral decode of <unk> warned: $(cat "$T/err")"
true
