"""encode_with_unstable: tiktoken's completion sets for a text's unstable end.

The tokens of the last piece (and the whitespace tokens before a trailing
whitespace piece) may change once more text follows. This returns the tokens
before them and every token sequence that could follow, by the same search as
tiktoken's Rust core: tokens that extend the unstable bytes, and re-encodings
of each split of the unstable bytes with a token completing its suffix.
Rarely called, so written in Python over the native helpers.
"""

from __future__ import annotations

import bisect


def _sorted_token_bytes(enc) -> list[bytes]:
    cached = enc.__dict__.get("_sorted_token_bytes")
    if cached is None:
        cached = enc.token_byte_values()
        enc.__dict__["_sorted_token_bytes"] = cached
    return cached


def _with_prefix(sorted_bytes: list[bytes], prefix: bytes):
    i = bisect.bisect_left(sorted_bytes, prefix)
    while i < len(sorted_bytes) and sorted_bytes[i].startswith(prefix):
        yield sorted_bytes[i]
        i += 1


def encode_with_unstable(enc, text: str, allowed, disallowed):
    core = enc._core_bpe
    # Raises tiktoken's ValueError for a disallowed special.
    core.encode(text, allowed, disallowed)
    tokens, last = core.encode_last_piece(text, allowed)
    if last == 0:
        return tokens, []
    unstable = core.decode_bytes(tokens[len(tokens) - last :])
    tokens = tokens[: len(tokens) - last]
    completions: set[tuple[int, ...]] = set()
    sorted_bytes = _sorted_token_bytes(enc)
    for b in _with_prefix(sorted_bytes, unstable):
        completions.add((core.encode_single_token(b),))
    for i in range(1, len(unstable)):
        prefix, suffix = unstable[:i], unstable[i:]
        for b in _with_prefix(sorted_bytes, suffix):
            possibility = prefix + b
            try:
                encoded = core.encode_ordinary(possibility.decode("utf-8"))
            except UnicodeDecodeError:
                encoded = core.byte_pair_encode(possibility)
            seq, seq_len = [], 0
            for token in encoded:
                seq.append(token)
                seq_len += len(core.decode_single_token_bytes(token))
                if seq_len >= len(unstable):
                    break
            completions.add(tuple(seq))
    # A final whitespace character may split off from the piece before it.
    if len(unstable) > 1:
        head, tail = _split_last_char(unstable)
        if head and tail.decode("utf-8", "ignore").isspace():
            completions.add(tuple(core.byte_pair_encode(head) + core.byte_pair_encode(tail)))
    return tokens, [list(c) for c in completions]


def _split_last_char(b: bytes) -> tuple[bytes, bytes]:
    # The last UTF-8 character (or the last byte when it is not valid).
    for n in range(1, min(4, len(b)) + 1):
        try:
            b[-n:].decode("utf-8")
            return b[:-n], b[-n:]
        except UnicodeDecodeError:
            continue
    return b[:-1], b[-1:]
