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
        (F32, F16 or BF16 here; quantized types come from `tok quantize`)."""
        a = np.ascontiguousarray(array, dtype=np.float32)
        if ggml_type == GGML_F32:
            raw = a.tobytes()
        elif ggml_type == GGML_F16:
            raw = a.astype(np.float16).tobytes()
        elif ggml_type == GGML_BF16:
            u = a.view(np.uint32).astype(np.uint64)
            u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16  # round to nearest even
            raw = u.astype(np.uint16).tobytes()
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
