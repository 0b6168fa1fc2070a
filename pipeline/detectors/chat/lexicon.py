"""Hand-written multilingual lexicon of abusive terms, matched on folded text with spans.

Terms are written plainly; matching folds case, accents, leetspeak and look-alike letters and
accepts stretched letters ("iiidiot") and separators inside multi-word terms ("f u c k  y o u").
The list is deliberately short and unambiguous: the classifier covers the long tail.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pipeline.detectors.chat.text import fold, fold_mapped
from pipeline.findings import Span

ABUSE_TERMS: dict[str, str] = {
    # en
    "fuck you": "insult", "fuck off": "insult", "motherfucker": "insult", "cunt": "insult",
    "retard": "insult", "idiot": "insult", "moron": "insult", "asshole": "insult",
    "bitch": "insult", "loser": "insult", "dickhead": "insult", "scumbag": "insult",
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


@dataclass(frozen=True, slots=True)
class Lexicon:
    """A compiled term list: `find` returns spans (on the original text) labelled by category."""

    pattern: re.Pattern[str]
    categories: Mapping[str, str]

    def find(self, text: str) -> list[Span]:
        """Every match as a span on `text` labelled with its category, left to right."""
        folded, where = fold_mapped(text)
        spans: list[Span] = []
        for match in self.pattern.finditer(folded):
            label = self.categories.get(match.lastgroup or "", "insult")
            spans.append(Span(start=where[match.start()], end=where[match.end() - 1] + 1, label=label))
        return spans


def compile_lexicon(terms: Mapping[str, str] | Iterable[tuple[str, str]] = ABUSE_TERMS) -> Lexicon:
    """Compile terms into one alternation; longest terms first so phrases beat their words."""
    pairs = sorted(dict(terms).items(), key=lambda kv: -len(kv[0]))
    groups: list[str] = []
    categories: dict[str, str] = {}
    for i, (term, category) in enumerate(pairs):
        groups.append(f"(?P<t{i}>{_term_regex(term)})")
        categories[f"t{i}"] = category
    body = "|".join(groups) or r"(?!x)x"
    # Letter boundaries, not \b: digits were folded to letters and must not glue words together.
    return Lexicon(re.compile(rf"(?<![^\W\d_])(?:{body})(?![^\W\d_])"), categories)


def _term_regex(term: str) -> str:
    words = []
    for word in fold(term).split():
        # One optional separator between letters catches "f.u.c.k" and "F U C K" but not prose.
        words.append(r"[\s._*\-]?".join(f"{re.escape(c)}+" for c in word))
    return r"[\W_]*".join(words)
