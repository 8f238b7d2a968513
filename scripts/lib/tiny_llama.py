"""A llama-architecture transformer in PyTorch, written to match llama.cpp's
`llama` graph exactly: RMSNorm, RoPE on adjacent pairs (x[2i], x[2i+1]; the
"normal" mode llama.cpp uses for arch llama), grouped-query attention, SwiGLU,
tied output. Used to train tok's default model and as the reference forward
pass for tok's logit tests."""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Config:
    def __init__(self, vocab=4096, dim=256, layers=6, heads=8, kv_heads=4, ffn=704,
                 ctx=256, rope_base=10000.0, eps=1e-5):
        self.vocab, self.dim, self.layers, self.heads, self.kv_heads = vocab, dim, layers, heads, kv_heads
        self.ffn, self.ctx, self.rope_base, self.eps = ffn, ctx, rope_base, eps

    @property
    def head_dim(self):
        return self.dim // self.heads


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope_tables(cfg, T, dtype):
    hd = cfg.head_dim
    inv = cfg.rope_base ** (-torch.arange(0, hd, 2, dtype=torch.float64) / hd)  # (hd/2)
    ang = torch.arange(T, dtype=torch.float64)[:, None] * inv[None, :]         # (T, hd/2)
    return torch.cos(ang).to(dtype), torch.sin(ang).to(dtype)


def apply_rope(x, cos, sin):
    # x: (B, T, H, hd); rotate adjacent pairs.
    x0, x1 = x[..., 0::2], x[..., 1::2]
    c, s = cos[None, :, None, :], sin[None, :, None, :]
    return torch.stack((x0 * c - x1 * s, x0 * s + x1 * c), dim=-1).flatten(-2)


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d, hd = cfg.dim, cfg.head_dim
        self.cfg = cfg
        self.attn_norm = RMSNorm(d, cfg.eps)
        self.wq = nn.Linear(d, cfg.heads * hd, bias=False)
        self.wk = nn.Linear(d, cfg.kv_heads * hd, bias=False)
        self.wv = nn.Linear(d, cfg.kv_heads * hd, bias=False)
        self.wo = nn.Linear(cfg.heads * hd, d, bias=False)
        self.ffn_norm = RMSNorm(d, cfg.eps)
        self.w_gate = nn.Linear(d, cfg.ffn, bias=False)
        self.w_up = nn.Linear(d, cfg.ffn, bias=False)
        self.w_down = nn.Linear(cfg.ffn, d, bias=False)

    def forward(self, x, cos, sin, mask):
        cfg = self.cfg
        B, T, _ = x.shape
        hd = cfg.head_dim
        h = self.attn_norm(x)
        q = apply_rope(self.wq(h).view(B, T, cfg.heads, hd), cos, sin)
        k = apply_rope(self.wk(h).view(B, T, cfg.kv_heads, hd), cos, sin)
        v = self.wv(h).view(B, T, cfg.kv_heads, hd)
        rep = cfg.heads // cfg.kv_heads  # query head j reads kv head j // rep (llama.cpp order)
        k = k.repeat_interleave(rep, dim=2)
        v = v.repeat_interleave(rep, dim=2)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))  # (B, H, T, hd)
        att = (q @ k.transpose(-1, -2)) / math.sqrt(hd) + mask
        o = (F.softmax(att, dim=-1) @ v).transpose(1, 2).reshape(B, T, cfg.heads * hd)
        x = x + self.wo(o)
        h = self.ffn_norm(x)
        return x + self.w_down(F.silu(self.w_gate(h)) * self.w_up(h))


class TinyLlama(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab, cfg.dim)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.layers))
        self.norm = RMSNorm(cfg.dim, cfg.eps)
        nn.init.normal_(self.embed.weight, std=0.02)
        for b in self.blocks:
            for lin in (b.wq, b.wk, b.wv, b.w_gate, b.w_up):
                nn.init.normal_(lin.weight, std=0.02)
            for lin in (b.wo, b.w_down):
                nn.init.normal_(lin.weight, std=0.02 / math.sqrt(2 * cfg.layers))

    def forward(self, idx):
        T = idx.shape[1]
        dtype = self.embed.weight.dtype
        cos, sin = rope_tables(self.cfg, T, dtype)
        mask = torch.full((T, T), float("-inf"), dtype=dtype).triu(1)
        x = self.embed(idx)
        for b in self.blocks:
            x = b(x, cos, sin, mask)
        return self.norm(x) @ self.embed.weight.T  # tied output


def write_gguf(model, w, name, ggml_type):
    """Adds the llama hyperparameters and tensors of `model` to GGUFWriter w."""
    from gguf_write import UINT32, FLOAT32, STRING, GGML_F32
    cfg = model.cfg
    w.add("general.architecture", STRING, "llama")
    w.add("general.name", STRING, name)
    w.add("general.alignment", UINT32, 32)
    w.add("llama.context_length", UINT32, cfg.ctx)
    w.add("llama.embedding_length", UINT32, cfg.dim)
    w.add("llama.block_count", UINT32, cfg.layers)
    w.add("llama.feed_forward_length", UINT32, cfg.ffn)
    w.add("llama.attention.head_count", UINT32, cfg.heads)
    w.add("llama.attention.head_count_kv", UINT32, cfg.kv_heads)
    w.add("llama.rope.dimension_count", UINT32, cfg.head_dim)
    w.add("llama.rope.freq_base", FLOAT32, cfg.rope_base)
    w.add("llama.attention.layer_norm_rms_epsilon", FLOAT32, cfg.eps)
    w.add("llama.vocab_size", UINT32, cfg.vocab)
    t = lambda p: p.detach().to(torch.float32).numpy()
    # Norm weights stay F32 (as llama.cpp's converters do): 1-D tensors.
    w.add_tensor("token_embd.weight", t(model.embed.weight), ggml_type)
    for i, b in enumerate(model.blocks):
        p = f"blk.{i}."
        w.add_tensor(p + "attn_norm.weight", t(b.attn_norm.weight), GGML_F32)
        w.add_tensor(p + "attn_q.weight", t(b.wq.weight), ggml_type)
        w.add_tensor(p + "attn_k.weight", t(b.wk.weight), ggml_type)
        w.add_tensor(p + "attn_v.weight", t(b.wv.weight), ggml_type)
        w.add_tensor(p + "attn_output.weight", t(b.wo.weight), ggml_type)
        w.add_tensor(p + "ffn_norm.weight", t(b.ffn_norm.weight), GGML_F32)
        w.add_tensor(p + "ffn_gate.weight", t(b.w_gate.weight), ggml_type)
        w.add_tensor(p + "ffn_up.weight", t(b.w_up.weight), ggml_type)
        w.add_tensor(p + "ffn_down.weight", t(b.w_down.weight), ggml_type)
    w.add_tensor("output_norm.weight", t(model.norm.weight), GGML_F32)


def read_gguf_f32(path):
    """{name: numpy array in numpy (out, in) shape} for the F32 tensors of a
    GGUF v3 file (enough to warm-start from a previous default model)."""
    import struct
    data = open(path, "rb").read()
    assert data[:4] == b"GGUF", path
    version, n_tensors, n_kv = struct.unpack_from("<IQQ", data, 4)
    pos = 24
    sizes = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}

    def string():
        nonlocal pos
        n, = struct.unpack_from("<Q", data, pos)
        pos += 8 + n
        return data[pos - n:pos].decode("utf-8", "replace")

    def skip_value(t):
        nonlocal pos
        if t == 8:
            string()
        elif t == 9:
            et, n = struct.unpack_from("<IQ", data, pos)
            pos += 12
            for _ in range(n):
                skip_value(et)
        else:
            pos += sizes[t]

    alignment = 32
    for _ in range(n_kv):
        key = string()
        t, = struct.unpack_from("<I", data, pos)
        pos += 4
        if key == "general.alignment":
            alignment, = struct.unpack_from("<I", data, pos)
        skip_value(t)
    infos = []
    for _ in range(n_tensors):
        name = string()
        nd, = struct.unpack_from("<I", data, pos)
        dims = struct.unpack_from(f"<{nd}Q", data, pos + 4)
        t, off = struct.unpack_from("<IQ", data, pos + 4 + 8 * nd)
        pos += 4 + 8 * nd + 12
        infos.append((name, dims, t, off))
    base = pos + (-pos % alignment)
    out = {}
    for name, dims, t, off in infos:
        assert t == 0, f"{name}: only F32 tensors can be read back"
        n = int(np.prod(dims))
        out[name] = np.frombuffer(data, np.float32, n, base + off).reshape(tuple(reversed(dims))).copy()
    return out


def load_gguf_weights(model, path):
    """Loads weights written by write_gguf (F32) into a TinyLlama of the same shape."""
    w = read_gguf_f32(path)
    pairs = [("token_embd.weight", model.embed.weight), ("output_norm.weight", model.norm.weight)]
    for i, b in enumerate(model.blocks):
        p = f"blk.{i}."
        pairs += [(p + "attn_norm.weight", b.attn_norm.weight), (p + "attn_q.weight", b.wq.weight),
                  (p + "attn_k.weight", b.wk.weight), (p + "attn_v.weight", b.wv.weight),
                  (p + "attn_output.weight", b.wo.weight), (p + "ffn_norm.weight", b.ffn_norm.weight),
                  (p + "ffn_gate.weight", b.w_gate.weight), (p + "ffn_up.weight", b.w_up.weight),
                  (p + "ffn_down.weight", b.w_down.weight)]
    with torch.no_grad():
        for name, param in pairs:
            a = torch.from_numpy(w[name])
            assert a.shape == param.shape, f"{path}: {name} is {tuple(a.shape)}, model wants {tuple(param.shape)}"
            param.copy_(a)
