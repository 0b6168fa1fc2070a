"""Per-language offensive-word lexicons: read from the shared word lists at TRAINING time and
stored in the artifact; matched on the `folded` view at run time (word n-grams up to 4)."""

from __future__ import annotations

import csv
import json
import re
import unicodedata
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from itertools import pairwise
from pathlib import Path
from typing import NamedTuple

from models.chat.exclusions import EVERYDAY, POKER_SAFE
from models.chat.langid import LANGUAGES
from models.chat.normalize import Normalizer, View
from models.chat.tokens import alnum_words

LANG_BIT = {lang: 1 << i for i, lang in enumerate(LANGUAGES)}
_SQUEEZE = re.compile(r"(.)\1+")
_DOUBLE = re.compile(r"(.)\1")
_REPEATED_LETTER = re.compile(r"(?<=([^\W_]))\1")
"""A letter equal to the one before it: deleting these squeezes runs with a plain-string
replacement (a group template is expanded in Python per match on 3.11)."""
_MEMO_WORDS = 100_000
_MEMO_WORD_CHARS = 40
"""Bounds of the squeezed-word memo: distinct words kept, and the longest word kept."""
MAX_PHRASE = 4
_SUFFIXES = (
    "nya",
    "lah",
    "kah",
    "mu",
    "ku",
    "in",
    "an",
    "ok",
    "ek",
    "ak",
    "ot",
    "et",
    "at",
    "t",
    "ja",
    "je",
    "s",
)


class LexiconHit(NamedTuple):
    """One matched term: view offsets, the languages whose list holds it."""

    start: int
    end: int
    langs: int


class Lexicon:
    """Folded term -> bitmask of languages, split for speed into single words (with accent-free
    forms of accented words, used only by tokens typed without accents, so Vietnamese 'lớn' never
    matches 'lồn'; and id/hu inflections the lists lack) and phrases (keyed by first word)."""

    def __init__(self, terms: dict[str, int]) -> None:
        self.terms = terms
        self.words: dict[str, int] = {}
        self.phrases: dict[str, int] = {}
        self.first: dict[str, int] = {}
        """First word of a phrase -> its longest phrase length in words."""
        self.squeezed: dict[str, int] = {}
        # One translate table for every character the terms use: fast enough to build at load.
        chars = {c for term in terms for c in term if not c.isascii()}
        table = str.maketrans({c: _strip(c) for c in chars})
        inflected = LANG_BIT["id"] | LANG_BIT["hu"]
        for term, mask in terms.items():
            bare = term if term.isascii() else term.translate(table)
            # Accent-free single short syllables are too ambiguous (Vietnamese 'lon' vs 'lớn').
            forms = [term, bare] if bare != term and (" " in bare or len(bare) >= 5) else [term]
            if " " not in term and mask & inflected and len(term) >= 4:
                forms += [term + suffix for suffix in _SUFFIXES]
            for form in forms:
                if " " in form:
                    self.phrases[form] = self.phrases.get(form, 0) | mask
                    head, n = form.split(" ", 1)[0], form.count(" ") + 1
                    self.first[head] = max(self.first.get(head, 0), n)
                else:
                    self.words[form] = self.words.get(form, 0) | mask
            squeezed = _SQUEEZE.sub(r"\1", bare) if _DOUBLE.search(bare) else bare
            if len(squeezed) >= 4 and " " not in squeezed:
                self.squeezed[squeezed] = self.squeezed.get(squeezed, 0) | mask
        for word in POKER_SAFE | EVERYDAY:
            self.words.pop(word, None)
            self.phrases.pop(word, None)
            self.squeezed.pop(word, None)
        self.pairs = frozenset(tuple(phrase.split(" ", 2)[:2]) for phrase in self.phrases)
        """First two words of every phrase, as (word, word): a phrase can only match where its
        first pair stands. Tuples, not joined strings: `zip` builds them in C and their words'
        hashes are cached, where a join made and hashed a new string per pair (~2x, measured)."""
        self._squeeze_memo: dict[str, str] = {}
        """Word -> its listed squeezed form, or '' (`_squeezed`)."""
        self._unsqueezable: set[str] = set()
        """The memo's words whose answer is '' (nearly all): one `issuperset` in C answers a
        line whose words were all seen before, where a look-up per word built a list (~2 us)."""
        self._starts = frozenset(self.words.keys() | self.first.keys())
        """Words a match can start at: listed words and first words of listed phrases."""

    def clear_memo(self) -> None:
        """Forget the squeezed forms of words seen so far (`_squeezed`)."""
        self._squeeze_memo.clear()
        self._unsqueezable.clear()

    def find(self, view: View) -> list[LexiconHit]:
        """Longest-first matches of terms on whole words of the view."""
        text = view.text
        tokens = alnum_words(text)
        # Squeezing runs of a letter never merges or splits words, so only words holding a
        # double letter are squeezed, and only those whose squeezed form is listed matter.
        # `_DOUBLE` (any doubled character, ~0.4 us) rules most texts out before that pass.
        squeezed = self._squeezed(tokens) if _DOUBLE.search(text) else {}
        # Listed words and first words of listed phrases among the tokens, in C.
        heads = self._starts.intersection(tokens)
        # A message without a listed word, the first word PAIR of a listed phrase or a listed
        # squeezed word has no hit: decided in C for most messages. (A phrase's first word
        # alone, e.g. "di", "the", sent half the messages down the loop below for nothing.)
        if squeezed:
            heads |= squeezed.keys()
        elif not heads or (self.words.keys().isdisjoint(heads) and not self._has_pair(tokens)):
            return []
        found = self._matches(tokens, heads, squeezed)
        if not found:
            return []
        last, n, _ = found[-1]
        starts = _offsets(text, tokens, last + n)
        return [
            LexiconHit(starts[i], starts[i + n - 1] + len(tokens[i + n - 1]), mask) for i, n, mask in found
        ]

    def _matches(
        self, tokens: list[str], heads: AbstractSet[str], squeezed: dict[str, str]
    ) -> list[tuple[int, int, int]]:
        """(first token, tokens consumed, mask) of each longest term, left to right; only tokens
        in `heads` can start one."""
        first, phrases, words = self.first.get, self.phrases.get, self.words.get
        found: list[tuple[int, int, int]] = []
        end = 0
        for i, token in enumerate(tokens):
            if i < end or token not in heads:
                continue  # inside a phrase already matched, or nothing listed starts here
            n, mask = 1, 0
            for k in range(min(first(token, 0), len(tokens) - i), 1, -1):
                mask = phrases(" ".join(tokens[i : i + k]), 0)
                if mask:
                    n = k
                    break
            if not mask:
                mask = words(token, 0)
                if not mask and token in squeezed:
                    mask = self.squeezed[squeezed[token]]
            if mask:
                found.append((i, n, mask))
                end = i + n
        return found

    def _squeezed(self, tokens: list[str]) -> dict[str, str]:
        """Word -> its squeezed form, for the words holding a doubled letter whose squeezed form
        is listed. Each word's answer ('' for none) is memoised: chat repeats its words, and a
        dict look-up per word in C replaces a regex pass per line (~6 us where a line holds a
        doubled character, measured)."""
        if self._unsqueezable.issuperset(tokens):
            return {}
        memo = self._squeeze_memo
        forms = list(map(memo.get, tokens))
        if None in forms:
            if len(memo) > _MEMO_WORDS:
                self.clear_memo()  # cheap, and the common words come straight back
            for i, word in enumerate(tokens):
                if forms[i] is None:
                    short = _REPEATED_LETTER.sub("", word) if _DOUBLE.search(word) else word
                    forms[i] = form = short if short != word and short in self.squeezed else ""
                    if len(word) <= _MEMO_WORD_CHARS:
                        memo[word] = form
                        if not form:
                            self._unsqueezable.add(word)
        if not any(forms):
            return {}
        return {word: form for word, form in zip(tokens, forms, strict=True) if form}  # type: ignore[misc]

    def _has_pair(self, tokens: list[str]) -> bool:
        """Whether some two adjacent tokens are the first two words of a listed phrase (called
        when some token is a phrase's first word)."""
        return len(tokens) >= 2 and not self.pairs.isdisjoint(pairwise(tokens))


def _offsets(text: str, tokens: list[str], upto: int) -> list[int]:
    """Start offsets of tokens[:upto] in text: only non-word characters lie between two words,
    so each word's next occurrence is the word itself (3x cheaper than Match.span per word)."""
    out: list[int] = []
    pos = 0
    for token in tokens[:upto]:
        pos = text.find(token, pos)
        out.append(pos)
        pos += len(token)
    return out


def _strip(text: str) -> str:
    """Accent-free form of a (folded) term."""
    return "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn").replace(
        "đ", "d"
    )


def build_terms(wordlists_dir: Path, *, normalizer: Normalizer) -> dict[str, int]:
    """Read every licensed word list (training time) into folded term -> language bitmask."""
    sources: list[tuple[str, Iterable[str]]] = []
    v2 = wordlists_dir / "ldnoobw_v2"
    # The Malay list is left out: its slang collides with everyday Indonesian ("butuh" = "need").
    for lang, name in [
        ("en", "en"),
        ("hu", "hu"),
        ("id", "id"),
        ("ru", "ru"),
        ("uk", "uk"),
        ("vi", "vi"),
    ]:
        sources.append((lang, _lines(v2 / f"{name}.txt")))
    for lang in ("en", "hu", "ru"):
        sources.append((lang, _lines(wordlists_dir / "ldnoobw_v1" / f"{lang}.txt")))
    for lang in ("uk", "ru"):
        sources.append((lang, _slaviclean(wordlists_dir / "slaviclean" / f"{lang}.csv")))
    glin = wordlists_dir / "glin_profanity" / "hungarian.json"
    if glin.exists():
        sources.append(("hu", json.loads(glin.read_text(encoding="utf-8")).get("words", [])))
    terms: dict[str, int] = {}
    for lang, words in sources:
        for word in words:
            folded = " ".join(alnum_words(normalizer.views(word).folded.text))
            if (
                len(folded) < 3
                or folded in POKER_SAFE
                or folded in EVERYDAY
                or folded.count(" ") >= MAX_PHRASE
            ):
                continue
            terms[folded] = terms.get(folded, 0) | LANG_BIT[lang]
    return terms


def _lines(path: Path) -> list[str]:
    if not path.exists():
        return []
    return [w.strip() for w in path.read_text(encoding="utf-8").splitlines() if w.strip()]


def _slaviclean(path: Path) -> list[str]:
    if not path.exists():
        return []
    with path.open(encoding="utf-8", newline="") as fh:
        return [row["flexion"] for row in csv.DictReader(fh) if row.get("flexion")]
