"""`chat.flooding`: too many messages, emoji spam and repeated text from one player at one place.

House rules chat 1.12 (spamming other players) and table etiquette (no emoji spam). One finding
per burst: after firing, a player's key stays quiet until its window has passed, so a flood of
fifty lines is one case with fifty lines of evidence, not fifty cases.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from pipeline.contracts import CHAT, ChatMessage, Event
from pipeline.detectors.chat.evidence import make_finding, message_evidence, place_of
from pipeline.detectors.chat.state import BoundedMap, Window
from pipeline.detectors.chat.text import emoji_count, fold, has_run, is_emoji_only, longest_run
from pipeline.findings import Finding, Span


@dataclass(frozen=True, slots=True)
class FloodLimits:
    """Thresholds; defaults keep fast but normal table banter (a few lines a minute) clear."""

    max_messages: int = 6
    window: timedelta = timedelta(seconds=10)
    max_emoji_messages: int = 4
    emoji_window: timedelta = timedelta(seconds=30)
    max_emoji_in_message: int = 15
    max_repeats: int = 4
    repeat_window: timedelta = timedelta(seconds=60)
    max_char_run: int = 30


@dataclass(slots=True)  # not frozen: one is built per message, and frozen ones cost 3x to build
class _Line:
    message: ChatMessage
    folded: str
    emoji_only: bool


@dataclass(slots=True)
class _Burst:
    messages: Window[_Line]
    quiet_until: datetime | None = None


@dataclass(slots=True)
class FloodingDetector:
    """Per player per place: message rate, emoji-only lines, repeated lines, giant emoji walls."""

    limits: FloodLimits = field(default_factory=FloodLimits)
    max_keys: int = 100_000
    name: str = "chat.flooding"
    topics: frozenset[str] = frozenset({CHAT})
    _state: BoundedMap[str, _Burst] = field(init=False)
    _span: timedelta = field(init=False)
    """The longest of the limits' windows: what a burst's window keeps (computed once, not per message)."""
    _fewest: int = field(init=False)
    """A window of at most this many lines breaks no several-line rule (computed once, not per message)."""

    def __post_init__(self) -> None:
        self._state = BoundedMap(max_keys=self.max_keys)
        lim = self.limits
        self._span = max(lim.window, lim.emoji_window, lim.repeat_window)
        self._fewest = min(lim.max_messages, lim.max_emoji_messages, lim.max_repeats)

    def key(self, event: Event) -> str:
        """State is per player (each place is kept apart inside it)."""
        return event.player_id if isinstance(event, ChatMessage) else event.event_id

    def process(self, event: Event) -> Sequence[Finding]:
        """Add the message to its player's window; report a burst once when a limit is crossed."""
        if not isinstance(event, ChatMessage):
            return ()
        burst = self._state.get_or_create(f"{event.player_id}|{place_of(event)}", self._new_burst)
        burst.messages.add(event.ts, _Line(event, fold(event.text).strip(), is_emoji_only(event.text)))
        if burst.quiet_until is not None and event.ts < burst.quiet_until:
            return ()
        verdict = self._judge(event, burst.messages)
        if verdict is None:
            return ()
        category, reason, evidence = verdict
        burst.quiet_until = event.ts + self._span
        return (self._finding(event, category, reason, evidence),)

    def _new_burst(self) -> _Burst:
        return _Burst(Window(span=self._span, max_items=64))

    def _judge(self, event: ChatMessage, window: Window[_Line]) -> tuple[str, str, list[ChatMessage]] | None:
        lim = self.limits
        # The length checks only skip regex passes that cannot succeed (an emoji is a character).
        emoji_n = emoji_count(event.text) if len(event.text) > lim.max_emoji_in_message else 0
        if emoji_n > lim.max_emoji_in_message:
            return "emoji_spam", f"{emoji_n} emoji in one message", [event]
        # The window is copied only when it holds enough lines to break a several-line rule.
        if len(window) > self._fewest:
            found = self._bursts(event, window.view())
            if found is not None:
                return found
        if len(event.text) > lim.max_char_run and has_run(event.text, lim.max_char_run + 1):
            return "flooding", f"run of {longest_run(event.text)} repeated characters", [event]
        return None

    def _bursts(
        self, event: ChatMessage, stamped: Sequence[tuple[datetime, _Line]]
    ) -> tuple[str, str, list[ChatMessage]] | None:
        """The rules that need several lines; skipped while the window holds too few to break any."""
        lim = self.limits
        if len(stamped) > lim.max_messages:  # the window ending now cannot hold more than all
            recent = _since(stamped, event.ts - lim.window)
            if len(recent) > lim.max_messages:
                return (
                    "flooding",
                    f"{len(recent)} messages in {lim.window.total_seconds():g}s",
                    [x.message for x in recent],
                )
        emoji_cut = event.ts - lim.emoji_window
        emoji = [x.message for ts, x in stamped if x.emoji_only and ts >= emoji_cut]
        if len(emoji) > lim.max_emoji_messages:
            return "emoji_spam", f"{len(emoji)} emoji-only messages", emoji
        line = stamped[-1][1]
        if not line.folded or line.emoji_only:
            return None
        repeat_cut = event.ts - lim.repeat_window
        same = [x.message for ts, x in stamped if x.folded == line.folded and ts >= repeat_cut]
        if len(same) > lim.max_repeats:
            return "flooding", f"same line {len(same)} times", same
        return None

    def _finding(
        self, event: ChatMessage, category: str, reason: str, messages: list[ChatMessage]
    ) -> Finding:
        score = 0.9 if category == "flooding" and len(messages) > 2 * self.limits.max_messages else 0.8
        return make_finding(
            detector=self.name,
            category=category,
            score=score,
            players=(event.player_id,),
            ts=event.ts,
            summary=f"{category}: {reason} in {event.channel} chat",
            id_parts=(event.player_id, messages[0].event_id, category),
            source_event_ids=[m.event_id for m in messages],
            evidence={
                "messages": [message_evidence(m, _line_span(m, category)) for m in messages[-20:]],
                "reason": reason,
            },
            window=(messages[0].ts, event.ts),
            table_id=event.table_id,
            tournament_id=event.tournament_id,
        )


def _since(stamped: Sequence[tuple[datetime, _Line]], cutoff: datetime) -> list[_Line]:
    return [x for ts, x in stamped if ts >= cutoff]


def _line_span(message: ChatMessage, category: str) -> tuple[Span, ...]:
    """The evidence of a flood is the line itself (its non-blank part): one span over it."""
    text = message.text
    start = len(text) - len(text.lstrip())
    end = len(text.rstrip())
    return (Span(start=start, end=end, label=category),) if end > start else ()
