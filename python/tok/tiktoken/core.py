"""tok.tiktoken.Encoding: tiktoken's Encoding class over tok's native encoder.

Arguments, return types, error types and messages follow tiktoken 0.14, so
code written for tiktoken runs unchanged; the work happens in tok._tok.CoreBPE
with the GIL released.
"""

from __future__ import annotations

import functools
from typing import AbstractSet, Collection, Literal, NoReturn, Sequence

from tok import _tok


class Encoding:
    def __init__(
        self,
        name: str,
        *,
        pat_str: str,
        mergeable_ranks: dict[bytes, int] | None,
        special_tokens: dict[str, int],
        explicit_n_vocab: int | None = None,
        _core: "_tok.CoreBPE | None" = None,
    ):
        """An encoding from its split pattern, ranks and special tokens.

        `_core` is for tok's own shipped encodings, whose ranks are loaded
        natively (mergeable_ranks is then None and built on first use).
        """
        self.name = name
        self._pat_str = pat_str
        self._special_tokens = dict(special_tokens)
        self._mergeable_ranks_cache = mergeable_ranks
        if _core is None:
            if mergeable_ranks is None:
                raise TypeError("Encoding() needs mergeable_ranks")
            _core = _tok.CoreBPE(name, mergeable_ranks, self._special_tokens, pat_str)
            max_rank = max(mergeable_ranks.values(), default=-1)
            n_ranks = len(mergeable_ranks)
        else:
            max_rank = _core.n_vocab - 1
            n_ranks = None
        self._core_bpe = _core
        self.max_token_value = max(max_rank, max(self._special_tokens.values(), default=0))
        if explicit_n_vocab:
            if n_ranks is not None:
                assert n_ranks + len(self._special_tokens) == explicit_n_vocab
            assert self.max_token_value == explicit_n_vocab - 1
        self._special_token_values = set(self._special_tokens.values())

    def __repr__(self) -> str:
        return f"<Encoding {self.name!r}>"

    # ====================
    # Encoding
    # ====================

    def encode_ordinary(self, text: str) -> list[int]:
        """Encodes text, special token strings included, as ordinary text."""
        try:
            return self._core_bpe.encode_ordinary(text)
        except UnicodeEncodeError:
            return self._core_bpe.encode_ordinary(_fix_surrogates(text))

    def encode(
        self,
        text: str,
        *,
        allowed_special: Literal["all"] | AbstractSet[str] = set(),  # noqa: B006
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> list[int]:
        """Encodes text; special token strings raise ValueError unless allowed.

        allowed_special: the specials encoded as special tokens ("all" or a set).
        disallowed_special: the specials that raise ("all": every one not
        allowed); pass () to encode them as ordinary text.
        """
        allowed, disallowed = self._special_args(allowed_special, disallowed_special)
        try:
            return self._core_bpe.encode(text, allowed, disallowed)
        except UnicodeEncodeError:
            return self._core_bpe.encode(_fix_surrogates(text), allowed, disallowed)

    def encode_to_numpy(
        self,
        text: str,
        *,
        allowed_special: Literal["all"] | AbstractSet[str] = set(),  # noqa: B006
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ):
        """encode() as a NumPy uint32 array, without building a list."""
        allowed, disallowed = self._special_args(allowed_special, disallowed_special)
        try:
            return self._core_bpe.encode_to_numpy(text, allowed, disallowed)
        except UnicodeEncodeError:
            return self._core_bpe.encode_to_numpy(_fix_surrogates(text), allowed, disallowed)

    def encode_ordinary_batch(self, text: list[str], *, num_threads: int = 8) -> list[list[int]]:
        """encode_ordinary on each text, on num_threads native threads."""
        return self._batch(list(text), [], [], num_threads)

    def encode_batch(
        self,
        text: list[str],
        *,
        num_threads: int = 8,
        allowed_special: Literal["all"] | AbstractSet[str] = set(),  # noqa: B006
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> list[list[int]]:
        """encode on each text, on num_threads native threads."""
        allowed, disallowed = self._special_args(allowed_special, disallowed_special)
        return self._batch(list(text), allowed, disallowed, num_threads)

    def encode_with_unstable(
        self,
        text: str,
        *,
        allowed_special: Literal["all"] | AbstractSet[str] = set(),  # noqa: B006
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> tuple[list[int], list[list[int]]]:
        """The stable tokens of text and the possible token sequences of its end.

        The last piece may encode differently once more text follows; the
        second element lists every token sequence it could start with.
        """
        from tok.tiktoken._unstable import encode_with_unstable

        allowed, disallowed = self._special_args(allowed_special, disallowed_special)
        try:
            return encode_with_unstable(self, text, allowed, disallowed)
        except UnicodeEncodeError:
            return encode_with_unstable(self, _fix_surrogates(text), allowed, disallowed)

    def encode_single_token(self, text_or_bytes: str | bytes) -> int:
        """The id of a string or bytes that is exactly one token; KeyError if not."""
        if isinstance(text_or_bytes, str):
            text_or_bytes = text_or_bytes.encode("utf-8")
        return self._core_bpe.encode_single_token(text_or_bytes)

    # ====================
    # Decoding
    # ====================

    def decode_bytes(self, tokens: Sequence[int]) -> bytes:
        """The bytes of tokens; KeyError for an unknown id."""
        return self._core_bpe.decode_bytes(tokens)

    def decode(self, tokens: Sequence[int], errors: str = "replace") -> str:
        """The text of tokens; invalid UTF-8 handled as `errors` says."""
        return self._core_bpe.decode_bytes(tokens).decode("utf-8", errors=errors)

    def decode_single_token_bytes(self, token: int) -> bytes:
        """The bytes of one token; KeyError for an unknown id."""
        return self._core_bpe.decode_single_token_bytes(token)

    def decode_tokens_bytes(self, tokens: Sequence[int]) -> list[bytes]:
        """The bytes of each token."""
        return [self.decode_single_token_bytes(t) for t in tokens]

    def decode_with_offsets(self, tokens: Sequence[int]) -> tuple[str, list[int]]:
        """The text and, per token, the index of the character it starts in.

        A token starting with a UTF-8 continuation byte belongs to the
        character before it. Raises on tokens that are not valid UTF-8 together.
        """
        token_bytes = self.decode_tokens_bytes(tokens)
        text_len = 0
        offsets = []
        for token in token_bytes:
            offsets.append(max(0, text_len - (0x80 <= token[0] < 0xC0)))
            text_len += sum(1 for c in token if not 0x80 <= c < 0xC0)
        text = b"".join(token_bytes).decode("utf-8", errors="strict")
        return text, offsets

    def decode_batch(
        self, batch: Sequence[Sequence[int]], *, errors: str = "replace", num_threads: int = 8
    ) -> list[str]:
        """decode on each token list."""
        return [self.decode(tokens, errors=errors) for tokens in batch]

    def decode_bytes_batch(
        self, batch: Sequence[Sequence[int]], *, num_threads: int = 8
    ) -> list[bytes]:
        """decode_bytes on each token list."""
        return [self.decode_bytes(tokens) for tokens in batch]

    # ====================
    # Miscellaneous
    # ====================

    def token_byte_values(self) -> list[bytes]:
        """The bytes of every ordinary token, sorted."""
        return self._core_bpe.token_byte_values()

    @property
    def eot_token(self) -> int:
        return self._special_tokens["<|endoftext|>"]

    @functools.cached_property
    def special_tokens_set(self) -> set[str]:
        return set(self._special_tokens.keys())

    def is_special_token(self, token: int) -> bool:
        assert isinstance(token, int)
        return token in self._special_token_values

    @property
    def n_vocab(self) -> int:
        """One past the largest token id."""
        return self.max_token_value + 1

    @property
    def _mergeable_ranks(self) -> dict[bytes, int]:
        # Built from the native table on first use (200k bytes objects).
        if self._mergeable_ranks_cache is None:
            self._mergeable_ranks_cache = self._core_bpe.mergeable_ranks()
        return self._mergeable_ranks_cache

    # ====================
    # Private
    # ====================

    def _encode_single_piece(self, text_or_bytes: str | bytes) -> list[int]:
        """BPE on text as one piece, without the split pattern."""
        if isinstance(text_or_bytes, str):
            text_or_bytes = text_or_bytes.encode("utf-8")
        return self._core_bpe.byte_pair_encode(text_or_bytes)

    def _encode_only_native_bpe(self, text: str) -> list[int]:
        """encode_ordinary (the split happens natively too)."""
        return self.encode_ordinary(text)

    def _encode_bytes(self, text: bytes) -> list[int]:
        """Encodes bytes that need not be valid UTF-8, as tiktoken does."""
        return self._core_bpe.encode_bytes(text)

    def _special_args(self, allowed_special, disallowed_special):
        # To the native form: a list of names, or None for "all" (allowed)
        # and "all not allowed" (disallowed).
        allowed = None if allowed_special == "all" else list(allowed_special)
        if disallowed_special == "all":
            disallowed = None
        else:
            disallowed = list(disallowed_special)
        return allowed, disallowed

    def _batch(self, texts, allowed, disallowed, num_threads):
        try:
            return self._core_bpe.encode_batch(texts, allowed, disallowed, num_threads)
        except UnicodeEncodeError:
            texts = [_fix_surrogates(t) for t in texts]
            return self._core_bpe.encode_batch(texts, allowed, disallowed, num_threads)

    def __getstate__(self) -> object:
        from tok.tiktoken import registry

        # A registered encoding pickles as its name (the vocabulary ships
        # with tok); any other as its full definition.
        if self is registry.ENCODINGS.get(self.name):
            return self.name
        return {
            "name": self.name,
            "pat_str": self._pat_str,
            "mergeable_ranks": self._mergeable_ranks,
            "special_tokens": self._special_tokens,
        }

    def __setstate__(self, value: object) -> None:
        from tok.tiktoken import registry

        if isinstance(value, str):
            self.__dict__ = registry.get_encoding(value).__dict__
            return
        self.__init__(**value)


def _fix_surrogates(text: str) -> str:
    # tiktoken's rule: lone surrogates become U+FFFD, pairs become the
    # character they encode.
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def raise_disallowed_special_token(token: str) -> NoReturn:
    raise ValueError(
        f"Encountered text corresponding to disallowed special token {token!r}.\n"
        "If you want this text to be encoded as a special token, "
        f"pass it to `allowed_special`, e.g. `allowed_special={{{token!r}, ...}}`.\n"
        f"If you want this text to be encoded as normal text, disable the check for this token "
        f"by passing `disallowed_special=(enc.special_tokens_set - {{{token!r}}})`.\n"
        "To disable this check for all special tokens, pass `disallowed_special=()`.\n"
    )
