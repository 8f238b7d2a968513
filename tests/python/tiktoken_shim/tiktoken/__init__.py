"""Makes `import tiktoken` give tok.tiktoken, for running tiktoken's own test
suite (and any tiktoken user's code) against it: put this folder on PYTHONPATH
after the one scripts/python prints. Submodules are aliased too, so
`tiktoken.core.Encoding is tok.tiktoken.Encoding`."""

import sys

import tok.tiktoken
import tok.tiktoken.core
import tok.tiktoken.load
import tok.tiktoken.model
import tok.tiktoken.registry

for _name in ("core", "load", "model", "registry"):
    sys.modules[f"{__name__}.{_name}"] = sys.modules[f"tok.tiktoken.{_name}"]
sys.modules[__name__] = tok.tiktoken
