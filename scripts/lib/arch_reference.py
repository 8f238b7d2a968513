"""The PyTorch reference forward of every architecture tok runs, in float64,
written from the models' published definitions (Hugging Face transformers'
modeling_llama / smollm3 / qwen2 / qwen3 / gemma3 / phi3) with the
conventions llama.cpp's GGUF conversion applies: Gemma norms stored as 1 + w,
Llama q/k rows permuted so that RoPE rotates adjacent pairs, phi3's fused
qkv and gate/up. Reads an F32 GGUF written by scripts/make-random-model
and the JSON of its hyperparameters (--config-out).

usage: /usr/bin/python3 arch_reference.py MODEL.gguf CONFIG.json '[ids]' CTX
prints JSON {"logprobs": [[log-softmax over the vocabulary] per position]}.
CTX (the run's context) picks phi3's short or long RoPE factors."""
import json
import math
import sys

import torch

from tiny_llama import read_gguf_f32


def rms(x, w, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def rope(x, pos, inv, n_rot, neox, attn_factor):
    """x: (T, H, hd); rotates the first n_rot values of each head."""
    ang = pos[:, None] * inv[None, :]                   # (T, n_rot/2)
    c, s = (torch.cos(ang) * attn_factor)[:, None, :], (torch.sin(ang) * attn_factor)[:, None, :]
    r, rest = x[..., :n_rot], x[..., n_rot:]
    if neox:
        x0, x1 = r[..., :n_rot // 2], r[..., n_rot // 2:]
        out = torch.cat((x0 * c - x1 * s, x0 * s + x1 * c), dim=-1)
    else:
        x0, x1 = r[..., 0::2], r[..., 1::2]
        out = torch.stack((x0 * c - x1 * s, x0 * s + x1 * c), dim=-1).flatten(-2)
    return torch.cat((out, rest), dim=-1)


def inv_freq(base, n_rot, factors=None):
    inv = base ** (-torch.arange(0, n_rot, 2, dtype=torch.float64) / n_rot)
    return inv / factors if factors is not None else inv


def gelu_tanh(x):
    return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def forward(w, c, ids, ctx):
    arch, d, hd, H, KV = c["arch"], c["dim"], c["head_dim"], c["heads"], c["kv_heads"]
    n_rot, eps, T = c["n_rot"], c["eps"], len(ids)
    neox = arch not in ("llama", "smollm3")
    t = lambda name: torch.from_numpy(w[name]).double()
    pos = torch.arange(T, dtype=torch.float64)
    factors = None
    if "rope_freqs.weight" in w:
        factors = t("rope_freqs.weight")
    if arch == "phi3":
        factors = t("rope_factors_long.weight" if ctx > c["orig_ctx"] else "rope_factors_short.weight")
    inv_global = inv_freq(c["rope_base"], n_rot, factors)
    inv_local = inv_freq(10000.0, n_rot)
    attn_factor = c.get("attn_factor", 1.0)
    scale = 1 / math.sqrt(hd)
    x = t("token_embd.weight")[ids]
    if arch == "gemma3":
        x = x * math.sqrt(d)
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    for i in range(c["layers"]):
        p = f"blk.{i}."
        local = arch == "gemma3" and i % 6 < 5
        h = rms(x, t(p + "attn_norm.weight"), eps)
        if arch == "phi3":
            qkv = h @ t(p + "attn_qkv.weight").T
            q, k, v = qkv.split([H * hd, KV * hd, KV * hd], dim=-1)
        else:
            q, k, v = (h @ t(p + f"attn_{n}.weight").T for n in "qkv")
        if arch == "qwen2":
            q, k, v = q + t(p + "attn_q.bias"), k + t(p + "attn_k.bias"), v + t(p + "attn_v.bias")
        q, k, v = q.view(T, H, hd), k.view(T, KV, hd), v.view(T, KV, hd)
        if arch in ("qwen3", "gemma3"):
            q, k = rms(q, t(p + "attn_q_norm.weight"), eps), rms(k, t(p + "attn_k_norm.weight"), eps)
        if not (arch == "smollm3" and (i + 1) % 4 == 0):
            inv = inv_local if local else inv_global
            q, k = rope(q, pos, inv, n_rot, neox, attn_factor), rope(k, pos, inv, n_rot, neox, attn_factor)
        k, v = k.repeat_interleave(H // KV, dim=1), v.repeat_interleave(H // KV, dim=1)
        s = torch.einsum("thd,shd->hts", q, k) * scale
        mask = causal
        if local:
            mask = causal & ~torch.ones(T, T, dtype=torch.bool).tril(-c["window"])
        s = s.masked_fill(~mask, float("-inf"))
        a = torch.einsum("hts,shd->thd", torch.softmax(s, dim=-1), v).reshape(T, H * hd)
        o = a @ t(p + "attn_output.weight").T
        if arch == "gemma3":
            o = rms(o, t(p + "post_attention_norm.weight"), eps)
        x = x + o
        h = rms(x, t(p + "ffn_norm.weight"), eps)
        if arch == "phi3":
            gate, up = (h @ t(p + "ffn_up.weight").T).chunk(2, dim=-1)
        else:
            gate, up = h @ t(p + "ffn_gate.weight").T, h @ t(p + "ffn_up.weight").T
        act = gelu_tanh(gate) if arch == "gemma3" else torch.nn.functional.silu(gate)
        o = (act * up) @ t(p + "ffn_down.weight").T
        if arch == "gemma3":
            o = rms(o, t(p + "post_ffw_norm.weight"), eps)
        x = x + o
    x = rms(x, t("output_norm.weight"), eps)
    out = t("output.weight") if "output.weight" in w else t("token_embd.weight")
    return torch.log_softmax(x @ out.T, dim=-1)


def main():
    path, cfg, ids, ctx = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4])
    c = json.load(open(cfg))
    lp = forward(read_gguf_f32(path), c, ids, ctx)
    print(json.dumps({"logprobs": lp.tolist()}))


if __name__ == "__main__":
    main()
