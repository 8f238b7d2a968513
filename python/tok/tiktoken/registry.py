"""The encodings tiktoken knows, loaded offline from the vocabularies tok ships.

Split patterns and special tokens are those of tiktoken's
tiktoken_ext/openai_public.py (0.14); the ranks are tok's vocab/*.tiktoken
(gpt2's ranks are r50k_base's, p50k_edit's p50k_base's, o200k_harmony's
o200k_base's).
"""

from __future__ import annotations

import threading

from tok import _tok
from tok.tiktoken.core import Encoding

ENDOFTEXT = "<|endoftext|>"
FIM_PREFIX = "<|fim_prefix|>"
FIM_MIDDLE = "<|fim_middle|>"
FIM_SUFFIX = "<|fim_suffix|>"
ENDOFPROMPT = "<|endofprompt|>"

R50K_PAT = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
CL100K_PAT = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
O200K_PAT = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)


def _harmony_specials() -> dict[str, int]:
    # As tiktoken: 200018 has two names, <|endofprompt|> and <|reserved_200018|>.
    out = {
        ENDOFTEXT: 199999,
        ENDOFPROMPT: 200018,
        "<|startoftext|>": 199998,
        "<|reserved_200000|>": 200000,
        "<|reserved_200001|>": 200001,
        "<|return|>": 200002,
        "<|constrain|>": 200003,
        "<|reserved_200004|>": 200004,
        "<|channel|>": 200005,
        "<|start|>": 200006,
        "<|end|>": 200007,
        "<|message|>": 200008,
        "<|reserved_200009|>": 200009,
        "<|reserved_200010|>": 200010,
        "<|reserved_200011|>": 200011,
        "<|call|>": 200012,
    }
    out.update({f"<|reserved_{i}|>": i for i in range(200013, 201088)})
    return out


# name: (tok's vocabulary, pat_str, special tokens, explicit_n_vocab)
_DEFINITIONS = {
    "gpt2": ("r50k_base", R50K_PAT, {ENDOFTEXT: 50256}, 50257),
    "r50k_base": ("r50k_base", R50K_PAT, {ENDOFTEXT: 50256}, 50257),
    "p50k_base": ("p50k_base", R50K_PAT, {ENDOFTEXT: 50256}, 50281),
    "p50k_edit": (
        "p50k_base",
        R50K_PAT,
        {ENDOFTEXT: 50256, FIM_PREFIX: 50281, FIM_MIDDLE: 50282, FIM_SUFFIX: 50283},
        None,
    ),
    "cl100k_base": (
        "cl100k_base",
        CL100K_PAT,
        {
            ENDOFTEXT: 100257,
            FIM_PREFIX: 100258,
            FIM_MIDDLE: 100259,
            FIM_SUFFIX: 100260,
            ENDOFPROMPT: 100276,
        },
        None,
    ),
    "o200k_base": ("o200k_base", O200K_PAT, {ENDOFTEXT: 199999, ENDOFPROMPT: 200018}, None),
    "o200k_harmony": ("o200k_base", O200K_PAT, _harmony_specials(), None),
}

_lock = threading.RLock()
ENCODINGS: dict[str, Encoding] = {}


def get_encoding(encoding_name: str) -> Encoding:
    """The named encoding (loaded once, then shared)."""
    if not isinstance(encoding_name, str):
        raise ValueError(f"Expected a string in get_encoding, got {type(encoding_name)}")
    if encoding_name in ENCODINGS:
        return ENCODINGS[encoding_name]
    with _lock:
        if encoding_name in ENCODINGS:
            return ENCODINGS[encoding_name]
        if encoding_name not in _DEFINITIONS:
            raise ValueError(
                f"Unknown encoding {encoding_name}.\n"
                f"Plugins found: ['tok.tiktoken']\n"
                f"Available encodings: {', '.join(list_encoding_names())}"
            )
        vocab, pat_str, specials, n_vocab = _DEFINITIONS[encoding_name]
        core = _tok.CoreBPE.from_spec(vocab, encoding_name, specials)
        enc = Encoding(
            encoding_name,
            pat_str=pat_str,
            mergeable_ranks=None,
            special_tokens=specials,
            explicit_n_vocab=n_vocab,
            _core=core,
        )
        ENCODINGS[encoding_name] = enc
        return enc


def list_encoding_names() -> list[str]:
    """Every encoding get_encoding accepts."""
    return list(_DEFINITIONS)
