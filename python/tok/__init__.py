"""tok from Python: tok's tokenizers, counters and trainer without a subprocess.

    import tok
    t = tok.load("o200k_base")        # anything `tok -e` accepts
    ids = t.encode("hello world")     # list[int]; t.encode_to_numpy -> uint32 array
    t.count(text, threads=4)          # no token list built
    t.offsets(text)                   # [(id, begin, end)] byte spans, as `tok show --json`
    t.decode(ids)
    tok.count_files(["src/"], models=["gpt-4o"])   # the JSON of `tok count --json`
    tok.train(["corpus.txt"], vocab_size=4096, output="my.tiktoken")

`import tok.tiktoken as tiktoken` is a drop-in for OpenAI's tiktoken.
Errors from tok (bad files, disallowed special tokens, unknown ids) raise
ValueError with tok's one-line message. Native work releases the GIL.
"""

from __future__ import annotations

from typing import Sequence

from tok import _tok
from tok._tok import count_files as count_files

__all__ = ["Tokenizer", "load", "train", "count_files"]

# The version of the tok build this module came from, as `tok --version` prints it.
__version__: str = _tok.__version__


class Tokenizer:
    """A loaded vocabulary. `special` is "text" (special-token strings are
    ordinary text, the default), "allow" (encoded as their ids) or "error"
    (refused), as the CLI's --special."""

    def __init__(self, native: "_tok.Tokenizer"):
        self._native = native

    @property
    def name(self) -> str:
        return self._native.name

    @property
    def vocab_size(self) -> int:
        """One past the largest id, special tokens included."""
        return self._native.vocab_size

    @property
    def special_tokens(self) -> dict[str, int]:
        return self._native.special_tokens

    def __repr__(self) -> str:
        return f"<tok.Tokenizer {self.name!r} vocab_size={self.vocab_size}>"

    def encode(self, text: str | bytes, special: str = "text") -> list[int]:
        return self._native.encode(text, special)

    def encode_to_numpy(self, text: str | bytes, special: str = "text"):
        """encode() as a NumPy uint32 array (no Python list is built)."""
        return self._native.encode_to_numpy(text, special)

    def count(self, text: str | bytes, special: str = "text", threads: int = 1) -> int:
        """len(encode(text)) without building the tokens; threads > 1 splits
        large texts (the count never depends on it)."""
        return self._native.count(text, special, threads)

    def offsets(self, text: str | bytes, special: str = "text") -> list[tuple[int, int, int]]:
        """(id, begin, end): the bytes of the UTF-8 input each token covers,
        the spans of `tok show --json` (begin is `tok encode --tokens`'s
        offset). Spans tile the input; a token the vocabulary adds (a
        SentencePiece prefix space) covers no bytes."""
        return self._native.offsets(text, special)

    def decode_bytes(self, ids: Sequence[int]) -> bytes:
        return self._native.decode_bytes(ids)

    def decode(self, ids: Sequence[int], errors: str = "replace") -> str:
        return self._native.decode_bytes(ids).decode("utf-8", errors=errors)

    def token_bytes(self, id: int) -> bytes:
        """The bytes of one id (a special token's text); KeyError if unknown."""
        return self._native.token_bytes(id)

    def encode_batch(self, texts: Sequence[str | bytes], special: str = "text",
                     threads: int = 0) -> list[list[int]]:
        """encode on each text, in parallel (threads=0: the CPUs tok may use)."""
        return self._native.encode_batch(texts, special, threads)

    def count_batch(self, texts: Sequence[str | bytes], special: str = "text",
                    threads: int = 0) -> list[int]:
        """count on each text, in parallel (threads=0: the CPUs tok may use)."""
        return self._native.count_batch(texts, special, threads)


def load(spec: str, pattern: str | None = None) -> Tokenizer:
    """A tokenizer by anything `tok -e` accepts: a built-in name (o200k_base,
    cl100k_base, ...), a .tiktoken, tokenizer.json, GGUF or vocab.json (with
    merges.txt beside it) path, a directory holding one, or hf:ORG/NAME.
    pattern overrides the split pattern (a named one or a regex)."""
    return Tokenizer(_tok.Tokenizer.load(spec, pattern))


def train(files: Sequence[str], vocab_size: int, output: str | None = None, *,
          pattern: str = "o200k", specials: Sequence[str] = (), min_frequency: int = 0,
          max_token_bytes: int = 0, threads: int = 0) -> Tokenizer:
    """Trains a byte-level BPE vocabulary of vocab_size ids (special tokens
    included, as `tok train --vocab-size`) on the files (directories walked),
    as `tok train`. With output (a .tiktoken path), also writes it and its
    OUTPUT.json sidecar, as `tok train -o OUTPUT` does."""
    return Tokenizer(_tok.train(list(files), vocab_size, output or "", pattern, list(specials),
                                min_frequency, max_token_bytes, threads))
