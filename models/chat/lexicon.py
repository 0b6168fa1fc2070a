"""Per-language offensive-word lexicons: read from the shared word lists at TRAINING time and
stored in the artifact; matched on the `folded` view at run time (word n-grams up to 4)."""

from __future__ import annotations

import csv
import json
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from models.chat.langid import LANGUAGES
from models.chat.normalize import Normalizer, View

LANG_BIT = {lang: 1 << i for i, lang in enumerate(LANGUAGES)}
_WORD = re.compile(r"[^\W_]+")
_SQUEEZE = re.compile(r"(.)\1+")
MAX_PHRASE = 4

POKER_SAFE = frozenset(
    # Words the lists hold that are everyday table talk in a poker room (or too mild to count).
    [
        "pot",
        "pots",
        "fish",
        "fishy",
        "crazy",
        "hell",
        "damn",
        "kill",
        "kills",
        "killed",
        "suck",
        "sucks",
        "sucked",
        "balls",
        "ball",
        "nuts",
        "nut",
        "bluff",
        "donk",
        "donkey",
        "shark",
        "whale",
        "rock",
        "tight",
        "loose",
        "hole",
        "river",
        "drugs",
        "drug",
        "gamble",
        "gambling",
        "bet",
        "bets",
        "shot",
        "shots",
        "joint",
        "high",
        "stoned",
        "rake",
        "cock-up",
        "ass-kicking",
        "sex",
        "sexy",
        "kiss",
        "hot",
        "wet",
        "dick-move",
        "alkohol",
        "judi",
        "taruhan",
        "bandar",
        "rokok",
        "mabuk",
        "bir",
        "bia",
        "ruou",
        "danh",
        "bac",
        "co",
        "bac",
        "kártya",
        "szerencse",
        "pia",
    ]
)
"""Authored exclusion list: keeps the word-list features from firing on everyday table talk."""


@dataclass(frozen=True, slots=True)
class LexiconHit:
    """One matched term: view offsets, the languages whose list holds it."""

    start: int
    end: int
    langs: int


class Lexicon:
    """Folded term -> bitmask of languages; a second map holds accent-free forms of accented terms,
    used only for tokens typed without accents (so Vietnamese 'lớn' never matches 'lồn')."""

    def __init__(self, terms: dict[str, int]) -> None:
        self.terms = terms
        self.bare: dict[str, int] = {}
        self.squeezed: dict[str, int] = {}
        for term, mask in terms.items():
            b = _strip(term)
            if b != term:
                self.bare[b] = self.bare.get(b, 0) | mask
            s = _SQUEEZE.sub(r"\1", b)
            if len(s) >= 4:
                self.squeezed[s] = self.squeezed.get(s, 0) | mask

    def find(self, view: View) -> list[LexiconHit]:
        """Longest-first matches of terms on whole words of the view."""
        tokens = [(m.start(), m.end(), m.group(0)) for m in _WORD.finditer(view.text)]
        hits: list[LexiconHit] = []
        i = 0
        while i < len(tokens):
            matched = 0
            for n in range(min(MAX_PHRASE, len(tokens) - i), 0, -1):
                phrase = " ".join(t[2] for t in tokens[i : i + n])
                mask = self._lookup(phrase)
                if mask:
                    hits.append(LexiconHit(tokens[i][0], tokens[i + n - 1][1], mask))
                    matched = n
                    break
            i += matched or 1
        return hits

    def _lookup(self, phrase: str) -> int:
        mask = self.terms.get(phrase, 0)
        if mask or phrase in POKER_SAFE:
            return mask
        if phrase.isascii():
            mask = self.bare.get(phrase, 0)
            if not mask and _SQUEEZE.search(phrase):
                mask = self.squeezed.get(_SQUEEZE.sub(r"\1", phrase), 0)
        return mask


def _strip(text: str) -> str:
    """Accent-free form of a (folded) term."""
    return "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn").replace(
        "đ", "d"
    )


def build_terms(wordlists_dir: Path, *, normalizer: Normalizer) -> dict[str, int]:
    """Read every licensed word list (training time) into folded term -> language bitmask."""
    sources: list[tuple[str, Iterable[str]]] = []
    v2 = wordlists_dir / "ldnoobw_v2"
    for lang, name in [
        ("en", "en"),
        ("hu", "hu"),
        ("id", "id"),
        ("id", "ms"),
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
            folded = " ".join(_WORD.findall(normalizer.views(word).folded.text))
            if len(folded) < 3 or folded in POKER_SAFE or folded.count(" ") >= MAX_PHRASE:
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
