#!/usr/bin/env python3
"""Writes the seed corpus of the gguf fuzz target (tests/fuzz/corpus/gguf/):
tiny llama / qwen2 models (dim 32, one layer; f32, f16, bf16; tied and
separate output) with a byte-level "gpt2" vocabulary and a few merges, and a
tokenizer-only file with a SentencePiece "llama" vocabulary. Each is a few
tens of KB, under the fuzzer's -max_len. Needs numpy (/usr/bin/python3).
  /usr/bin/python3 tests/fuzz/make_gguf_seeds.py   # then commit the files"""
import os
import struct
import sys

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(root, "scripts", "lib"))
import numpy as np  # noqa: E402

import gguf_write as gw  # noqa: E402

OUT = os.path.join(root, "tests", "fuzz", "corpus", "gguf")


def model(name, arch="llama", t=gw.GGML_F32, tied=True, dim=32, heads=2, kv=1, ffn=32, vocab=262):
    rng = np.random.default_rng(len(name))
    hd = dim // heads
    w = gw.GGUFWriter()
    w.add("general.architecture", gw.STRING, arch)
    w.add("general.alignment", gw.UINT32, 32)
    for k, v in [("context_length", 16), ("embedding_length", dim), ("block_count", 1),
                 ("feed_forward_length", ffn), ("attention.head_count", heads),
                 ("attention.head_count_kv", kv), ("rope.dimension_count", hd)]:
        w.add(f"{arch}.{k}", gw.UINT32, v)
    w.add(f"{arch}.rope.freq_base", gw.FLOAT32, 10000.0)
    w.add(f"{arch}.attention.layer_norm_rms_epsilon", gw.FLOAT32, 1e-5)
    toks = [bytes([b]) for b in range(256)] + [b"he", b"ll", b"hell", b"hello", b"<|endoftext|>"]
    toks += [f"<|r{i}|>".encode() for i in range(vocab - len(toks))]
    merges = [(b"h", b"e"), (b"l", b"l"), (b"he", b"ll"), (b"hell", b"o")]
    specials = set(range(260, vocab))
    gw.add_gpt2_tokenizer(w, toks, merges, specials, 260, 260, add_bos=True)
    r = lambda *shape: rng.standard_normal(shape, dtype=np.float32) * 0.1
    w.add_tensor("token_embd.weight", r(vocab, dim), t)
    p = "blk.0."
    w.add_tensor(p + "attn_norm.weight", 1 + r(dim), gw.GGML_F32)
    w.add_tensor(p + "attn_q.weight", r(heads * hd, dim), t)
    w.add_tensor(p + "attn_k.weight", r(kv * hd, dim), t)
    w.add_tensor(p + "attn_v.weight", r(kv * hd, dim), t)
    if arch == "qwen2":
        for n, rows in [("q", heads * hd), ("k", kv * hd), ("v", kv * hd)]:
            w.add_tensor(p + f"attn_{n}.bias", r(rows), gw.GGML_F32)
    w.add_tensor(p + "attn_output.weight", r(dim, heads * hd), t)
    w.add_tensor(p + "ffn_norm.weight", 1 + r(dim), t)
    w.add_tensor(p + "ffn_gate.weight", r(ffn, dim), t)
    w.add_tensor(p + "ffn_up.weight", r(ffn, dim), t)
    w.add_tensor(p + "ffn_down.weight", r(dim, ffn), t)
    w.add_tensor("output_norm.weight", 1 + r(dim), gw.GGML_F32)
    if not tied:
        w.add_tensor("output.weight", r(vocab, dim), t)
    w.write(os.path.join(OUT, name))


def spm_vocab(name):
    w = gw.GGUFWriter()
    w.add("general.architecture", gw.STRING, "llama")
    toks = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    toks += ["▁", "h", "e", "l", "o", "▁h", "he", "ll", "▁he", "▁hell", "▁hello"]
    types = [2, 3, 3] + [6] * 256 + [1] * 11
    scores = [0.0] * 259 + [-float(i) for i in range(11)]
    w.add("tokenizer.ggml.model", gw.STRING, "llama")
    w.add_array("tokenizer.ggml.tokens", gw.STRING, toks)
    w.add_array("tokenizer.ggml.scores", gw.FLOAT32, scores)
    w.add_array("tokenizer.ggml.token_type", gw.INT32, types)
    w.add("tokenizer.ggml.bos_token_id", gw.UINT32, 1)
    w.add("tokenizer.ggml.eos_token_id", gw.UINT32, 2)
    w.add("tokenizer.ggml.unknown_token_id", gw.UINT32, 0)
    w.write(os.path.join(OUT, name))


os.makedirs(OUT, exist_ok=True)
model("llama_f32_tied.gguf")
model("llama_f16_output.gguf", t=gw.GGML_F16, tied=False)
model("qwen2_bf16.gguf", arch="qwen2", t=gw.GGML_BF16)
spm_vocab("spm_vocab.gguf")
# Header only: no tensors, no metadata.
with open(os.path.join(OUT, "empty.gguf"), "wb") as f:
    f.write(b"GGUF" + struct.pack("<IQQ", 3, 0, 0))
