"""`chat.shouting` (one player, keyed by player) and `chat.shouting_match` (two players, by place).

Table etiquette forbids "shouting matches". One line in capitals ("NICE HAND!!!") is normal table
talk and is never flagged alone: the detector wants one player shouting line after line, or two
players trading shouted or insulting lines within a short window.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache

from pipeline.contracts import CHAT, ChatMessage, Event
from pipeline.detectors.chat.evidence import make_finding, message_evidence, place_of
from pipeline.detectors.chat.lexicon import Lexicon, compile_lexicon
from pipeline.detectors.chat.order import DEFAULT_LATENESS, PlaceOrdered, SharedOrder
from pipeline.detectors.chat.state import BoundedMap, Window
from pipeline.detectors.chat.text import MEMO_TEXTS, caps_ratio, has_punct_run, letters
from pipeline.findings import Finding, Span


@dataclass(frozen=True, slots=True)
class ShoutLimits:
    """What counts as a shouted line, and how many make persistent shouting or a match."""

    min_letters: int = 6
    min_caps_ratio: float = 0.75
    solo_lines: int = 4
    solo_window: timedelta = timedelta(seconds=60)
    match_window: timedelta = timedelta(seconds=90)
    match_lines_each: int = 2
    match_turns: int = 3


def is_shouted(text: str, limits: ShoutLimits) -> bool:
    """Mostly capitals over enough letters, or a run of `!!!`/`???` with some capitals."""
    n_letters, caps, punct_run = _loudness(text)
    if n_letters >= limits.min_letters and caps >= limits.min_caps_ratio:
        return True
    return punct_run and n_letters >= 3 and caps >= 0.5


@lru_cache(maxsize=MEMO_TEXTS)
def _loudness(text: str) -> tuple[int, float, bool]:
    # Memoised: both shouting detectors measure every line (the match detector `lateness` later).
    if text.isascii():
        # An ASCII letter is upper or lower case, nothing else: the letters are the cased ones,
        # counted by the same two passes `caps_ratio` makes (no regex pass for `letters`).
        upper, lower = sum(map(str.isupper, text)), sum(map(str.islower, text))
        cased = upper + lower
        return cased, upper / cased if cased else 0.0, has_punct_run(text)
    return len(letters(text)), caps_ratio(text), has_punct_run(text)


@dataclass(frozen=True, slots=True)
class _Line:
    message: ChatMessage
    shouted: bool
    hostile: bool


@dataclass(slots=True)
class _Place:
    lines: Window[_Line]
    quiet_until: datetime | None = None


@dataclass(slots=True)
class _Shouts:
    """What both shouting detectors share: settings, bounded state per key, the finding."""

    limits: ShoutLimits = field(default_factory=ShoutLimits)
    lexicon: Lexicon = field(default_factory=compile_lexicon)
    max_keys: int = 50_000
    _state: BoundedMap[str, _Place] = field(init=False)

    def __post_init__(self) -> None:
        self._state = BoundedMap(max_keys=self.max_keys)

    def _add(self, state_key: str, event: ChatMessage, *, hostility: bool) -> tuple[_Place, _Line] | None:
        """Record the line; None when it is neither loud nor hostile or the key is quiet."""
        shouted = is_shouted(event.text, self.limits)
        hostile = hostility and bool(self.lexicon.find(event.text))
        if not (shouted or hostile) and self._state.get(state_key) is None:
            return None  # nothing loud here yet: keep no state for quiet keys
        span = max(self.limits.solo_window, self.limits.match_window)
        place = self._state.get_or_create(state_key, lambda: _Place(Window(span=span, max_items=128)))
        line = _Line(event, shouted, hostile)
        place.lines.add(event.ts, line)
        if not (shouted or hostile) or (place.quiet_until is not None and event.ts < place.quiet_until):
            return None
        return place, line

    def _spans(self, line: _Line) -> list[Span]:
        """A shouted line is marked whole ("shouting"); insulting words in it by the lexicon."""
        text = line.message.text
        start, end = len(text) - len(text.lstrip()), len(text.rstrip())
        whole = [Span(start=start, end=end, label="shouting")] if line.shouted and end > start else []
        return whole + self.lexicon.find(text)

    def _finding(
        self, name: str, event: ChatMessage, lines: list[_Line], reason: str, score: float
    ) -> Finding:
        players = [event.player_id, *(ln.message.player_id for ln in lines)]
        messages = [ln.message for ln in lines]
        hostile = sum(ln.hostile for ln in lines)
        return make_finding(
            detector=name,
            category="shouting",
            score=min(1.0, score + 0.03 * hostile),
            players=players,
            ts=event.ts,
            summary=f"{reason} in {event.channel} chat ({len(lines)} lines, {hostile} insulting)",
            id_parts=(name, place_of(event), messages[0].event_id),
            source_event_ids=[m.event_id for m in messages],
            evidence={
                "messages": [
                    message_evidence(m, self._spans(ln)) for ln, m in zip(lines, messages, strict=True)
                ][-20:]
            },
            window=(messages[0].ts, event.ts),
            table_id=event.table_id,
            tournament_id=event.tournament_id,
        )


@dataclass(slots=True)
class ShoutingDetector(_Shouts):
    """One player shouting line after line at one place (`solo_lines` within `solo_window`)."""

    name: str = "chat.shouting"
    topics: frozenset[str] = frozenset({CHAT})

    def key(self, event: Event) -> str:
        """State is per player (kept apart per place inside)."""
        return event.player_id if isinstance(event, ChatMessage) else event.event_id

    def process(self, event: Event) -> Sequence[Finding]:
        """Report persistent shouting once per window."""
        if not isinstance(event, ChatMessage):
            return ()
        added = self._add(f"{event.player_id}|{place_of(event)}", event, hostility=False)
        if added is None or not added[1].shouted:
            return ()
        place, _ = added
        cutoff = event.ts - self.limits.solo_window
        shouted = [ln for ts, ln in place.lines.stamped() if ts >= cutoff and ln.shouted]
        if len(shouted) < self.limits.solo_lines:
            return ()
        place.quiet_until = event.ts + self.limits.solo_window
        return (self._finding(self.name, event, shouted, f"{len(shouted)} shouted lines in a row", 0.7),)


@dataclass(slots=True)
class ShoutingMatchDetector(_Shouts, PlaceOrdered):
    """Two players trading shouted or insulting lines at one place within `match_window`.

    Keyed by place, so its messages come from several input partitions: they pass through an
    `EventTimeOrder` first, which makes the findings independent of arrival order within `lateness`.
    """

    lateness: timedelta = DEFAULT_LATENESS
    hold: timedelta | None = None
    """How far a lagging input partition may hold the others back (None: `order.HOLD_FACTOR` x lateness)."""
    name: str = "chat.shouting_match"
    topics: frozenset[str] = frozenset({CHAT})
    shared: SharedOrder | None = None
    """The event-time order of the detector set, shared with the other place-keyed detectors
    (None: one of its own, from `lateness` and `hold`)."""
    _order: SharedOrder = field(init=False)
    _seat: int = field(init=False)

    def __post_init__(self) -> None:
        _Shouts.__post_init__(self)
        self._order, self._seat = self._take_seat(self.shared, self.lateness, self.hold)

    def _judge(self, event: ChatMessage) -> Sequence[Finding]:
        """Report a match once per window."""
        added = self._add(place_of(event), event, hostility=len(event.text) < 400)
        if added is None:
            return ()
        place, _ = added
        match = self._match(event, place.lines.stamped())
        if not match:
            return ()
        place.quiet_until = event.ts + self.limits.match_window
        return (self._finding(self.name, event, match, "shouting match between two players", 0.85),)

    def _match(self, event: ChatMessage, stamped: list[tuple[datetime, _Line]]) -> list[_Line]:
        cutoff = event.ts - self.limits.match_window
        loud = [ln for ts, ln in stamped if ts >= cutoff and (ln.shouted or ln.hostile)]
        speakers = {ln.message.player_id for ln in loud}
        best: list[_Line] = []
        for other in sorted(speakers - {event.player_id}):
            pair = [ln for ln in loud if ln.message.player_id in (event.player_id, other)]
            turns = sum(1 for a, b in itertools.pairwise(pair) if a.message.player_id != b.message.player_id)
            mine = sum(1 for ln in pair if ln.message.player_id == event.player_id)
            if (
                turns >= self.limits.match_turns
                and min(mine, len(pair) - mine) >= self.limits.match_lines_each
            ):
                best = pair if len(pair) > len(best) else best
        return best
