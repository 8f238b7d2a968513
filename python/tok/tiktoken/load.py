"""tiktoken.load's readers for local files (tok never downloads here)."""

from __future__ import annotations

import base64
import re


def load_tiktoken_bpe(tiktoken_bpe_file: str, expected_hash: str | None = None) -> dict[bytes, int]:
    """Ranks from a .tiktoken file: one "BASE64 RANK" line per token. Unlike
    tiktoken, a URL is not downloaded: tok never uses the network here."""
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", str(tiktoken_bpe_file)):
        raise ValueError(
            f"{tiktoken_bpe_file}: URLs are not fetched (tok.tiktoken reads local files only); "
            "download the file and pass its path"
        )
    with open(tiktoken_bpe_file, "rb") as f:
        contents = f.read()
    if expected_hash is not None:
        import hashlib

        actual = hashlib.sha256(contents).hexdigest()
        if actual != expected_hash:
            raise ValueError(
                f"Hash mismatch for data from {tiktoken_bpe_file} "
                f"(expected {expected_hash}, got {actual})"
            )
    ranks = {}
    for number, line in enumerate(contents.splitlines(), 1):
        if not line:
            continue
        try:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
        except Exception as e:
            raise ValueError(f"{tiktoken_bpe_file}:{number}: malformed line {line!r}") from e
    return ranks


def dump_tiktoken_bpe(bpe_ranks: dict[bytes, int], tiktoken_bpe_file: str) -> None:
    """Writes ranks as a .tiktoken file."""
    with open(tiktoken_bpe_file, "wb") as f:
        for token, rank in sorted(bpe_ranks.items(), key=lambda x: x[1]):
            f.write(base64.b64encode(token) + b" " + str(rank).encode() + b"\n")
