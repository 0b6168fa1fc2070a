"""The simplest chat detector: the hand-written abuse lexicon, matched on normalised text.

It is the first line of the chat path and a safety net that needs no model; the statistical
classifier adds scores and categories on top of it. Matching undoes case, accents, leetspeak,
look-alike letters, stretched letters and invisible characters (see `lexicon`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pipeline.categories import CATEGORIES
from pipeline.contracts import CHAT, ChatMessage, Event
from pipeline.detectors.chat.evidence import make_finding, message_evidence
from pipeline.detectors.chat.fusion import fuse
from pipeline.detectors.chat.lexicon import ABUSE_TERMS, Lexicon, compile_lexicon
from pipeline.findings import Finding
from pipeline.text_model import TextClassifier, automatic_evidence

DEFAULT_TERMS: dict[str, str] = ABUSE_TERMS
"""Kept under its old name: the terms this detector matches by default."""


@dataclass(frozen=True, slots=True)
class BannedWordsDetector:
    """Flags a chat message containing a banned term as a whole word.

    The category is the message's fused one (`fusion.fuse`): with a classifier wired in, a line
    whose banned word is an insult but which is hateful or threatening as a whole is reported
    under that rule, the same one `chat.classifier` reports it under.
    """

    lexicon: Lexicon = field(default_factory=compile_lexicon)
    classifier: TextClassifier | None = None
    name: str = "chat.banned_words"
    topics: frozenset[str] = frozenset({CHAT})

    def key(self, event: Event) -> str:
        """Stateless: keyed by the event itself."""
        return event.event_id

    def process(self, event: Event) -> Sequence[Finding]:
        """One finding per message with at least one banned term, spans on every match."""
        if not isinstance(event, ChatMessage):
            return ()
        spans = self.lexicon.find(event.text)
        if not spans:
            return ()
        verdict = self.classifier.classify([event.text])[0] if self.classifier is not None else None
        fused = fuse(verdict, spans, hand_running=event.hand_id is not None, text=event.text)
        if fused is None:
            return ()
        if verdict is not None and verdict.automatic is not None and fused.category not in verdict.flagged:
            # A classifier with operating points has the last word: its review point is tuned on
            # independent chat, where a listed word is mostly swearing at the cards or at oneself
            # ("anjing river", "hülye voltam"), which the house rules allow (dev set, 1 Dec).
            return ()
        category = fused.category
        # A banned word is certain evidence of its house rule: when the fused category only
        # refines it under the same rule (a slur read as hate rather than insult, both chat.3),
        # the certainty stays; a category under another rule keeps the model's score.
        score = 1.0 if any(_same_rule(s.label, category) for s in spans) else fused.score
        first = event.text[spans[0].start : spans[0].end]
        spans = sorted({*spans, *(s for s in fused.spans if s.end <= len(event.text))}, key=lambda s: (s.start, s.end, s.label))
        return (
            make_finding(
                detector=self.name,
                category=category,
                score=score,
                players=(event.player_id,),
                ts=event.ts,
                summary=f"banned term in {event.channel} chat: {first!r} ({category})",
                id_parts=(event.event_id,),
                source_event_ids=(event.event_id,),
                spans=spans,
                # With a classifier that states operating points, the word alone does not act
                # automatically: on independent chat most wrong mutes were listed words in
                # friendly or self-aimed lines (dev set, 1 Dec).
                evidence={"messages": [message_evidence(event, spans)], **automatic_evidence(verdict, category)},
                table_id=event.table_id,
                tournament_id=event.tournament_id,
            ),
        )


def _same_rule(label: str, category: str) -> bool:
    """True when a lexicon label and a fused category cite the same house rule."""
    if label == category:
        return True
    known = CATEGORIES.get(label), CATEGORIES.get(category)
    return known[0] is not None and known[1] is not None and known[0][1] == known[1][1]
