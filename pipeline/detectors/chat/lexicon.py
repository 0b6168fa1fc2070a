"""Hand-written multilingual lexicon of abusive terms, matched on folded text with spans.

Terms are written plainly; matching folds case, accents, leetspeak and look-alike letters and
accepts stretched letters ("iiidiot") and separators inside multi-word terms ("f u c k  y o u").
The list is deliberately short and unambiguous: the classifier covers the long tail.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from pipeline.detectors.chat.state import BoundedMap
from pipeline.detectors.chat.text import MEMO_TEXTS, fold_mapped, unmix
from pipeline.findings import Span

ABUSE_TERMS: dict[str, str] = {
    # en
    "fuck you": "insult", "fuck off": "insult", "motherfucker": "insult", "cunt": "insult",
    "retard": "insult", "idiot": "insult", "moron": "insult", "asshole": "insult",
    "bitch": "insult", "dickhead": "insult", "scumbag": "insult",
    "faggot": "hate", "nigger": "hate", "kill yourself": "threat", "kys": "threat",
    "i will find you": "threat", "gonna kill you": "threat", "go die": "threat",
    "suck my dick": "sexual", "send nudes": "sexual", "nigga": "hate", "heil hitler": "hate",
    "blyat": "insult", "suka blyat": "insult",
    # id
    "anjing": "insult", "bangsat": "insult", "bajingan": "insult", "goblok": "insult",
    "tolol": "insult", "bego": "insult", "kampret": "insult", "kontol": "sexual",
    "memek": "sexual", "ngentot": "sexual", "mati aja": "threat", "bunuh lu": "threat",
    "foto bugil": "sexual",
    # vi
    "địt mẹ": "insult", "đụ má": "insult", "dcm": "insult",
    "óc chó": "insult", "thằng ngu": "insult", "đồ ngu": "insult",
    "đồ khốn": "insult", "chết đi": "threat", "mày chết": "threat", "giết mày": "threat",
    "địt em": "sexual", "địt mày": "insult", "bú cu": "sexual",
    # hu
    "kurva anyád": "insult", "baszd meg": "insult", "bazdmeg": "insult", "geci": "insult",
    "hülye": "insult", "idióta": "insult", "barom": "insult", "buzi": "hate",
    "dögölj meg": "threat", "megöllek": "threat", "faszom": "sexual", "szopd le": "sexual",
    # uk
    "сука": "insult", "блядь": "insult", "блять": "insult", "хуй": "sexual", "дебіл": "insult",
    "ідіот": "insult", "мудак": "insult", "підор": "hate", "здохни": "threat", "вб'ю": "threat",
    # ru
    "дебил": "insult", "идиот": "insult", "придурок": "insult", "урод": "insult",
    "пидор": "hate", "пидорас": "hate", "сдохни": "threat", "убью": "threat", "тварь": "insult",
    "трахнути": "sexual", "трахнуть": "sexual", "хуйло": "insult",
}
"""Term -> category; all categories are in `pipeline.categories.CATEGORIES`."""

HOSTILE_TERMS: dict[str, str] = {
    # Not banned words: phrases that are hostile when aimed at someone. Only the harassment
    # detector uses them, as evidence that a line addressed to a player is negative.
    "worst player": "harassment", "nobody likes you": "harassment", "leave the table": "harassment",
    "get out": "harassment", "go away": "harassment", "just quit": "harassment", "uninstall": "harassment",
    "follow you": "harassment", "you suck": "harassment", "trash player": "harassment", "shut up": "harassment",
    "clown": "harassment", "donkey": "harassment", "loser": "harassment", "stupid": "harassment", "pathetic": "harassment",
    "pemain terburuk": "harassment", "gak ada yang suka": "harassment", "pergi sana": "harassment",
    "pergi dari sini": "harassment", "berhenti aja": "harassment", "pecundang": "harassment",
    "sampah": "harassment", "badut": "harassment", "diam lu": "harassment", "bodoh": "harassment",
    "chơi tệ nhất": "harassment", "không ai ưa": "harassment", "biến đi": "harassment",
    "biến khỏi": "harassment", "cút": "harassment", "nghỉ đi": "harassment", "đồ thua cuộc": "harassment",
    "im đi": "harassment", "đồ rác": "harassment",
    "legrosszabb játékos": "harassment", "senki sem bír": "harassment", "menj el": "harassment",
    "tűnj el": "harassment", "hagyd abba": "harassment", "vesztes": "harassment", "kuss": "harassment",
    "bohóc": "harassment", "szánalmas": "harassment",
    "найгірший гравець": "harassment", "тебе ніхто не любить": "harassment", "йди з": "harassment",
    "забирайся": "harassment", "невдаха": "harassment", "клоун": "harassment", "заткнись": "harassment",
    "ходитиму за тобою": "harassment", "жалюгідний": "harassment",
    "худший игрок": "harassment", "тебя никто не любит": "harassment", "уходи": "harassment",
    "вали отсюда": "harassment", "неудачник": "harassment", "заткнись уже": "harassment",
    "жалкий": "harassment",
}


_TOKEN = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")
_SPACED = re.compile(r"(?<![^\W\d_])[^\W\d_](?:[\s._*\-][^\W\d_]){2,}(?![^\W\d_])")
_SEPARATOR = re.compile(r"[\s._*\-]")
_REPEAT = re.compile(r"(.)\1+")
_STRETCHED = re.compile(r"([^\W\d_])\1\1")
_MIXED = re.compile(r"[a-z][^\W\d_a-z]*[\u0400-\u04ff]|[\u0400-\u04ff][^\W\d_]*[a-z]")
_UNPLAIN = re.compile(f"{_STRETCHED.pattern}|{_SPACED.pattern}")
"""`_STRETCHED` or `_SPACED` in one pass (most lines have neither); `_STRETCHED`'s group stays 1."""


def squeeze(word: str) -> str:
    """Collapse repeated letters ("iiidiooot" -> "idiot"); terms are indexed squeezed too."""
    return _REPEAT.sub(r"\1", word) if _REPEAT.search(word) else word


def _normal(word: str) -> str:
    # Natural double letters ("good", "asshole") stay; a stretch of three or more is squeezed.
    word = unmix(word)
    return squeeze(word) if _STRETCHED.search(word) else word


@dataclass(frozen=True, slots=True)
class Lexicon:
    """A compiled term list: `find` returns spans (on the original text) labelled by category.

    Matching is by word tokens of the folded text (a set lookup per message in the common case,
    not a regex with one branch per term), so its cost does not grow with the number of terms.
    """

    index: Mapping[str, tuple[tuple[tuple[str, ...], str], ...]]
    # Several detectors ask about the same message; the answer for a text never changes. Sized
    # for the place-keyed detectors, which see a line `lateness` (30 s) after the others do: at
    # a few hundred lines a second that is thousands of lines later. Tuples, not lists: the
    # garbage collector stops tracking them (most are the empty one), so a big memo costs no GC time.
    _recent: BoundedMap[str, tuple[Span, ...]] = field(default_factory=lambda: BoundedMap(max_keys=MEMO_TEXTS))

    def find(self, text: str) -> list[Span]:
        """Every match as a span on `text` labelled with its category, left to right."""
        known = self._recent.recent(text)
        if known is None:
            known = tuple(self._find(text))
            self._recent.put(text, known)
        return list(known)

    def scan(self, text: str) -> list[Span]:
        """`find` without the memo, for a text looked up once (a nickname, when first seen): the
        memo is sized for chat lines several detectors share, and names would only push them out."""
        return self._find(text)

    def _find(self, text: str) -> list[Span]:
        folded, where = fold_mapped(text)
        mixed = not folded.isascii() and _MIXED.search(folded)  # mixing needs a Cyrillic letter
        plain = not (mixed or _UNPLAIN.search(folded))
        if plain and self.index.keys().isdisjoint(_TOKEN.findall(folded)):
            return []
        tokens = _tokens(folded)
        spans: list[Span] = []
        i = 0
        while i < len(tokens):
            matched = 0
            for words, category in self.index.get(tokens[i][2], ()):
                if tuple(t[2] for t in tokens[i : i + len(words)]) == words:
                    start, end = tokens[i][0], tokens[i + len(words) - 1][1]
                    spans.append(Span(start=where[start], end=where[end - 1] + 1, label=category))
                    matched = len(words)
                    break
            i += max(1, matched)
        return spans


def _tokens(folded: str) -> list[tuple[int, int, str]]:
    """(start, end, word) letter runs; a run of single letters with separators ("f.u.c.k") is one."""
    spaced = [(m.start(), m.end(), _normal(_SEPARATOR.sub("", m.group()))) for m in _SPACED.finditer(folded)]
    tokens = list(spaced)
    for m in _TOKEN.finditer(folded):
        if not any(a <= m.start() < b for a, b, _ in spaced):
            tokens.append((m.start(), m.end(), _normal(m.group())))
    return sorted(tokens)


def compile_lexicon(terms: Mapping[str, str] | Iterable[tuple[str, str]] = ABUSE_TERMS) -> Lexicon:
    """Index terms by their first folded word, as written and squeezed; longest phrases first."""
    index: dict[str, set[tuple[tuple[str, ...], str]]] = {}
    for term, category in dict(terms).items():
        words = tuple(_normal(t[2]) for t in _tokens(fold_mapped(term)[0]))
        for variant in {words, tuple(squeeze(w) for w in words)}:
            if variant:
                index.setdefault(variant[0], set()).add((variant, category))
    return Lexicon({k: tuple(sorted(v, key=lambda e: (-len(e[0]), e))) for k, v in index.items()})
