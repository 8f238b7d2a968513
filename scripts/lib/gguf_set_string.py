#!/usr/bin/env python3
"""scripts/lib/gguf_set_string.py FILE.gguf KEY VALUE_FILE: sets a string
metadata key of a GGUF v2/v3 file to the text of VALUE_FILE (added, or
replaced where the key exists), leaving every tensor's bytes as they were:
tensor offsets are relative to the data section, so only the header grows
and the data section moves to the next multiple of general.alignment.
Written atomically. How the chat template of vocab/tok-tiny-bible.gguf was
set (vocab/README.md)."""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gguf_read  # noqa: E402


def _str(s):
    return struct.pack("<Q", len(s)) + s


def main():
    path, key, value_file = sys.argv[1:4]
    with open(value_file, "rb") as f:
        value = f.read()
    with open(path, "rb") as f:
        b = f.read()
    try:
        g = gguf_read.Layout(b)
    except ValueError as e:
        sys.exit(f"{path}: {e}")
    entry = _str(key.encode()) + struct.pack("<I", gguf_read.STRING) + _str(value)
    kvs = [(k, entry if k == key else e) for k, e in g.kvs]
    if key not in [k for k, _ in kvs]:
        kvs.append((key, entry))
    out = bytearray(b"GGUF" + struct.pack("<IQQ", g.version, len(g.tensors), len(kvs)))
    out += b"".join(e for _, e in kvs) + g.infos
    out += b"\0" * (-len(out) % g.alignment)
    out += b[g.data_start:]
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(out)
    os.replace(tmp, path)


if __name__ == "__main__":
    main()
