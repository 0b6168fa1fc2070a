"""Text normalisation and surface measures shared by the chat, SnapCam and nickname detectors.

Players dodge word lists with case, accents, zero-width characters, look-alike letters from
another script, leetspeak and stretched letters; `fold` undoes those so one lexicon catches them.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

ZERO_WIDTH = dict.fromkeys(
    map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad\u200e\u200f\u202a\u202b\u202c\u202d\u202e")
)
"""Invisible characters (zero-width, soft hyphen, bidi controls) removed before any matching."""

# Cyrillic letters that render like Latin ones, used to disguise Latin words (and vice versa).
_CYR_TO_LAT = str.maketrans("аеорсухкмтвні", "aeopcyxkmtbhi")
_LEET = str.maketrans("0134578@$", "oieastbas")
_LEET_CONTEXT = re.compile(r"[^\W\d_][0-9@$]|[0-9@$][^\W\d_]")
_LEET_CHAR = re.compile("[0-9@$]")
"""What `_LEET_CONTEXT` needs; found by a fast scan (a pattern opening with a set), so lines with
no digit skip the slower two-sided test."""
_STRETCH = re.compile(r"(\w)\1{2,}")
_COMBINING = re.compile("[\u0300-\u036f\u0483-\u0489\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
_LETTERS = re.compile(r"[^\W\d_]", re.UNICODE)
_PUNCT_RUN = re.compile(r"([!?])\1{2,}|[!?]{4,}")


def clean(text: str) -> str:
    """NFC text with invisible characters removed; offsets of `clean` are what spans point at."""
    return unicodedata.normalize("NFC", text).translate(ZERO_WIDTH)


MEMO_TEXTS = 16_384
"""Texts the per-text memos below remember: several detectors fold the same line (and the
place-keyed ones do so `lateness`, thousands of lines, after the others)."""


@lru_cache(maxsize=MEMO_TEXTS)
def fold(text: str) -> str:
    """Case-folded, accent-insensitive form for lexicon lookups (Vietnamese đ kept as d)."""
    if text.isascii():
        return text.lower()
    lowered = clean(text).casefold().replace("đ", "d")
    return _COMBINING.sub("", unicodedata.normalize("NFKD", lowered))


def fold_disguised(text: str) -> str:
    """`fold` plus undoing leetspeak, look-alike Cyrillic letters and stretched letters."""
    latinised = fold(text).translate(_CYR_TO_LAT) if _mostly_latin(text) else fold(text)
    return _STRETCH.sub(r"\1", latinised.translate(_LEET))


def squash(text: str) -> str:
    """Letters only, disguise undone: `F.u_c-k Y0u` -> `fuckyou` (nicknames run words together)."""
    return "".join(c for c in fold_disguised(text) if c.isalpha())


def fold_mapped(text: str, *, leet: bool = True) -> tuple[str, Sequence[int]]:
    """`fold` plus leetspeak, and each folded character's offset in `text` (no squeezing, no unmixing).

    Lexicon matches on the folded form are turned back into spans on the original text with it.
    """
    # Digits count as letters only when glued to letters ("1d10t"), not in "lol 123" or "AK 2 outer".
    if leet and _LEET_CHAR.search(text) is not None and _LEET_CONTEXT.search(text) is not None:
        return _fold_mapped_leet(text)
    return _fold_mapped_plain(text)


# Memoised (so the offsets are a tuple, never a list a caller could change): the lexicon and the
# hand-talk phrases fold each line the same way unless it holds leetspeak. One cache per mode,
# keyed by the text alone: a one-string key is stored as is, not as a GC-tracked tuple.
@lru_cache(maxsize=MEMO_TEXTS)
def _fold_mapped_plain(text: str) -> tuple[str, Sequence[int]]:
    return _fold_mapped(text, False)


@lru_cache(maxsize=MEMO_TEXTS)
def _fold_mapped_leet(text: str) -> tuple[str, Sequence[int]]:
    return _fold_mapped(text, True)


def _fold_mapped(text: str, leet: bool) -> tuple[str, Sequence[int]]:
    if text.isascii():
        # Fast path for most chat: ASCII folds one-to-one, so offsets are the identity.
        lowered = text.lower()
        return (lowered.translate(_LEET) if leet else lowered), range(len(text))
    folds = _LEET_FOLDS if leet else _PLAIN_FOLDS
    folded = text.translate(folds)  # each character's `_fold_char`, joined, in one C-level pass
    if len(folded) == len(text) and (not folds.widening or folds.empty.isdisjoint(text)):
        # As long as the text with no piece empty: every character folded to exactly one. While
        # no character ever folded to several, an empty piece would have shortened the text.
        return folded, range(len(text))
    pieces = [folds[ord(char)] for char in text]
    return folded, tuple(i for i, piece in enumerate(pieces) for _ in piece)


class _CharFolds(dict[int, str]):
    """Code point -> `_fold_char` of it, filled as characters turn up, for `str.translate`."""

    def __init__(self, leet: bool) -> None:
        super().__init__()
        self.leet = leet
        self.empty: set[str] = set()
        """Characters that fold to nothing (zero-width, lone combining marks): never forgotten, so
        it holds every such character of any text just translated (there are a few thousand)."""
        self.widening = False
        """Whether any character has folded to several ("ß" to "ss"); never reset, like `empty`."""

    def __missing__(self, code: int) -> str:
        if len(self) >= _MAX_FOLDS:
            self.clear()  # bounded whatever characters a text brings
        piece = self[code] = _fold_char(chr(code), self.leet)
        if not piece:
            self.empty.add(chr(code))
        elif len(piece) > 1:
            self.widening = True
        return piece


_MAX_FOLDS = 8192
_PLAIN_FOLDS, _LEET_FOLDS = _CharFolds(False), _CharFolds(True)


@lru_cache(maxsize=8192)
def _fold_char(char: str, leet: bool) -> str:
    # Memoised: chat uses a few hundred distinct characters, and folding one is the hot path.
    if ord(char) in ZERO_WIDTH:
        return ""
    return fold(char).translate(_LEET) if leet else fold(char)


_LAT_TO_CYR = {v: k for k, v in _CYR_TO_LAT.items()}
_ASCII_LETTER = re.compile("[a-z]")


def unmix(word: str) -> str:
    """A word mixing Latin and Cyrillic look-alikes, written in its majority script."""
    if word.isascii() or _ASCII_LETTER.search(word) is None:
        return word
    latin = sum(1 for c in word if "a" <= c <= "z")
    cyrillic = sum(1 for c in word if "\u0400" <= c <= "\u04ff")
    if not latin or not cyrillic:
        return word
    return word.translate(_CYR_TO_LAT if latin >= cyrillic else _LAT_TO_CYR)


def letters(text: str) -> list[str]:
    """Alphabetic characters of a text, in order."""
    return _LETTERS.findall(text)


def caps_ratio(text: str) -> float:
    """Share of cased letters that are upper case (0 when the text has none)."""
    upper = sum(map(str.isupper, text))
    cased = upper + sum(map(str.islower, text))
    return upper / cased if cased else 0.0


def has_punct_run(text: str) -> bool:
    """True for `!!!`, `???` or a long `?!?!` run: the written form of raising one's voice."""
    return ("!" in text or "?" in text) and _PUNCT_RUN.search(text) is not None


_EMOJI_CLASS = (
    "\u00a9\u00ae\u203c\u2049\u2122\u2139\u2194-\u2199\u21a9\u21aa\u231a-\u23ff\u24c2"
    "\u25a0-\u27bf\u2900-\u297f\u2b00-\u2bff\u3030\u303d\u3297\u3299\U0001f000-\U0001faff"
)
_EMOJI = re.compile(f"[{_EMOJI_CLASS}]")
_EMOJI_ONLY = re.compile(f"[\\s\ufe0f\u200d\u20e3{_EMOJI_CLASS}]*")


def is_emoji(char: str) -> bool:
    """True for pictographs, symbols and modifiers used as emoji."""
    return _EMOJI.fullmatch(char) is not None


def emoji_count(text: str) -> int:
    """Number of emoji characters in a text."""
    # Every emoji character is outside ASCII, and most chat is ASCII: no regex pass for it.
    return 0 if text.isascii() else len(_EMOJI.findall(text))


def is_emoji_only(text: str) -> bool:
    """At least one emoji and nothing but emoji, joiners, variation selectors and spaces."""
    if text.isascii():
        return False  # no emoji is ASCII (see `emoji_count`)
    return _EMOJI.search(text) is not None and _EMOJI_ONLY.fullmatch(clean(text)) is not None


@lru_cache(maxsize=16)
def _run_pattern(length: int) -> re.Pattern[str]:
    return re.compile(rf"(\S)\1{{{max(0, length - 1)},}}")


def has_run(text: str, length: int) -> bool:
    """True when one non-space character repeats at least `length` times in a row."""
    return _run_pattern(length).search(text) is not None


def longest_run(text: str) -> int:
    """Length of the longest run of one repeated non-space character."""
    best, run, prev = 0, 0, ""
    for c in text:
        run = run + 1 if c == prev and not c.isspace() else 1
        prev = c
        best = max(best, run)
    return best


def _mostly_latin(text: str) -> bool:
    if text.isascii():
        return True  # every ASCII letter is Latin
    latin = sum(1 for c in text if "a" <= c.lower() <= "z")
    return latin * 2 >= len(letters(text))
