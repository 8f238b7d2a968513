"""Minimal GGUF v2/v3 reader for scripts and tests (no gguf pip package
here): where the metadata, the tensor infos and each tensor's bytes are.
Spec: https://github.com/ggerganov/ggml/blob/master/docs/gguf.md"""
import struct

STRING, ARRAY, UINT32 = 8, 9, 4
_SIZE = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}


def _skip_value(b, pos, vtype):
    if vtype == STRING:
        (n,) = struct.unpack_from("<Q", b, pos)
        return pos + 8 + n
    if vtype == ARRAY:
        etype, count = struct.unpack_from("<IQ", b, pos)
        pos += 12
        if etype == STRING:
            for _ in range(count):
                pos = _skip_value(b, pos, STRING)
            return pos
        return pos + _SIZE[etype] * count
    return pos + _SIZE[vtype]


class Layout:
    """version; kvs: [(key, raw entry bytes)]; infos: the raw tensor-info
    bytes; tensors: {name: (ggml type, dims, absolute offset of its data)};
    alignment; data_start (offset of the data section)."""

    def __init__(self, b):
        if b[:4] != b"GGUF":
            raise ValueError("not a GGUF file")
        self.version, n_tensors, n_kv = struct.unpack_from("<IQQ", b, 4)
        if self.version not in (2, 3):
            raise ValueError(f"GGUF version {self.version}; this reader reads 2 and 3")
        pos, self.kvs, self.alignment = 24, [], 32
        for _ in range(n_kv):
            start = pos
            (klen,) = struct.unpack_from("<Q", b, pos)
            key = b[pos + 8:pos + 8 + klen].decode()
            pos += 8 + klen
            (vtype,) = struct.unpack_from("<I", b, pos)
            if key == "general.alignment" and vtype == UINT32:
                (self.alignment,) = struct.unpack_from("<I", b, pos + 4)
            pos = _skip_value(b, pos + 4, vtype)
            self.kvs.append((key, b[start:pos]))
        infos_start, rel = pos, {}
        for _ in range(n_tensors):
            (nlen,) = struct.unpack_from("<Q", b, pos)
            name = b[pos + 8:pos + 8 + nlen].decode()
            pos += 8 + nlen
            (ndim,) = struct.unpack_from("<I", b, pos)
            dims = list(struct.unpack_from(f"<{ndim}Q", b, pos + 4))
            ttype, offset = struct.unpack_from("<IQ", b, pos + 4 + 8 * ndim)
            pos += 4 + 8 * ndim + 12
            rel[name] = (ttype, dims, offset)
        self.infos = b[infos_start:pos]
        self.data_start = pos + (-pos % self.alignment)
        self.tensors = {n: (t, d, self.data_start + o) for n, (t, d, o) in rel.items()}


def layout(path):
    with open(path, "rb") as f:
        return Layout(f.read())
