"""Word tokens of a chat line for the word lists (`alnum_words`) and the language votes
(`letter_words`): the C extension `_tokens.c` where it is built (~1.8x faster on a chat line),
else the regexes it reproduces item for item (tests compare every code point)."""

from __future__ import annotations

import re
from collections.abc import Callable

ALNUM_WORD = re.compile(r"[^\W_]+")
"""Letters and digits of any script: the word lists' tokens."""
LETTER_WORD = re.compile(r"[^\W\d_]+")
"""Letters of any script: the language votes' tokens."""

alnum_words: Callable[[str], list[str]]
letter_words: Callable[[str], list[str]]
try:
    from models.chat._tokens import alnum_words, letter_words
except ImportError:  # not built (no compiler): the regexes give the same lists
    alnum_words, letter_words = ALNUM_WORD.findall, LETTER_WORD.findall

__all__ = ["ALNUM_WORD", "LETTER_WORD", "alnum_words", "letter_words"]
