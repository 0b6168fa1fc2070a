"""`ChatClassifier`: the `TextClassifier` the chat detectors receive.

Per batch: text views (normalize.py), language (langid.py), word-list hits (lexicon.py) and
pattern hits (rules.py) per message in Python; hashed n-gram scores for the whole batch in numpy
(features.py); then one fused `TextVerdict` per message.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from models.chat.artifact import HEADS, ChatModel
from models.chat.features import NgramHasher
from models.chat.langid import LanguageGuesser
from models.chat.lexicon import LANG_BIT, Lexicon, LexiconHit
from models.chat.normalize import Normalizer, Views
from models.chat.rules import RuleHit, RuleSet
from pipeline.findings import Span
from pipeline.text_model import TextVerdict

CHAT_CATEGORIES = (
    "insult", "hate", "threat", "sexual", "spam", "malicious_link", "personal_info",
    "impersonation", "collusion_talk", "hand_in_play", "criminal",
)  # fmt: skip
RULE_THRESHOLD = 0.6
N_LEX_FEATURES = 5
SEXUAL_STEMS = (
    "sex", "porn", "puss", "dick", "cock", "tit", "boob", "nude", "horny", "cum", "blowjob", "ngentot",
    "ngewe", "kontol", "memek", "pepek", "toket", "lon", "cac", "buoi", "dit", "pina", "punci",
    "csocs", "хуи", "хуй", "пизд", "член", "сиськ", "секс", "порн", "єба", "еба",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Analysis:
    """Everything computed per message before the statistical scores."""

    views: Views
    language: str
    lexicon_hits: tuple[LexiconHit, ...]
    rule_hits: tuple[RuleHit, ...]
    lex_features: tuple[float, ...]


class Analyzer:
    """Views, language, word-list and pattern hits for one message at a time."""

    def __init__(self, *, lexicon: Lexicon, use_lingua: bool = True) -> None:
        self.normalizer = Normalizer()
        self.languages = LanguageGuesser(use_lingua=use_lingua)
        self.lexicon = lexicon
        self.rules = RuleSet()

    def analyze(self, text: object) -> Analysis:
        """Analysis of one message; non-strings are treated as empty (the protocol says str)."""
        views = self.normalizer.views(text if isinstance(text, str) else "")
        language = self.languages.guess(views.plain.text)
        lex_hits = tuple(self.lexicon.find(views.folded))
        rule_hits = tuple(self.rules.find(views.bare.text))
        n_words = max(1, len(views.folded.text.split()))
        return Analysis(views, language, lex_hits, rule_hits, lexicon_features(lex_hits, language, n_words))


def lexicon_features(hits: Sequence[LexiconHit], language: str, n_words: int) -> tuple[float, ...]:
    """Counts of word-list hits in the message's own language and in the others."""
    bit = LANG_BIT.get(language)
    own = sum(1 for h in hits if bit is None or h.langs & bit)
    # Short words of another language's list mostly collide with ordinary words ("wah", "con").
    other = sum(1 for h in hits if bit is not None and not h.langs & bit and h.end - h.start >= 5)
    return (
        float(own > 0),
        math.log1p(own),
        float(other > 0),
        math.log1p(other),
        min(1.0, len(hits) / n_words),
    )


class ChatClassifier:
    """Multi-label, multilingual chat classifier (satisfies `pipeline.text_model.TextClassifier`)."""

    def __init__(self, model: ChatModel, *, use_lingua: bool = True) -> None:
        self.model = model
        self.hasher = NgramHasher(
            n_features=model.n_features, char_range=model.char_range, word_ngrams=model.word_ngrams
        )
        self.bare_hasher = NgramHasher(n_features=model.n_features, char_range=(99, 98), word_ngrams=1)
        self.analyzer = Analyzer(lexicon=Lexicon(model.lexicon), use_lingua=use_lingua)

    def head_probabilities(self, analyses: Sequence[Analysis]) -> NDArray[np.float32]:
        """Calibrated probability per statistical head (rows: messages, columns: HEADS)."""
        if not analyses:
            return np.zeros((0, len(HEADS)), dtype=np.float32)
        folded = [a.views.folded.text for a in analyses]
        lex = np.array([a.lex_features for a in analyses], dtype=np.float32)
        margins = self.hasher.scores(folded, self.model.weights) + lex @ self.model.lex_weights
        margins += self.bare_hasher.scores([a.views.bare.text for a in analyses], self.model.bare_weights)
        margins += self.model.intercepts
        a, b = self.model.platt[:, 0], self.model.platt[:, 1]
        probs: NDArray[np.float32] = (1.0 / (1.0 + np.exp(-(margins * a + b)))).astype(np.float32)
        return probs

    def classify(self, texts: Sequence[str]) -> list[TextVerdict]:
        """One fused verdict per text, same order; never raises on odd text."""
        analyses = [self.analyzer.analyze(t) for t in texts]
        probs = self.head_probabilities(analyses)
        return [self._verdict(a, p) for a, p in zip(analyses, probs, strict=True)]

    def _verdict(self, analysis: Analysis, probs: NDArray[np.float32]) -> TextVerdict:
        head = dict(zip(HEADS, (float(p) for p in probs), strict=True))
        scores = dict.fromkeys(CHAT_CATEGORIES, 0.0)
        scores["insult"] = head["toxic"]
        scores["hate"] = min(head["hate"], head["toxic"])
        scores["spam"] = head["spam"]
        if any(_sexual(analysis.views.folded.text[h.start : h.end]) for h in analysis.lexicon_hits):
            scores["sexual"] = 0.9 * head["toxic"]
        spans: list[Span] = []
        folded = analysis.views.folded
        for lh in analysis.lexicon_hits:
            start, end = folded.origin(lh.start, lh.end)
            label = "sexual" if _sexual(folded.text[lh.start : lh.end]) else "insult"
            spans.append(Span.model_construct(start=start, end=end, label=label))  # valid by construction
        bare = analysis.views.bare
        for rh in analysis.rule_hits:
            scores[rh.category] = max(scores[rh.category], rh.score)
            start, end = bare.origin(rh.start, rh.end)
            spans.append(Span.model_construct(start=start, end=end, label=rh.category))
        thresholds = self.model.thresholds
        flagged = sorted(
            (c for c, s in scores.items() if s >= thresholds.get(c, RULE_THRESHOLD)),
            key=lambda c: -scores[c],
        )
        spans.sort(key=lambda s: (s.start, s.end))
        return TextVerdict(
            scores=scores, spans=tuple(spans), language=analysis.language, flagged=tuple(flagged)
        )


def _sexual(term: str) -> bool:
    return any(stem in term for stem in SEXUAL_STEMS)
