"""Text normalisation and surface measures shared by the chat, SnapCam and nickname detectors.

Players dodge word lists with case, accents, zero-width characters, look-alike letters from
another script, leetspeak and stretched letters; `fold` undoes those so one lexicon catches them.
"""

from __future__ import annotations

import re
import unicodedata

ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad\u200e\u200f\u202a\u202b\u202c\u202d\u202e"))
"""Invisible characters (zero-width, soft hyphen, bidi controls) removed before any matching."""

# Cyrillic letters that render like Latin ones, used to disguise Latin words (and vice versa).
_CYR_TO_LAT = str.maketrans("аеорсухкмтвні", "aeopcyxkmtbhi")
_LEET = str.maketrans("0134578@$", "oieastbas")
_STRETCH = re.compile(r"(\w)\1{2,}")
_LETTERS = re.compile(r"[^\W\d_]", re.UNICODE)
_PUNCT_RUN = re.compile(r"([!?])\1{2,}|[!?]{4,}")


def clean(text: str) -> str:
    """NFC text with invisible characters removed; offsets of `clean` are what spans point at."""
    return unicodedata.normalize("NFC", text).translate(ZERO_WIDTH)


def fold(text: str) -> str:
    """Case-folded, accent-insensitive form for lexicon lookups (Vietnamese đ kept as d)."""
    lowered = clean(text).casefold().replace("đ", "d")
    decomposed = unicodedata.normalize("NFKD", lowered)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def fold_disguised(text: str) -> str:
    """`fold` plus undoing leetspeak, look-alike Cyrillic letters and stretched letters."""
    latinised = fold(text).translate(_CYR_TO_LAT) if _mostly_latin(text) else fold(text)
    return _STRETCH.sub(r"\1", latinised.translate(_LEET))


def squash(text: str) -> str:
    """Letters only, disguise undone: `F.u_c-k Y0u` -> `fuckyou` (nicknames run words together)."""
    return "".join(c for c in fold_disguised(text) if c.isalpha())


def fold_mapped(text: str, *, leet: bool = True) -> tuple[str, tuple[int, ...]]:
    """`fold_disguised` without squeezing, plus each folded character's offset in `text`.

    Lexicon matches on the folded form are turned back into spans on the original text with it.
    """
    if text.isascii():
        # Fast path for most chat: ASCII folds one-to-one, so offsets are the identity.
        lowered = text.lower()
        return (lowered.translate(_LEET) if leet else lowered), tuple(range(len(text)))
    out: list[str] = []
    where: list[int] = []
    latin = _mostly_latin(text)
    for i, char in enumerate(text):
        if ord(char) in ZERO_WIDTH:
            continue
        piece = fold(char).translate(_LEET) if leet else fold(char)
        if latin:
            piece = piece.translate(_CYR_TO_LAT)
        out.append(piece)
        where.extend([i] * len(piece))
    return "".join(out), tuple(where)


def letters(text: str) -> list[str]:
    """Alphabetic characters of a text, in order."""
    return _LETTERS.findall(text)


def caps_ratio(text: str) -> float:
    """Share of cased letters that are upper case (0 when the text has fewer than one)."""
    cased = [c for c in letters(text) if c.isupper() or c.islower()]
    return sum(c.isupper() for c in cased) / len(cased) if cased else 0.0


def has_punct_run(text: str) -> bool:
    """True for `!!!`, `???` or a long `?!?!` run: the written form of raising one's voice."""
    return _PUNCT_RUN.search(text) is not None


def is_emoji(char: str) -> bool:
    """True for pictographs and symbols used as emoji (category So, or emoji modifiers)."""
    return unicodedata.category(char) == "So" or 0x1F3FB <= ord(char) <= 0x1F3FF


def emoji_count(text: str) -> int:
    """Number of emoji characters in a text."""
    return sum(1 for c in text if is_emoji(c))


def is_emoji_only(text: str) -> bool:
    """At least one emoji and nothing but emoji, joiners, variation selectors and spaces."""
    body = clean(text).replace("\ufe0f", "").replace("\u200d", "")
    return any(is_emoji(c) for c in body) and all(is_emoji(c) or c.isspace() for c in body)


def longest_run(text: str) -> int:
    """Length of the longest run of one repeated non-space character."""
    best, run, prev = 0, 0, ""
    for c in text:
        run = run + 1 if c == prev and not c.isspace() else 1
        prev = c
        best = max(best, run)
    return best


def _mostly_latin(text: str) -> bool:
    latin = sum(1 for c in text if "a" <= c.lower() <= "z")
    return latin * 2 >= len(letters(text))
