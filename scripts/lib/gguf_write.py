"""Minimal GGUF v3 writer (no gguf pip package here): metadata, tensor infos,
aligned tensor data. Follows what llama.cpp's loader insists on: uint32
hyperparameters, float32 eps / rope base, int32 token_type arrays, offsets
relative to the data section and multiples of general.alignment, dims in GGUF
order (a numpy (out, in) matrix is written [in, out]).
Spec: https://github.com/ggerganov/ggml/blob/master/docs/gguf.md"""
import os
import struct

import numpy as np

# Metadata value types.
UINT8, INT8, UINT16, INT16, UINT32, INT32, FLOAT32, BOOL, STRING, ARRAY, UINT64, INT64, FLOAT64 = range(13)
# ggml tensor types used by tok.
GGML_F32, GGML_F16, GGML_Q4_0, GGML_Q8_0, GGML_Q4_K, GGML_Q6_K, GGML_BF16 = 0, 1, 2, 8, 12, 14, 30
ALIGNMENT = 32

_SCALAR = {UINT8: "<B", INT8: "<b", UINT16: "<H", INT16: "<h", UINT32: "<I", INT32: "<i",
           FLOAT32: "<f", BOOL: "<?", UINT64: "<Q", INT64: "<q", FLOAT64: "<d"}


def _str(s):
    b = s.encode("utf-8") if isinstance(s, str) else bytes(s)
    return struct.pack("<Q", len(b)) + b


def _value(vtype, v):
    if vtype == STRING:
        return _str(v)
    return struct.pack(_SCALAR[vtype], v)


class GGUFWriter:
    def __init__(self):
        self.kv = []        # (key, type bytes + value bytes)
        self.tensors = []   # (name, gguf dims, ggml type, raw bytes)

    def add(self, key, vtype, value):
        self.kv.append((key, struct.pack("<I", vtype) + _value(vtype, value)))

    def add_array(self, key, etype, values):
        body = b"".join(_value(etype, v) for v in values)
        self.kv.append((key, struct.pack("<IIQ", ARRAY, etype, len(values)) + body))

    def add_tensor(self, name, array, ggml_type=GGML_F32):
        """array: numpy array in numpy (row-major) shape; written in ggml_type
        (F32, F16, BF16, Q4_K or Q6_K here; Q8_0 / Q4_0 come from `tok quantize`)."""
        a = np.ascontiguousarray(array, dtype=np.float32)
        if ggml_type == GGML_F32:
            raw = a.tobytes()
        elif ggml_type == GGML_F16:
            raw = a.astype(np.float16).tobytes()
        elif ggml_type == GGML_BF16:
            u = a.view(np.uint32).astype(np.uint64)
            u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16  # round to nearest even
            raw = u.astype(np.uint16).tobytes()
        elif ggml_type == GGML_Q4_K:
            raw = quantize_q4_k(a)
        elif ggml_type == GGML_Q6_K:
            raw = quantize_q6_k(a)
        else:
            raise ValueError(f"unsupported tensor type {ggml_type}")
        self.tensors.append((name, list(reversed(a.shape)), ggml_type, raw))

    def write(self, path):
        out = bytearray(b"GGUF" + struct.pack("<IQQ", 3, len(self.tensors), len(self.kv)))
        for key, body in self.kv:
            out += _str(key) + body
        offset = 0
        for name, dims, t, raw in self.tensors:
            out += _str(name) + struct.pack("<I", len(dims))
            out += b"".join(struct.pack("<Q", d) for d in dims)
            out += struct.pack("<IQ", t, offset)
            offset += (len(raw) + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT
        out += b"\0" * (-len(out) % ALIGNMENT)
        for _, _, _, raw in self.tensors:
            out += raw + b"\0" * (-len(raw) % ALIGNMENT)
        tmp = f"{path}.tmp{os.getpid()}"
        with open(tmp, "wb") as f:
            f.write(out)
        os.replace(tmp, path)


# K-quants for benchmark and test models (Q4_K_M-style mixes). Plain
# min/max scales, not llama.cpp's error-minimizing search: the layout is
# ggml's (block_q4_K, block_q6_K; see dequantize_row_q4_K / _q6_K), the
# rounding is simpler. Rows must be a multiple of 256 values.
def _f16(x):
    return x.astype(np.float16)


def quantize_q4_k(a):
    x = a.reshape(-1, 8, 32).astype(np.float32)  # (super-blocks, sub-blocks, 32)
    lo = np.minimum(x.min(axis=2), 0)
    scale = (x.max(axis=2) - lo) / 15
    d = _f16(scale.max(axis=1) / 63)
    dmin = _f16(-lo.min(axis=1) / 63)
    df, dmf = d.astype(np.float32)[:, None], dmin.astype(np.float32)[:, None]
    sc = np.clip(np.round(np.divide(scale, df, out=np.zeros_like(scale), where=df > 0)), 0, 63).astype(np.uint8)
    mn = np.clip(np.round(np.divide(-lo, dmf, out=np.zeros_like(lo), where=dmf > 0)), 0, 63).astype(np.uint8)
    es, em = (df * sc)[:, :, None], (dmf * mn)[:, :, None]
    q = np.clip(np.round(np.divide(x + em, es, out=np.zeros_like(x), where=es > 0)), 0, 15).astype(np.uint8)
    scales = np.concatenate([sc[:, :4] | (sc[:, 4:] >> 4) << 6, mn[:, :4] | (mn[:, 4:] >> 4) << 6,
                             (sc[:, 4:] & 0xF) | (mn[:, 4:] & 0xF) << 4], axis=1)
    q = q.reshape(-1, 4, 2, 32)  # 64-value chunks: low nibbles the first 32, high the next
    qs = (q[:, :, 0] | q[:, :, 1] << 4).reshape(-1, 128)
    nb = x.shape[0]
    out = np.concatenate([d.view(np.uint8).reshape(nb, 2), dmin.view(np.uint8).reshape(nb, 2), scales, qs], axis=1)
    return out.tobytes()


def quantize_q6_k(a):
    x = a.reshape(-1, 16, 16).astype(np.float32)  # (super-blocks, sub-blocks, 16)
    s = np.abs(x).max(axis=2) / 31
    d = _f16(s.max(axis=1) / 127)
    df = d.astype(np.float32)[:, None]
    sc = np.clip(np.round(np.divide(s, df, out=np.zeros_like(s), where=df > 0)), -128, 127).astype(np.int8)
    es = (df * sc)[:, :, None]
    q = (np.clip(np.round(np.divide(x, es, out=np.zeros_like(x), where=es != 0)), -32, 31) + 32).astype(np.uint8)
    q = q.reshape(-1, 2, 4, 32)  # (super-blocks, halves of 128, 4 rows of 32, 32)
    ql = np.concatenate([q[:, :, 0] & 0xF | (q[:, :, 2] & 0xF) << 4, q[:, :, 1] & 0xF | (q[:, :, 3] & 0xF) << 4],
                        axis=2).reshape(-1, 128)
    qh = (q[:, :, 0] >> 4 | (q[:, :, 1] >> 4) << 2 | (q[:, :, 2] >> 4) << 4 | (q[:, :, 3] >> 4) << 6).reshape(-1, 64)
    nb = x.shape[0]
    out = np.concatenate([ql, qh, sc.view(np.uint8), d.view(np.uint8).reshape(nb, 2)], axis=1)
    return out.tobytes()


def bytes_to_unicode():
    """GPT-2's reversible byte -> printable character map used by GGUF "gpt2" vocabularies."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


def add_gpt2_tokenizer(w, token_bytes, merges, specials, bos, eos, add_bos=True, pre="gpt-2"):
    """token_bytes: bytes of ids 0..n-1 (specials given as their text);
    merges: (left bytes, right bytes) in priority order; specials: set of ids."""
    b2u = bytes_to_unicode()
    enc = lambda b: "".join(b2u[x] for x in b)
    toks = [t.decode("utf-8") if i in specials else enc(t) for i, t in enumerate(token_bytes)]
    w.add("tokenizer.ggml.model", STRING, "gpt2")
    w.add("tokenizer.ggml.pre", STRING, pre)
    w.add_array("tokenizer.ggml.tokens", STRING, toks)
    w.add_array("tokenizer.ggml.token_type", INT32, [3 if i in specials else 1 for i in range(len(toks))])
    w.add_array("tokenizer.ggml.merges", STRING, [enc(a) + " " + enc(b) for a, b in merges])
    w.add("tokenizer.ggml.bos_token_id", UINT32, bos)
    w.add("tokenizer.ggml.eos_token_id", UINT32, eos)
    w.add("tokenizer.ggml.add_bos_token", BOOL, add_bos)
    w.add("tokenizer.ggml.add_eos_token", BOOL, False)


def merges_from_ranks(token_bytes):
    """Merge list of a ranked (tiktoken) vocabulary: for each multi-byte token
    in rank order, the two tokens that byte-level BPE over lower ranks joins."""
    rank = {t: i for i, t in enumerate(token_bytes)}
    merges = []
    for r, t in enumerate(token_bytes):
        if len(t) < 2:
            continue
        parts = [t[i:i + 1] for i in range(len(t))]
        while len(parts) > 2:
            best = None
            for i in range(len(parts) - 1):
                q = rank.get(parts[i] + parts[i + 1])
                if q is not None and q < r and (best is None or q < best[0]):
                    best = (q, i)
            if best is None:
                break
            i = best[1]
            parts[i:i + 2] = [parts[i] + parts[i + 1]]
        if len(parts) == 2:
            merges.append((parts[0], parts[1]))
    return merges
