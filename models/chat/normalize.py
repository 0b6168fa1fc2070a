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
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

_MEMO_WORDS = 50_000
_MEMO_WORD_CHARS = 40
"""Bounds of the accent-stripping memo: distinct words kept, and the longest word kept."""
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

_HAS_OTHER_SCRIPT = re.compile(r"[\u0370-\u03ff\u0400-\u052f]")
# A word (run of letters/digits, as `_TOKEN` reads it) holding both a Latin and a Cyrillic/Greek
# letter: the only case `_fix_homoglyphs` changes anything.
_MIXED_WORD = re.compile(r"[a-z][^\W_]*[\u0370-\u03ff\u0400-\u052f]|[\u0370-\u03ff\u0400-\u052f][^\W_]*[a-z]")
_TOKEN = re.compile(r"[^\W_]+|[@$!|0-9]+", re.UNICODE)
_LEET_RUN = re.compile(
    r"(?<=[^\W\d_])[013457@$|]+(?=[^\W\d_])|(?<=[^\W\d_])[013457@$]+\b|\b[013457@$](?=[^\W\d_]{2})(?!bet)"
)
_SPACED = re.compile(r"(?<![^\W_])(?:[^\W\d_][ .\-_*+]){2,}[^\W\d_](?![^\W_])")
_RUN = re.compile(r"(.)\1{2,}")
# Cheap supersets of the three tricks (plain character classes, no lookbehind): a text none of
# them finds cannot change in `_fold_tricks`, so most lines skip the costly patterns (measured:
# the leetspeak pattern alone cost ~5 us on a 65-character line).
# Each starts with a literal character set, so `re` scans for it before trying anything else.
_LEET_PRE = re.compile(r"[013457@$|](?:(?<=[^\W\d_].)|(?=[^\W\d_]))")
_SPACED_PRE = re.compile(r"[ .\-_*+](?<![^\W_][^\W\d_].)(?<=[^\W\d_].)[^\W\d_][ .\-_*+][^\W\d_](?![^\W_])")
_COMBINING = re.compile(r"[\u0300-\u036f]")
_CLUSTER = re.compile(r"(?s).[\u0300-\u036f]*")


class View(NamedTuple):
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


class Views(NamedTuple):
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
        # One negated class of the regular characters: a single charset scan, ~5x cheaper than
        # "outside the tables or irregular" spelled as an alternation.
        self._irregular = re.compile(f"[^{_class_ranges(sorted(ord(k) for k in regular))}]")
        # Most regular text folds exactly as str.lower() does (Cyrillic, Vietnamese, accented
        # Latin), and most Cyrillic text has no accent to strip: a charset scan proves it, and the
        # C-level lower() replaces a dict-driven translate (~45 ns a character, measured).
        # Σ: str.lower() makes it final ς at a word end, the table always σ.
        # đ/Đ -> d is done by a str.replace after lower() (Vietnamese text is full of it).
        unlike_lower = sorted(
            ord(k) for k, v in regular.items() if (v != k.lower() or k == "Σ") and k not in "đĐ"
        )
        self._unlike_lower = re.compile(f"[{_class_ranges(unlike_lower)}]")
        # Both checks in one negated class for the usual line (regular and folding like lower()):
        # one charset scan instead of two (the positive class above costs ~3x the negated one).
        unlike = set(unlike_lower)
        self._not_simple = re.compile(
            f"[^{_class_ranges(sorted(ord(k) for k in regular if ord(k) not in unlike))}]"
        )
        has_accent = sorted(self._bare_table)
        self._has_accent = re.compile(f"[{_class_ranges(has_accent)}]")
        self._bare_words: dict[str, str] = {}
        """Accent-free form of recently seen words (`_strip_accents`)."""

    def views(self, text: str) -> Views:
        """All views of `text` (truncated to `max_chars` first)."""
        plain, bare = self._plain_bare(text[: self.max_chars])
        return Views(plain=plain, bare=bare, folded=_fold_tricks(plain))

    def views_many(self, texts: Sequence[str]) -> list[Views]:
        """`views` of every text; letter runs are found for the whole batch in one numpy pass."""
        pairs = [self._plain_bare(t[: self.max_chars]) for t in texts]
        runs, spaced = _batch_candidates([p.text for p, _ in pairs])
        return [
            Views(p, b, _fold_tricks(p, runs=i in runs, spaced=i in spaced)) for i, (p, b) in enumerate(pairs)
        ]

    def _plain_bare(self, text: str) -> tuple[View, View]:
        if text.isascii():
            # Printable ASCII holds no control character to blank (isprintable: one C scan;
            # the translate costs ~1.4 us on a chat line, measured).
            plain = View((text if text.isprintable() else text.translate(self._ascii_table)).lower(), None)
            bare = plain
        elif (simple := self._not_simple.search(text) is None) or not self._irregular.search(text):
            if not simple and self._unlike_lower.search(text):
                folded = text.translate(self._fold_table)
            else:
                folded = text.lower()
                if "đ" in folded:
                    folded = folded.replace("đ", "d")
            bare_text = self._strip_accents(folded) if self._has_accent.search(folded) else folded
            if _HAS_OTHER_SCRIPT.search(folded):
                folded, bare_text = _fix_homoglyphs(folded), _fix_homoglyphs(bare_text)
            plain = View(folded, None)
            bare = plain if bare_text == folded else View(bare_text, None)
        else:
            plain, bare = self._fold_unicode(text)
        return plain, bare

    def clear_memo(self) -> None:
        """Forget the accent-free forms of words seen so far (`_strip_accents`)."""
        self._bare_words.clear()

    def _strip_accents(self, text: str) -> str:
        """`text.translate(self._bare_table)` word by word from a memo: the table maps one
        character to one character and leaves ' ' alone, so words translate independently, and
        chat repeats its words (Vietnamese syllables above all): dict look-ups in C replace a
        per-character dict-driven translate (~3 us on a Vietnamese line, measured)."""
        words = text.split(" ")
        memo = self._bare_words
        stripped = list(map(memo.get, words))
        if None in stripped:
            if len(memo) > _MEMO_WORDS:
                memo.clear()  # cheap, and the common words come straight back
            for i, word in enumerate(words):
                if stripped[i] is None:
                    stripped[i] = bare = word.translate(self._bare_table)
                    if len(word) <= _MEMO_WORD_CHARS:
                        memo[word] = bare
        return " ".join(stripped)  # type: ignore[arg-type]  # every None was filled

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


def _class_ranges(codes: list[int]) -> str:
    """Sorted code points as the inside of a regex character class (runs become ranges)."""
    parts: list[str] = []
    i = 0
    while i < len(codes):
        j = i
        while j + 1 < len(codes) and codes[j + 1] == codes[j] + 1:
            j += 1
        lo, hi = re.escape(chr(codes[i])), re.escape(chr(codes[j]))
        parts.append(lo if i == j else f"{lo}-{hi}")
        i = j + 1
    return "".join(parts)


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
    if not _MIXED_WORD.search(text):
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


def _batch_candidates(texts: list[str]) -> tuple[set[int], set[int]]:
    """Indices of the texts that may hold a letter run, and of those that may hold spaced-out
    letters, from one vectorised pass over the joined batch. Runs: a character three times in
    a row (a superset of what `_RUN` finds: it also counts newlines). Spaced letters: the
    shape `_SPACED_PRE` needs, x s x s x with s in ' .-_*+' and x any other character (leetspeak
    turns digits and symbols into letters but never touches those separators, so the shape of the
    plain text is the shape `_fold_tricks` sees)."""
    joined = "\n".join(texts)
    if len(joined) < 3:
        return set(), set()
    codes = np.frombuffer(joined.encode("utf-32-le"), dtype=np.uint32)
    starts = np.cumsum([0] + [len(t) + 1 for t in texts[:-1]])

    def owners(pos: np.ndarray) -> set[int]:
        return set((np.searchsorted(starts, pos, side="right") - 1).tolist()) if len(pos) else set()

    runs = owners(np.flatnonzero((codes[1:-1] == codes[:-2]) & (codes[2:] == codes[1:-1])))
    if len(codes) < 5:
        return runs, set()
    sep = _SPACED_SEPARATOR[np.minimum(codes, 128)]
    other = ~sep
    shape = other[:-4] & sep[1:-3] & other[2:-2] & sep[3:-1] & other[4:]
    return runs, owners(np.flatnonzero(shape) + 1)


_SPACED_SEPARATOR = np.array([chr(c) in " .-_*+" for c in range(128)] + [False], dtype=bool)
"""The separators of spaced-out letters, by code point (anything past ASCII is not one)."""


def _fold_tricks(view: View, *, runs: bool = True, spaced: bool = True) -> View:
    """Undo leetspeak (1:1), then join spaced-out letters and cap letter runs (both delete chars).
    `runs=False` / `spaced=False`: the caller proved the text has no letter run / no spaced-out
    letters (see `_batch_candidates`)."""
    text = view.text
    if _LEET_PRE.search(text) and _LEET_RUN.search(text):
        text = _LEET_RUN.sub(lambda m: "".join(_LEET.get(c, c) for c in m.group(0)), text)
        view = View(text, view.offsets)
        runs = True  # "$$s" is a run only now
    drops: list[tuple[int, int]] = []
    if spaced and _SPACED_PRE.search(text):
        for m in _SPACED.finditer(text):
            drops.extend((i, i + 1) for i in range(m.start() + 1, m.end(), 2))
    if runs:
        drops.extend((m.start() + 2, m.end()) for m in _RUN.finditer(text))
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
