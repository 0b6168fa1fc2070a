"""Small deterministic detectors for runtime tests: one stateless, one keyed by a different key
than the producer's (so it must be re-keyed), one that always raises."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pipeline.contracts import CHAT, ChatMessage, Event
from pipeline.findings import Finding, stable_id


def chat_finding(detector: str, event: ChatMessage, *, finding_id: str, category: str = "insult") -> Finding:
    """A chat finding about the event's sender."""
    return Finding(
        finding_id=finding_id,
        detector=detector,
        rule="chat.3",
        family="chat",
        category=category,
        score=0.5,
        players=(event.player_id,),
        ts=event.ts,
        table_id=event.table_id,
        summary=f"{detector} on {event.event_id}",
        source_event_ids=(event.event_id,),
    )


@dataclass(frozen=True)
class WordDetector:
    """Stateless: flags a chat message containing `word`."""

    word: str = "kys"
    name: str = "test.word"
    topics: frozenset[str] = frozenset({CHAT})

    def key(self, event: Event) -> str:
        return event.event_id

    def process(self, event: Event) -> Sequence[Finding]:
        if isinstance(event, ChatMessage) and self.word in event.text.split():
            return (chat_finding(self.name, event, finding_id=stable_id("fnd", self.name, event.event_id)),)
        return ()


@dataclass
class BurstDetector:
    """Stateful per table (the producer keys chat by player): every `every`-th table message flags."""

    every: int = 3
    name: str = "test.burst"
    topics: frozenset[str] = frozenset({CHAT})
    counts: dict[str, int] = field(default_factory=dict)

    def key(self, event: Event) -> str:
        if isinstance(event, ChatMessage) and event.table_id is not None:
            return event.table_id
        return event.event_id

    def process(self, event: Event) -> Sequence[Finding]:
        if not isinstance(event, ChatMessage) or event.table_id is None:
            return ()
        n = self.counts[event.table_id] = self.counts.get(event.table_id, 0) + 1
        if n % self.every:
            return ()
        fid = stable_id("fnd", self.name, event.table_id, n // self.every)
        return (chat_finding(self.name, event, finding_id=fid, category="spam"),)


@dataclass(frozen=True)
class ExplodingDetector:
    """Raises on every message whose text contains `boom`; ignores the rest."""

    name: str = "test.exploding"
    topics: frozenset[str] = frozenset({CHAT})

    def key(self, event: Event) -> str:
        return event.event_id

    def process(self, event: Event) -> Sequence[Finding]:
        if isinstance(event, ChatMessage) and "boom" in event.text:
            raise RuntimeError("detector bug")
        return ()


@dataclass
class TalkativeDetector:
    """Stateful per player (the producer's key, still routed): every `every`-th message flags."""

    every: int = 4
    name: str = "test.talkative"
    topics: frozenset[str] = frozenset({CHAT})
    counts: dict[str, int] = field(default_factory=dict)

    def key(self, event: Event) -> str:
        return event.player_id if isinstance(event, ChatMessage) else event.event_id

    def process(self, event: Event) -> Sequence[Finding]:
        if not isinstance(event, ChatMessage):
            return ()
        n = self.counts[event.player_id] = self.counts.get(event.player_id, 0) + 1
        if n % self.every:
            return ()
        fid = stable_id("fnd", self.name, event.player_id, n // self.every)
        return (chat_finding(self.name, event, finding_id=fid, category="flooding"),)
