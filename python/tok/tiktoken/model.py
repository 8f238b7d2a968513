"""Model name to encoding name, as tiktoken 0.14's tiktoken/model.py maps them."""

from __future__ import annotations

from tok.tiktoken.core import Encoding
from tok.tiktoken.registry import get_encoding

# Prefixes for versioned and fine-tuned names; checked in this order.
MODEL_PREFIX_TO_ENCODING: dict[str, str] = {
    "o1-": "o200k_base",
    "o3-": "o200k_base",
    "o4-mini-": "o200k_base",
    "gpt-5": "o200k_base",
    "gpt-4.5-": "o200k_base",
    "gpt-4.1-": "o200k_base",
    "chatgpt-4o-": "o200k_base",
    "gpt-4o-": "o200k_base",
    "gpt-4-": "cl100k_base",
    "gpt-3.5-turbo-": "cl100k_base",
    "gpt-35-turbo-": "cl100k_base",
    "gpt-oss-": "o200k_harmony",
    "ft:gpt-4o": "o200k_base",
    "ft:gpt-4": "cl100k_base",
    "ft:gpt-3.5-turbo": "cl100k_base",
    "ft:davinci-002": "cl100k_base",
    "ft:babbage-002": "cl100k_base",
}

_R50K = (
    "text-davinci-001 text-curie-001 text-babbage-001 text-ada-001 davinci curie babbage ada "
    "text-similarity-davinci-001 text-similarity-curie-001 text-similarity-babbage-001 "
    "text-similarity-ada-001 text-search-davinci-doc-001 text-search-curie-doc-001 "
    "text-search-babbage-doc-001 text-search-ada-doc-001 code-search-babbage-code-001 "
    "code-search-ada-code-001"
)
_P50K = (
    "text-davinci-003 text-davinci-002 code-davinci-002 code-davinci-001 code-cushman-002 "
    "code-cushman-001 davinci-codex cushman-codex"
)
_CL100K = (
    "gpt-4 gpt-3.5-turbo gpt-3.5 gpt-35-turbo davinci-002 babbage-002 text-embedding-ada-002 "
    "text-embedding-3-small text-embedding-3-large"
)

MODEL_TO_ENCODING: dict[str, str] = {
    **{m: "o200k_base" for m in "o1 o3 o4-mini gpt-5 gpt-4.1 gpt-4o".split()},
    **{m: "cl100k_base" for m in _CL100K.split()},
    **{m: "p50k_base" for m in _P50K.split()},
    **{m: "r50k_base" for m in _R50K.split()},
    "text-davinci-edit-001": "p50k_edit",
    "code-davinci-edit-001": "p50k_edit",
    "gpt2": "gpt2",
    "gpt-2": "gpt2",
}


def encoding_name_for_model(model_name: str) -> str:
    """The encoding name of a model; KeyError if the name is not recognised."""
    if model_name in MODEL_TO_ENCODING:
        return MODEL_TO_ENCODING[model_name]
    for prefix, encoding_name in MODEL_PREFIX_TO_ENCODING.items():
        if model_name.startswith(prefix):
            return encoding_name
    raise KeyError(
        f"Could not automatically map {model_name} to a tokeniser. "
        "Please use `tiktoken.get_encoding` to explicitly get the tokeniser you expect."
    ) from None


def encoding_for_model(model_name: str) -> Encoding:
    """The encoding of a model; KeyError if the name is not recognised."""
    return get_encoding(encoding_name_for_model(model_name))
