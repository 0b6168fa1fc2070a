"""Rule-based scores: the hand-written patterns, link analysis and contact details (links.py).

All matching runs on the `bare` view; spans are reported in view offsets and mapped back to the
original text by the caller.
"""

from __future__ import annotations

import re
from pathlib import Path

from models.chat.links import HANDLE_GATE, URL_GATE, RuleHit, find_contacts, find_links
from models.chat.normalize import strip_accents
from models.chat.patterns import PATTERNS
from models.chat.prefilter import build_prefilter

__all__ = ["RULE_CATEGORIES", "RuleHit", "RuleSet", "find_contacts", "find_links", "triggers", "undo_disguise"]

RULE_CATEGORIES: tuple[str, ...] = tuple(
    sorted({c for c, _, _ in PATTERNS} | {"spam", "malicious_link", "personal_info"})
)
"""Every category a rule hit can carry (patterns, links, contacts): the statistical heads read the
best score per category as features, so a pattern is evidence a head weighs, not a verdict."""

_COMMON = frozenset(
    [
        "i",
        "a",
        "an",
        "the",
        "to",
        "it",
        "s",
        "t",
        "of",
        "and",
        "or",
        "me",
        "my",
        "you",
        "u",
        "ya",
        "yo",
        "is",
        "are",
        "on",
        "in",
        "at",
        "this",
        "that",
        "so",
        "do",
        "be",
        "we",
    ]
)
_ESCAPE = re.compile(r"\\[a-zA-Z]|\[[^\]]*\]|\{[^}]*\}")
_LITERAL = re.compile(r"[^\W\d_]+")
_TOKEN = re.compile(r"[^\W\d_]+")


def triggers(pattern: str) -> frozenset[str]:
    """Words of a pattern's literal text, minus very common ones: a text none of whose words
    equals (short) or starts like (4+ letters) one of them cannot match, so the regex is skipped.
    Empty = always run the regex."""
    words = _LITERAL.findall(_ESCAPE.sub(" ", pattern))
    return frozenset(w if len(w) < 4 else w[:4] for w in words if w not in _COMMON)


def _loosen(pattern: str) -> str:
    """A pattern RE2 and Hyperscan compile, matching at least everything `pattern` matches: Python's
    Unicode word classes spelled as Unicode properties, word boundaries and lookarounds (ahead
    and behind) dropped."""
    out = pattern.replace(r"[^\W\d_]", r"\pL").replace(r"\w", r"[\pL\pN_]").replace(r"\W", r"[^\pL\pN_]")
    out = out.replace(r"\b", "")
    while any((start := out.find(look)) >= 0 for look in ("(?!", "(?=", "(?<!", "(?<=")):
        depth, end = 0, start
        for end in range(start, len(out)):
            depth += {"(": 1, ")": -1}.get(out[end], 0) if out[end - 1 : end] != "\\" else 0
            if depth == 0:
                break
        out = out[:start] + out[end + 1 :]
    return out


_LETTERISH = r"[^\x00-\x40\x5b-\x60\x7b-\x7f]"
"""Any character but an ASCII non-letter: a superset of Python's letters without relying on
the engine's Unicode tables agreeing with Python's."""
_GATES = (
    # Leetspeak inside a word (`_LEET_IN_WORD`): a digit/symbol run touching a letter.
    rf"{_LETTERISH}[|!]*[013457@$]|{_LETTERISH}[|!]+{_LETTERISH}|[013457@$]{_LETTERISH}",
    # Spaced-out letters (`_SPACED_OUT`): three single letters between separators.
    rf"(?:^|[^a-zA-Z0-9]){_LETTERISH}[ .\-_*+]{_LETTERISH}[ .\-_*+]{_LETTERISH}(?:$|[^a-zA-Z0-9])",
    # Messenger handles (`links._HANDLE`).
    HANDLE_GATE,
    # Links (`links._URL`).
    URL_GATE,
)
"""Superset checks run in the same prefilter pass as the patterns: `undo_disguise`'s two Python
regexes cost ~4 us per line and find something on ~3 % of lines; the handle pattern ~6 us on
the ~21 % of lines its old character test let through; the link scan ~10 us on ~5 %."""


class RuleSet:
    """The compiled patterns, each behind a word trigger so most lines run none of them."""

    def __init__(self, *, cache_dir: Path | None = None, engine: str = "auto") -> None:
        """`cache_dir`: where the prefilter keeps its compiled database (prefilter.py); `engine`:
        "auto", "hyperscan" or "re2" (tests compare them)."""
        self._patterns: list[tuple[str, float, re.Pattern[str]]] = []
        self._by_word: dict[str, set[int]] = {}
        self._always: set[int] = set()
        for k, (category, score, pattern) in enumerate(PATTERNS):
            bare = _bare_pattern(pattern)
            self._patterns.append((category, score, re.compile(bare)))
            words = triggers(bare)
            if not words:
                self._always.add(k)
            for word in words:
                self._by_word.setdefault(word, set()).add(k)
        loosened = [_loosen(_bare_pattern(p)) for _, _, p in PATTERNS] + list(_GATES)
        self._set = build_prefilter(loosened, cache_dir=cache_dir, engine=engine)

    @property
    def engine(self) -> str:
        """The prefilter engine in use ("hyperscan", "re2"), or "trigger words" without one."""
        return self._set.name if self._set is not None else "trigger words"

    def active(self, text: str) -> set[int]:
        """Indices of the patterns that may match: the one-pass prefilter when an engine is
        installed (a loosened superset of every pattern), else the trigger words."""
        if self._set is not None:
            return {k for k in self._set.match(text) if k < len(self._patterns)}
        tokens = set(_TOKEN.findall(text))
        keys = tokens | {t[:4] for t in tokens if len(t) > 4}
        found = set(self._always)
        for word in self._by_word.keys() & keys:
            found |= self._by_word[word]
        return found

    def find(self, text: str, *, prefilter: bool = True) -> list[RuleHit]:
        """Every rule hit in a bare-view text, also where leetspeak or spaced-out letters hid it."""
        matched = self._set.match(text) if prefilter and self._set is not None else None
        if matched == []:  # ~90 % of lines: no pattern, link, handle or disguise is possible
            return find_contacts(text, handles_possible=False)  # e-mails and phones have no gate
        hits = self._patterns_in(text, prefilter, matched)
        n = len(self._patterns)
        hits.extend(find_links(text, possible=matched is None or n + 3 in matched))
        hits.extend(find_contacts(text, handles_possible=matched is None or n + 2 in matched))
        undone = undo_disguise(
            text,
            leet_possible=matched is None or n in matched,
            spaced_possible=matched is None or n + 1 in matched,
        )
        if undone is not None:
            # The bare view keeps digits and spacing (card ranks, "3bet", amounts): the patterns
            # run again on the undisguised text, and its hits are mapped back onto the bare view.
            plain, where = undone
            seen = {(h.category, h.start, h.end) for h in hits}
            for h in self._patterns_in(plain, prefilter, None):
                start, end = where[h.start], where[h.end - 1] + 1
                if h.end > h.start and (h.category, start, end) not in seen:
                    hits.append(RuleHit(h.category, h.score, start, end, h.reason))
        return hits

    def _patterns_in(self, text: str, prefilter: bool, matched: list[int] | None) -> list[RuleHit]:
        """Pattern hits; `matched` = this text's prefilter matches when already computed."""
        hits: list[RuleHit] = []
        n = len(self._patterns)
        if matched is not None:
            indices: set[int] | range = {k for k in matched if k < n}
        else:
            indices = self.active(text) if prefilter else range(n)
        for k in sorted(indices):
            category, score, regex = self._patterns[k]
            hits.extend(RuleHit(category, score, m.start(), m.end(), category) for m in regex.finditer(text))
        return hits


_LEET_CHAR = re.compile(r"[013457@$|!]")
_LEET_MAP = str.maketrans("013457@$|!", "oieastasli")
_LEET_IN_WORD = re.compile(
    r"(?<=[^\W\d_])[013457@$|!]+(?=[^\W\d_])|(?<=[^\W\d_])[013457@$]+\b|\b[013457@$](?=[^\W\d_]{2})(?!bet)"
)
_WIDE_SPACE = re.compile(r"\s{2,}")
_SPACED_OUT = re.compile(r"(?<![^\W_])(?:[^\W\d_][ .\-_*+]){2,}[^\W\d_](?![^\W_])")


def undo_disguise(
    text: str, *, leet_possible: bool = True, spaced_possible: bool = True
) -> tuple[str, list[int]] | None:
    """Leetspeak inside words undone ("s3nd" -> "send", 1:1) and spaced-out letters joined
    ("k y s" -> "kys"), with each character's offset in `text`; None when there is neither.
    `*_possible` False = a superset check (`_GATES`) already ruled that kind out."""
    # The cheap character test first: most lines have no digit or symbol at all.
    leet = leet_possible and _LEET_CHAR.search(text) is not None and _LEET_IN_WORD.search(text) is not None
    spaced = spaced_possible and _SPACED_OUT.search(text) is not None
    if not (leet or spaced):
        return None
    if leet:
        text = _LEET_IN_WORD.sub(lambda m: m.group(0).translate(_LEET_MAP), text)
    if not spaced:
        return text, list(range(len(text)))
    keep = [True] * len(text)
    for m in _SPACED_OUT.finditer(text):
        for i in range(m.start() + 1, m.end(), 2):
            keep[i] = False
    for m in _WIDE_SPACE.finditer(text):  # "s e n d  n u d e s": words were two spaces apart
        for i in range(m.start() + 1, m.end()):
            keep[i] = False
    where = [i for i, k in enumerate(keep) if k]
    return "".join(text[i] for i in where), where


def _bare_pattern(pattern: str) -> str:
    """Strip accents from the pattern's non-ASCII letters as the bare view does."""
    return "".join(c if c.isascii() else (strip_accents(c.lower()) or c) for c in pattern)
