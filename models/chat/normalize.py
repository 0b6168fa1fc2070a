"""Text views for matching and features, each keeping a map back to ORIGINAL character offsets.

`plain`: truncated, case-folded, NFKC, zero-width and control characters removed, mixed-script
homoglyphs folded to the word's majority script; accents kept.
`bare`: `plain` without accents (1:1 with `plain`), for hand-written patterns typed either way.
`folded`: `plain` plus leetspeak, spaced-out letters joined and letter runs capped at two; the
statistical features and the word lists read this one.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

MAX_CHARS = 2000
"""Analysis stops here: chat lines are short and a 1 MB message must not cost 1 MB of work."""

_ZERO_WIDTH = frozenset(
    "\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff\u00ad\u034f\u180e"
)
_SPECIAL = {"đ": "d", "Đ": "d", "ł": "l", "ø": "o", "ı": "i", "ß": "ss", "æ": "ae", "œ": "oe"}
_LATIN_TO_CYR = dict(zip("aceiopxyhkmtb", "асеіорхункмтв", strict=True))
_CYR_TO_LAT = {
    **{v: k for k, v in _LATIN_TO_CYR.items()},
    **dict(zip("ѕјԁһӏԛԝиапгё", "sjdhlqwuanre", strict=True)),
}
_GREEK_TO_LAT = dict(zip("αβεικνορτυχ", "abeiknoptux", strict=True))
_LEET = {"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s", "!": "i", "|": "l"}

_HAS_LATIN = re.compile(r"[a-z]")
_HAS_OTHER_SCRIPT = re.compile(r"[\u0370-\u03ff\u0400-\u052f]")
_TOKEN = re.compile(r"[^\W_]+|[@$!|0-9]+", re.UNICODE)
_LEET_RUN = re.compile(
    r"(?<=[^\W\d_])[013457@$|]+(?=[^\W\d_])|(?<=[^\W\d_])[013457@$]+\b|\b[013457@$](?=[^\W\d_]{2})(?!bet)"
)
_SPACED = re.compile(r"(?<![^\W_])(?:[^\W\d_][ .\-_*+]){2,}[^\W\d_](?![^\W_])")
_RUN = re.compile(r"(.)\1{2,}")
_COMBINING = re.compile(r"[\u0300-\u036f]")
_CLUSTER = re.compile(r"(?s).[\u0300-\u036f]*")


@dataclass(frozen=True, slots=True)
class View:
    """A transformed text and, per character, the index of the original character it came from."""

    text: str
    offsets: list[int] | None
    """None when the view is aligned 1:1 with the original."""

    def origin(self, start: int, end: int) -> tuple[int, int]:
        """Original [start, end) covering view characters [start, end)."""
        if self.offsets is None:
            return start, end
        if end <= start or start >= len(self.offsets):
            return 0, 0
        return self.offsets[start], self.offsets[min(end, len(self.offsets)) - 1] + 1


@dataclass(frozen=True, slots=True)
class Views:
    """The three views of one text."""

    plain: View
    bare: View
    folded: View


def fold_char(ch: str) -> str:
    """Case-folded NFKC form of one character; '' for invisible ones, ' ' for control ones."""
    if ch in _ZERO_WIDTH:
        return ""
    if ch in _SPECIAL:
        return _SPECIAL[ch]
    cat = unicodedata.category(ch)
    if cat in ("Cc", "Cs", "Co", "Zl", "Zp") or cat == "Zs":
        return " " if ch != "\u200b" else ""
    if cat == "Mn":
        return ""  # marks that did not compose with their base (see `_compose`)
    folded = unicodedata.normalize("NFKC", ch).lower()
    return "".join(c for c in folded if c not in _ZERO_WIDTH and unicodedata.category(c) != "Mn")


def strip_accents(ch: str) -> str:
    """One character without its diacritics (1:1, so offsets survive)."""
    if ch.isascii():
        return ch
    if ch in _SPECIAL:
        return _SPECIAL[ch][0]
    base = unicodedata.normalize("NFD", ch)[0]
    return base if unicodedata.category(base) != "Mn" else ""


class Normalizer:
    """Builds `Views`; owns per-character tables computed once (no module-level caches)."""

    def __init__(self, *, max_chars: int = MAX_CHARS) -> None:
        self.max_chars = max_chars
        # Tables for the scripts the room uses; other characters are computed on the fly.
        ranges = [(0, 0x250), (0x370, 0x530), (0x1E00, 0x1F00), (0x2000, 0x2070), (0xFF00, 0xFF70)]
        ranges += [(0x1F000, 0x1FB00), (0x2190, 0x2C00)]  # emoji and symbols: common, fold to themselves
        self._fold = {chr(c): fold_char(chr(c)) for lo, hi in ranges for c in range(lo, hi)}
        self._bare = {k: "".join(strip_accents(c) or c for c in v) for k, v in self._fold.items()}
        self._ascii_table = str.maketrans({chr(c): " " for c in range(32) if chr(c) not in "\t\n"})
        # Fast path: text made only of characters that fold to exactly one character is folded
        # by two C-level str.translate calls with identity offsets; anything else takes the loop.
        regular = {k: v for k, v in self._fold.items() if len(v) == 1}
        self._fold_table = str.maketrans({k: v for k, v in regular.items() if k != v})
        self._bare_table = str.maketrans(
            {v: b for k, v in regular.items() if (b := self._bare[k]) != v and len(b) == 1}
        )
        irregular = "".join(re.escape(k) for k, v in self._fold.items() if len(v) != 1)
        allowed = "".join(f"{re.escape(chr(lo))}-{re.escape(chr(hi - 1))}" for lo, hi in ranges)
        self._irregular = re.compile(f"[^{allowed}]|[{irregular}]")

    def views(self, text: str) -> Views:
        """All views of `text` (truncated to `max_chars` first)."""
        text = text[: self.max_chars]
        if text.isascii():
            plain = View(text.translate(self._ascii_table).lower(), None)
            bare = plain
        elif not self._irregular.search(text):
            folded = text.translate(self._fold_table)
            plain = View(_fix_homoglyphs(folded), None)
            bare = View(_fix_homoglyphs(folded.translate(self._bare_table)), None)
        else:
            plain, bare = self._fold_unicode(text)
        return Views(plain=plain, bare=bare, folded=_fold_tricks(plain))

    def _fold_unicode(self, text: str) -> tuple[View, View]:
        base_offsets: list[int] | None = None
        if _COMBINING.search(text):
            text, base_offsets = _compose(text)
        chars: list[str] = []
        bare_chars: list[str] = []
        offsets: list[int] = []
        aligned = base_offsets is None
        fold, bare = self._fold, self._bare
        for i, ch in enumerate(text):
            rep = fold.get(ch)
            if rep is None:
                rep = fold_char(ch)
                b = "".join(strip_accents(c) or c for c in rep)
            else:
                b = bare[ch]
            if len(rep) != 1:
                aligned = False
                if len(b) != len(rep):
                    b = rep
            chars.append(rep)
            bare_chars.append(b)
            origin = i if base_offsets is None else base_offsets[i]
            offsets.extend([origin] * len(rep))
        plain_text = _fix_homoglyphs("".join(chars))
        bare_text = _fix_homoglyphs("".join(bare_chars))
        offs = None if aligned else offsets
        return View(plain_text, offs), View(bare_text, offs)


def _compose(text: str) -> tuple[str, list[int]]:
    """NFC per base character + its combining marks (decomposed Vietnamese input), with offsets."""
    parts: list[str] = []
    offsets: list[int] = []
    for m in _CLUSTER.finditer(text):
        composed = unicodedata.normalize("NFC", m.group(0))
        parts.append(composed)
        offsets.extend([m.start()] * len(composed))
    return "".join(parts), offsets


def _fix_homoglyphs(text: str) -> str:
    """Words mixing Latin with Cyrillic/Greek letters are folded to their majority script (1:1)."""
    if not (_HAS_LATIN.search(text) and _HAS_OTHER_SCRIPT.search(text)):
        return text

    def fix(m: re.Match[str]) -> str:
        word = m.group(0)
        latin = sum(1 for c in word if "a" <= c <= "z")
        other = sum(1 for c in word if "\u0370" <= c <= "\u052f")
        if not latin or not other:
            return word
        if latin >= other:
            return "".join(_CYR_TO_LAT.get(c, _GREEK_TO_LAT.get(c, c)) for c in word)
        return "".join(_LATIN_TO_CYR.get(c, c) for c in word)

    return _TOKEN.sub(fix, text)


def _fold_tricks(view: View) -> View:
    """Undo leetspeak (1:1), then join spaced-out letters and cap letter runs (both delete chars)."""
    text = view.text
    if _LEET_RUN.search(text):
        text = _LEET_RUN.sub(lambda m: "".join(_LEET.get(c, c) for c in m.group(0)), text)
    view = View(text, view.offsets)
    drops: list[tuple[int, int]] = []
    for m in _SPACED.finditer(text):
        drops.extend((i, i + 1) for i in range(m.start() + 1, m.end(), 2))
    for m in _RUN.finditer(text):
        drops.append((m.start() + 2, m.end()))
    return _drop(view, sorted(drops)) if drops else view


def _drop(view: View, drops: list[tuple[int, int]]) -> View:
    """The view without the [start, end) ranges in `drops` (sorted, non-overlapping)."""
    base = view.offsets if view.offsets is not None else range(len(view.text))
    parts: list[str] = []
    offsets: list[int] = []
    pos = 0
    for start, end in drops:
        if start < pos:
            continue
        parts.append(view.text[pos:start])
        offsets.extend(base[pos:start])
        pos = end
    parts.append(view.text[pos:])
    offsets.extend(base[pos:])
    return View("".join(parts), offsets)
