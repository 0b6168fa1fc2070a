"""The simplest chat detector: whole-word matches against a small hand-written banned-word list.

It is the first line of the chat path and a safety net that needs no model; the statistical
classifier adds scores and categories on top of it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.contracts import CHAT, ChatMessage, Event
from pipeline.findings import Finding, Span, stable_id

DEFAULT_TERMS: dict[str, str] = {
    # Written by the team: unambiguous slurs and insults across the room's languages.
    "fuck you": "insult",
    "motherfucker": "insult",
    "cunt": "insult",
    "retard": "insult",
    "faggot": "hate",
    "nigger": "hate",
    "kill yourself": "threat",
    "kys": "threat",
    "anjing": "insult",
    "bangsat": "insult",
    "kontol": "sexual",
    "địt mẹ": "insult",
    "đụ má": "insult",
    "kurva anyád": "insult",
    "baszd meg": "insult",
    "сука": "insult",
    "блядь": "insult",
    "хуй": "sexual",
}


@dataclass(frozen=True, slots=True)
class BannedWordsDetector:
    """Flags a chat message containing a banned term as a whole word (case-insensitive)."""

    terms: tuple[tuple[str, str], ...] = tuple(DEFAULT_TERMS.items())
    name: str = "chat.banned_words"
    topics: frozenset[str] = frozenset({CHAT})

    def key(self, event: Event) -> str:
        """Stateless: keyed by the event itself."""
        return event.event_id

    def process(self, event: Event) -> Sequence[Finding]:
        """One finding per message with at least one banned term, spans on every match."""
        if not isinstance(event, ChatMessage):
            return ()
        text = unicodedata.normalize("NFC", event.text)
        spans, categories = _matches(text, self.terms)
        if not spans:
            return ()
        category = max(set(categories), key=categories.count)
        return (
            Finding(
                finding_id=stable_id("fnd", self.name, event.event_id),
                detector=self.name,
                rule="chat.3",
                family="chat",
                category=category,
                score=1.0,
                players=(event.player_id,),
                ts=event.ts,
                table_id=event.table_id,
                tournament_id=event.tournament_id,
                summary=f"banned term in {event.channel} chat: {text[spans[0].start:spans[0].end]!r}",
                source_event_ids=(event.event_id,),
                spans=tuple(spans),
                evidence={"text": event.text, "channel": event.channel, "nickname": event.nickname},
            ),
        )


def _matches(text: str, terms: tuple[tuple[str, str], ...]) -> tuple[list[Span], list[str]]:
    spans: list[Span] = []
    categories: list[str] = []
    for term, category in terms:
        for m in re.finditer(rf"(?<!\w){re.escape(term)}(?!\w)", text, flags=re.IGNORECASE):
            spans.append(Span(start=m.start(), end=m.end(), label=category))
            categories.append(category)
    spans.sort(key=lambda s: s.start)
    return spans, categories
