"""`chat.harassment`: one player aiming hostile lines at the same other player across messages.

Table etiquette: intimidation or harassment is not tolerated. A single insult is the lexicon's and
the classifier's business; this detector wants a pattern: several hostile lines from one sender
to one target (private messages, or naming the target's nickname at a table) within a window.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta

from pipeline.contracts import CHAT, ChatMessage
from pipeline.detectors.chat.classifier import chat_category
from pipeline.detectors.chat.evidence import make_finding, message_evidence, place_of
from pipeline.detectors.chat.lexicon import ABUSE_TERMS, HOSTILE_TERMS, Lexicon, compile_lexicon
from pipeline.detectors.chat.order import DEFAULT_LATENESS, PlaceOrdered, SharedOrder
from pipeline.detectors.chat.state import BoundedMap, Window
from pipeline.detectors.chat.text import fold
from pipeline.findings import Finding, Span
from pipeline.text_model import TextClassifier

HOSTILE = frozenset({"insult", "hate", "threat", "sexual", "harassment", "defamation"})
_WORD = re.compile(r"[\w@.\-]+", re.UNICODE)
UNKNOWN = "@"
"""Prefix of a target known only by an @mention of a nickname nobody used at this place yet."""


@dataclass(frozen=True, slots=True)
class _Hit:
    message: ChatMessage
    target: str
    spans: tuple[Span, ...]
    score: float


@dataclass(slots=True)
class _Place:
    nicknames: BoundedMap[str, str]
    hits: Window[_Hit]
    reported: BoundedMap[str, str]


@dataclass(slots=True)
class HarassmentDetector(PlaceOrdered):
    """Per place: hostile messages from one sender to one target; fires at `min_messages`."""

    classifier: TextClassifier | None = None
    lexicon: Lexicon = field(default_factory=lambda: compile_lexicon({**ABUSE_TERMS, **HOSTILE_TERMS}))
    min_messages: int = 3
    window: timedelta = timedelta(minutes=10)
    min_classifier_score: float = 0.5
    max_keys: int = 50_000
    lateness: timedelta = DEFAULT_LATENESS
    """Messages up to this far behind the newest are put back in event-time order (see `order`)."""
    hold: timedelta | None = None
    """How far a lagging input partition may hold the others back (None: `order.HOLD_FACTOR` x lateness)."""
    name: str = "chat.harassment"
    topics: frozenset[str] = frozenset({CHAT})
    _state: BoundedMap[str, _Place] = field(init=False)
    shared: SharedOrder | None = None
    """The event-time order of the detector set, shared with the other place-keyed detectors
    (None: one of its own, from `lateness` and `hold`)."""
    _order: SharedOrder = field(init=False)
    _seat: int = field(init=False)

    def __post_init__(self) -> None:
        self._state = BoundedMap(max_keys=self.max_keys)
        self._order, self._seat = self._take_seat(self.shared, self.lateness, self.hold)

    def _judge(self, event: ChatMessage) -> Sequence[Finding]:
        """Learn the sender's nickname, find the target, score hostility, report a pattern once."""
        place = self._state.get_or_create(place_of(event), self._new_place)
        place.nicknames.put(fold(event.nickname), event.player_id)
        target = self._target(event, place)
        if target is None:
            return ()
        hostility = self._hostility(event)
        if hostility is None:
            return ()
        spans, score = hostility
        place.hits.add(event.ts, _Hit(event, target, spans, score))
        pair = [
            h for h in place.hits.values() if h.message.player_id == event.player_id and h.target == target
        ]
        pair_key = f"{event.player_id}>{target}"
        # One finding per episode: an episode is identified by its first hostile line in the window.
        if len(pair) < self.min_messages or place.reported.get(pair_key) == pair[0].message.event_id:
            return ()
        place.reported.put(pair_key, pair[0].message.event_id)
        return (self._finding(event, target, pair),)

    def _new_place(self) -> _Place:
        return _Place(
            BoundedMap(max_keys=64), Window(span=self.window, max_items=256), BoundedMap(max_keys=256)
        )

    def _target(self, event: ChatMessage, place: _Place) -> str | None:
        if event.channel == "private":
            return event.recipient_id
        mention: str | None = None
        known = place.nicknames.view
        folded = fold(event.text)
        if "@" not in folded and "." not in folded and "-" not in folded:
            # Most lines: no mention, and no word is a nickname seen here. A word that is a
            # nickname is a substring too, and a few substring tests cost less than the words.
            for name in known:  # a loop, not any(): no generator per line
                if name in folded:
                    break
            else:
                return None
            words = _WORD.findall(folded)
            if known.keys().isdisjoint(words):
                return None
        else:
            words = _WORD.findall(folded)
        for word in words:
            name = word.lstrip("@").strip(".-")
            player = known.get(name)
            if player is not None and player != event.player_id:
                return player
            if word.startswith("@") and name and mention is None and name != fold(event.nickname):
                mention = UNKNOWN + name
        return mention

    def _hostility(self, event: ChatMessage) -> tuple[tuple[Span, ...], float] | None:
        spans = tuple(s for s in self.lexicon.find(event.text) if s.label in HOSTILE)
        score = (0.8 if any(s.label != "harassment" for s in spans) else 0.65) if spans else 0.0
        if self.classifier is not None:
            verdict = self.classifier.classify([event.text])[0]
            top = chat_category(verdict)
            if top is not None and top[0] in HOSTILE and top[1] >= self.min_classifier_score:
                score = max(score, top[1])
                spans = spans or tuple(s for s in verdict.spans if s.end <= len(event.text))
        return (spans, score) if score > 0 else None

    def _finding(self, event: ChatMessage, target: str, pair: list[_Hit]) -> Finding:
        mean = sum(h.score for h in pair) / len(pair)
        known = not target.startswith(UNKNOWN)
        victims = (
            {"victims": [target]} if known else {"victims": [], "target_nickname": target[len(UNKNOWN) :]}
        )
        boost = 0.05 * (len(pair) - self.min_messages) + (0.05 if event.channel == "private" else 0.0)
        return make_finding(
            detector=self.name,
            category="harassment",
            score=min(0.99, 0.5 + 0.4 * mean + boost),
            players=(event.player_id, target) if known else (event.player_id,),
            ts=event.ts,
            summary=f"{len(pair)} hostile messages aimed at {target} in {event.channel} chat",
            id_parts=(place_of(event), event.player_id, target, pair[0].message.event_id),
            source_event_ids=[h.message.event_id for h in pair],
            evidence={"messages": [message_evidence(h.message, h.spans) for h in pair[-20:]], **victims},
            window=(pair[0].message.ts, event.ts),
            table_id=event.table_id,
            tournament_id=event.tournament_id,
        )
