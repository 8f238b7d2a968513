"""A drop-in for OpenAI's tiktoken on tok's encoder: `import tok.tiktoken as tiktoken`."""

from tok.tiktoken.core import Encoding as Encoding
from tok.tiktoken.model import encoding_for_model as encoding_for_model
from tok.tiktoken.model import encoding_name_for_model as encoding_name_for_model
from tok.tiktoken.registry import get_encoding as get_encoding
from tok.tiktoken.registry import list_encoding_names as list_encoding_names

# The tiktoken release whose API and test suite this follows.
__version__ = "0.14.0"
