#!/usr/bin/env bash
# tok's character classes are Unicode 16.0, the version of tiktoken's and
# Hugging Face tokenizers' regex engines: --version says so, and a letter
# assigned in 16.0 is a letter for the named scanners and for \p{L} in a
# user's --pattern (the general regex path), inside and outside classes.
source "$(dirname "$0")/lib.sh"
cd "$T"

"$TOK" --version >version.txt || fail "--version"
expect_eq "--version's Unicode line" "Unicode 16.0" "$(sed -n 2p version.txt)"

# U+10D4E GARAY VOWEL LENGTH MARK (Lm, new in 16.0), then "'l": tiktoken's
# o200k_base gives [172,238,113,236,54602] (the letter, then "'l"); as an
# unassigned character it took the "'" (..., 6, 75).
printf "\xf0\x90\xb5\x8e'l" >garay.txt
expect_eq "o200k scanner" "172 238 113 236 54602" "$("$TOK" encode -e o200k_base garay.txt)"
o200k="[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
expect_eq "o200k's pattern on the regex path" "172 238 113 236 54602" \
  "$("$TOK" encode -e o200k_base --pattern "(?:$o200k)" garay.txt)"
for p in "\\p{L}'l|." "[\\p{L}]'l|." "[^\\P{L}]'l|." "\\p{Letter}'l|." "\\pL'l|."; do
  expect_eq "--pattern $p" "172 238 113 236 54602" "$("$TOK" encode -e o200k_base --pattern "$p" garay.txt)"
done
