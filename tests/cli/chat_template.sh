#!/usr/bin/env bash
# tok generate --chat / --system / --print-prompt with small templates of
# tests/data/chat (written for these tests; the real templates are compared
# with @huggingface/jinja in chat_template_full). Expected texts are written
# out by hand from the templates.
source "$TOK_ROOT/tests/cli/lib.sh"
D="$TOK_TEST_DATA/chat"
prompt() { "$TOK" generate --print-prompt "$@"; }

# ChatML: the system turn from the conversation, content trimmed, non-ASCII
# and newlines kept, the generation prompt last.
prompt --chat "$D/messages.json" --chat-template-file "$D/chatml.jinja" >"$T/got" || fail "chatml"
printf '<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi there\nfriend<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n<|im_start|>user\nÇa va ? 🙂<|im_end|>\n<|im_start|>assistant\n' >"$T/want"
cmp -s "$T/want" "$T/got" || fail "chatml: got [$(cat "$T/got")]"

# --system and a bare prompt: a one-turn conversation; --system '' has no
# system turn, so the template's default appears.
expect_eq "system + prompt" "$(printf '<|im_start|>system\nBe kind.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n')" \
  "$(prompt --system 'Be kind.' --chat-template-file "$D/chatml.jinja" Hi)"
expect_eq "no system turn" "$(printf '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n')" \
  "$(echo Hi | prompt --system '' --chat-template-file "$D/chatml.jinja")"
# Messages on stdin, the PROMPT appended as the last user turn.
expect_eq "stdin + prompt" "$(printf '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\na<|im_end|>\n<|im_start|>user\nb<|im_end|>\n<|im_start|>assistant\n')" \
  "$(echo '[{"role": "user", "content": "a"}]' | prompt --chat - --chat-template-file "$D/chatml.jinja" b)"

# [INST]: BOS from the vocabulary, the system turn folded into the first
# user turn, EOS after each reply.
bos=$(echo '{{ bos_token }}' >"$T/bos.jinja"; prompt --system '' --chat-template-file "$T/bos.jinja" x)
[ -n "$bos" ] || fail "the default model has no BOS text"
expect_eq "inst" "${bos}[INST] Be brief.

  Hi there
friend   [/INST] Hello!${bos}[INST] Ça va ? 🙂 [/INST]" "$(prompt --chat "$D/messages.json" --chat-template-file "$D/inst.jinja")"

# Macros, keyword arguments, loop variables, tojson(sort_keys), selectattr, map.
expect_eq "tools" '<|USER|>Weather?
<|ASSISTANT|>Calling.
[1/2] {"arguments": {"a": "é", "z": 1}, "name": "w"}[2/2] {"name": "v"}<|TOOL|>sunny (tools used)
user,assistant,tool' "$(prompt --chat "$D/tool_calls.json" --chat-template-file "$D/tools.jinja")"

# Generation runs on the rendered prompt.
expect_status 0 "$TOK" generate --system '' --chat-template-file "$D/chatml.jinja" -n 4 --seed 1 "In the beginning"
[ -s "$T/out" ] || fail "chat generation printed nothing"

# Errors: one line naming the file and what is wrong.
/usr/bin/python3 "$TOK_ROOT/scripts/make-random-model" "$T/plain.gguf" --dim 64 --layers 1 --heads 2 \
  --kv-heads 1 --ffn 128 2>/dev/null || fail "make-random-model"
expect_error 1 'plain.gguf: the file has no chat template' "$TOK" generate -m "$T/plain.gguf" --chat "$D/messages.json"

# The default model carries a template of its own (it is a base model: each
# turn's text on a line, the reply on the next), so --chat and --system work
# with nothing downloaded.
"$TOK" generate --system 'Be brief.' --print-prompt "  Who made the heaven?  " >"$T/p" || fail "--print-prompt"
printf 'Be brief.\nWho made the heaven?\n' | cmp -s - "$T/p" || fail "the default model's template: $(od -c "$T/p")"
expect_status 0 "$TOK" generate --greedy -n 8 --chat "$D/messages.json"
[ -s "$T/out" ] || fail "--chat on the default model printed nothing"
expect_status 0 "$TOK" generate --greedy -n 8 --system '' "In the beginning"
[ -s "$T/out" ] || fail "--system on the default model printed nothing"
echo '[{"role": "user", "content": "x"},' >"$T/bad.json"
expect_error 1 "bad.json:.*malformed JSON" "$TOK" generate --chat "$T/bad.json" --chat-template-file "$D/chatml.jinja"
echo '[{"content": "x"}]' >"$T/norole.json"
expect_error 1 "norole.json: messages\[0\]: missing string field 'role'" \
  "$TOK" generate --chat "$T/norole.json" --chat-template-file "$D/chatml.jinja"
echo '[{"role": "assistant", "content": "x"}]' >"$T/alt.json"
expect_error 1 "inst.jinja: chat template: raise_exception: Conversation roles must alternate.* \(line 1[0-9]\)$" \
  "$TOK" generate --chat "$T/alt.json" --chat-template-file "$D/inst.jinja" --print-prompt
printf 'ok\n{%% include "x.jinja" %%}' >"$T/include.jinja"
expect_error 1 "include.jinja: chat template: unsupported statement '\{% include %\}' \(line 2\)$" \
  "$TOK" generate --system '' --chat-template-file "$T/include.jinja" x
echo '{{ messages | wordcount }}' >"$T/filter.jinja"
expect_error 1 "unsupported filter 'wordcount'" "$TOK" generate --system '' --chat-template-file "$T/filter.jinja" x
expect_error 1 "nothing.jinja" "$TOK" generate --system '' --chat-template-file "$T/nothing.jinja" x
expect_error 2 "put the system turn in the messages file" \
  "$TOK" generate --chat "$D/messages.json" --system s --chat-template-file "$D/chatml.jinja"
expect_error 2 "without --samples" "$TOK" generate --system s --samples 2 x
# count --chat: an open-weight model whose vocabulary carries its template
# (the shipped qwen3 tokenizer_config.json) counts the rendered prompt
# exactly; an OpenAI model keeps OpenAI's per-message rule (3 per message
# + 3 to prime the reply).
/usr/bin/python3 -c 'import json, sys; sys.stdout.write(json.load(open(sys.argv[1]))["chat_template"])' \
  "$TOK_ROOT/vocab/qwen3/tokenizer_config.json" >"$T/qwen3.jinja" || fail "reading the qwen3 template"
prompt --chat "$D/messages.json" --chat-template-file "$T/qwen3.jinja" >"$T/qwen3.txt"
want=$("$TOK" encode -e qwen3 --special allow "$T/qwen3.txt" | wc -w)
expect_eq "count --chat qwen3" "$want" "$("$TOK" count -q --chat "$D/messages.json" -m qwen3-32b)"
content=0
for c in "Be brief." "  Hi there
friend  " "Hello!" "Ça va ? 🙂" system user assistant user; do
  content=$((content + $("$TOK" count -q -e o200k_base -t "$c")))
done
expect_eq "count --chat gpt-4o" "$((content + 4 * 3 + 3))" "$("$TOK" count -q --chat "$D/messages.json" -m gpt-4o)"
echo ok
