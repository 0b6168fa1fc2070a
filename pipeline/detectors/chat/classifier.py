"""`chat.classifier`: the trained multilingual text classifier applied to every chat message."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pipeline.categories import CATEGORIES
from pipeline.contracts import CHAT, ChatMessage, Event
from pipeline.detectors.chat.evidence import make_finding, message_evidence
from pipeline.detectors.chat.fusion import Fused, fuse
from pipeline.detectors.chat.lexicon import Lexicon, compile_lexicon
from pipeline.detectors.chat.state import BoundedMap
from pipeline.findings import Finding
from pipeline.text_model import TextClassifier, TextVerdict, automatic_evidence


def chat_category(verdict: TextVerdict, *, among: frozenset[str] | None = None) -> tuple[str, float] | None:
    """Strongest flagged chat category (optionally only `among` some), and its score."""
    for category in verdict.flagged:
        known = CATEGORIES.get(category)
        if known is not None and known[0] == "chat" and (among is None or category in among):
            return category, verdict.scores.get(category, 0.0)
    return None


TWO_PARTY = frozenset({"collusion_talk"})
"""Categories whose private line makes its recipient a party: collusion takes two (the other
forms of a partner, @mentions and answers, need the place's state: `chat.collusion_parties`)."""


def partner_of(message: ChatMessage, category: str) -> tuple[str, ...]:
    """The recipient of a private line of a two-party category, else nobody."""
    recipient = message.recipient_id
    if category in TWO_PARTY and recipient is not None and recipient != message.player_id:
        return (recipient,)
    return ()


NOT_WITHOUT_HAND = frozenset(c for c, (family, _) in CATEGORIES.items() if family == "chat") - {
    "hand_in_play"
}
"""Categories a message may get when no hand is running: talk about a finished hand is allowed."""


@dataclass(frozen=True, slots=True)
class ClassifierDetector:
    """One finding per message the classifier flags, in the category `fusion.fuse` gives it.

    The banned-word lexicon takes part in choosing the category (so this detector and
    `chat.banned_words` never disagree on a message), but a category only the word list supports
    is left to `chat.banned_words`.
    """

    classifier: TextClassifier
    lexicon: Lexicon = field(default_factory=compile_lexicon)
    name: str = "chat.classifier"
    topics: frozenset[str] = frozenset({CHAT})

    def key(self, event: Event) -> str:
        """Stateless: keyed by the event itself."""
        return event.event_id

    def process(self, event: Event) -> Sequence[Finding]:
        """Classify one message."""
        if not isinstance(event, ChatMessage):
            return ()
        verdict = self.classifier.classify([event.text])[0]
        if not verdict.flagged:
            return ()  # most messages (see `process_batch`)
        found = self._judge(event, verdict)
        return () if found is None else (found,)

    def prefetch(self, events: Sequence[Event]) -> None:
        """Classify a whole poll batch in one model call, so per-event `process` finds it cached.

        The streaming runtime handles records one at a time; the model is ~20x faster per text in
        batches. Only useful when `classifier` caches (the one `build_chat_detectors` passes does).
        """
        texts = [e.text for e in events if isinstance(e, ChatMessage)]
        if texts:
            self.classifier.classify(texts)

    def process_batch(self, messages: Sequence[ChatMessage]) -> list[Finding]:
        """Classify many messages in one model call (the model is much faster per text in batches)."""
        if not messages:
            return []
        verdicts = self.classifier.classify([m.text for m in messages])
        out: list[Finding] = []
        for message, verdict in zip(messages, verdicts, strict=True):
            if not verdict.flagged:
                continue  # only a category the model flagged is this detector's (`from_model` below)
            found = self._judge(message, verdict)
            if found is not None:
                out.append(found)
        return out

    def _judge(self, message: ChatMessage, verdict: TextVerdict) -> Finding | None:
        words = self.lexicon.find(message.text)
        fused = fuse(verdict, words, hand_running=message.hand_id is not None, text=message.text)
        if fused is None or not fused.from_model:
            return None
        return self._finding(message, verdict, fused)

    def _finding(self, message: ChatMessage, verdict: TextVerdict, fused: Fused) -> Finding:
        spans = tuple(s for s in fused.spans if s.end <= len(message.text))
        category, score = fused.category, fused.score
        return make_finding(
            detector=self.name,
            category=category,
            score=score,
            players=(message.player_id, *partner_of(message, category)),
            ts=message.ts,
            summary=f"classifier: {category} ({score:.2f}, {verdict.language}) in {message.channel} chat",
            id_parts=(message.event_id,),
            source_event_ids=(message.event_id,),
            spans=spans,
            evidence={
                "messages": [message_evidence(message, spans)],
                "scores": {k: round(v, 4) for k, v in verdict.scores.items()},
                "language": verdict.language,
                **automatic_evidence(verdict, category),
            },
            table_id=message.table_id,
            tournament_id=message.tournament_id,
        )


class CachedClassifier:
    """A `TextClassifier` that remembers recent verdicts, so detectors sharing it classify once.

    Several detectors look at the same message (classifier, harassment, nickname); the model is
    the expensive part, and its verdict for a text never changes within a process.
    """

    def __init__(self, inner: TextClassifier, *, max_texts: int = 16_384) -> None:
        # Sized like the lexicon's memo: the place-keyed detectors (harassment, collusion parties)
        # ask about a line `lateness` (30 s, thousands of lines) after the per-player ones did.
        # With 4,096 the bench's traffic reached the model with 22,952 lines, with this 17,059.
        self._inner = inner
        self._seen: BoundedMap[str, TextVerdict] = BoundedMap(max_keys=max_texts)

    def classify(self, texts: Sequence[str]) -> list[TextVerdict]:
        """Verdicts in order; only texts not seen recently reach the model, in one batch."""
        if len(texts) == 1:
            # What the detectors ask per message: one lookup, no batch bookkeeping.
            text = texts[0]
            verdict = self._seen.recent(text)
            if verdict is None:
                verdict = self._inner.classify([text])[0]
                self._seen.put(text, verdict)
            return [verdict]
        known = {t: v for t in dict.fromkeys(texts) if (v := self._seen.get(t)) is not None}
        missing = [t for t in dict.fromkeys(texts) if t not in known]
        if missing:
            known.update(zip(missing, self._inner.classify(missing), strict=True))
        for text in known:
            self._seen.put(text, known[text])  # a hit counts as recent use
        return [known[t] for t in texts]
