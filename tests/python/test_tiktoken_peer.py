"""tok.tiktoken against OpenAI's own core (npm `tiktoken`, its Rust core built
to WASM, installed by scripts/peers): encode with specials and
encode_with_unstable, whose completion sets tiktoken's public suite does not
check. Skipped when the npm peer is not installed."""

import json
import os
import subprocess

import pytest

import tok.tiktoken as tiktoken

PEERS = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "tok", "npm")
WASM = os.path.join(PEERS, "node_modules", "tiktoken")
ENCODINGS = ["gpt2", "p50k_edit", "cl100k_base", "o200k_base"]
TEXTS = ["hello fanta", "hello world ", "hello  ", "x\n\n", "def f(", "naïve caf", "日本",
         "<|endoftext|>", "a<|endoftext|>b<|fim_prefix|>", "1234", "  \t", "I'm", "don't stop\n  "]

# Prints, per encoding, [tokens, sorted completions] of encode_with_unstable
# and the ids of encode with every special allowed.
NODE_JS = r"""
const {get_encoding} = require(process.env.WASM);
const texts = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const out = {};
for (const name of JSON.parse(process.env.ENCODINGS)) {
  const enc = get_encoding(name);
  out[name] = texts.map((t) => {
    const r = enc.encode_with_unstable(t, 'all', []);
    return [Array.from(r[0]), r[1].map((c) => Array.from(c).join(',')).sort(),
            Array.from(enc.encode(t, 'all', []))];
  });
  enc.free();
}
console.log(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def reference():
    if not os.path.isdir(WASM):
        pytest.skip(f"npm tiktoken not installed in {PEERS} (scripts/peers installs it)")
    env = dict(os.environ, WASM=WASM, ENCODINGS=json.dumps(ENCODINGS))
    p = subprocess.run(["node", "-e", NODE_JS], input=json.dumps(TEXTS), capture_output=True,
                       text=True, env=env, check=True)
    return json.loads(p.stdout)


@pytest.mark.parametrize("name", ENCODINGS)
def test_encode_with_unstable_matches_tiktoken(reference, name):
    enc = tiktoken.get_encoding(name)
    for text, (tokens, completions, ids) in zip(TEXTS, reference[name]):
        stable, mine = enc.encode_with_unstable(text, allowed_special="all")
        assert stable == tokens, text
        assert sorted(",".join(map(str, c)) for c in mine) == completions, text
        assert enc.encode(text, allowed_special="all") == ids, text
