"""Offence history per player: the ledger, the tap that fills it, and `chat.repeat_offender`.

The per-message chat detectors stay pure and unaware of each other; `LedgerTap` wraps the ones
keyed by player (or stateless),
stamps its findings with the player's earlier offences in the window (policy reads
`evidence.prior_offences`: only a first offence may be muted automatically) and records them.
`chat.repeat_offender`, registered after the taps, sees the ledger once the message has been
through all of them and reports when a player's count reaches a rung of the ban ladder.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from operator import itemgetter

from pipeline.categories import CATEGORIES
from pipeline.contracts import CHAT, ChatMessage, Event
from pipeline.detector import Detector, PrefetchingDetector
from pipeline.detectors.chat.evidence import make_finding
from pipeline.detectors.chat.offences import MAX_LINE, Offence, decode, encode
from pipeline.detectors.chat.state import BoundedMap, Window
from pipeline.findings import Finding, Span


class OffenceLedger:
    """A player's offences within `window` (event time), counted as episodes, bounded in players.

    An episode is a run of offences against the same house rule, each within `episode_gap` of the
    previous one: a rant of three insulting lines, or a flood, is one offence for escalation, not
    three; soliciting a phone number and then posing as support a minute later are two.

    Its window (30 days) outlives the runtime's lookback replay (13 h), so it is a `DurableState`:
    each changed player's whole history goes to a changelog, keyed by player (docs/operations.md,
    "State").
    """

    store_name = "chat.offence_ledger"

    def __init__(
        self,
        *,
        window: timedelta,
        episode_gap: timedelta = timedelta(minutes=2),
        max_players: int = 200_000,
        max_per_player: int = 64,
    ) -> None:
        self._window = window
        self._gap = episode_gap
        self._max_per_player = max_per_player
        self._players: BoundedMap[str, Window[Offence]] = BoundedMap(max_keys=max_players)
        self._position = -1
        self._changed: dict[str, None] = {}

    def _history(self, player_id: str) -> Window[Offence]:
        return self._players.get_or_create(
            player_id, lambda: Window(span=self._window, max_items=self._max_per_player)
        )

    def record(self, player_id: str, ts: datetime, offence: Offence) -> None:
        """Add an offence to a player's history, once (the same finding of the same message again,
        as a replay over a restored history re-records it, is not a second offence)."""
        history = self._history(player_id)
        event_id, finding_id = offence.event_id, offence.finding_id  # `Offence.same`, inlined: per finding
        if any(o.finding_id == finding_id and o.event_id == event_id for _, o in history.view()):
            return
        if offence.source < 0 <= self._position:
            offence = replace(offence, source=self._position)
        history.add(ts, offence)
        self._changed[player_id] = None

    def at(self, position: int) -> None:
        """The input position of the message about to be processed (stamped on its offences)."""
        self._position = position

    def changes(self) -> list[tuple[str, bytes | None]]:
        """Each player changed since the last call with their whole history (None: evicted)."""
        out: list[tuple[str, bytes | None]] = []
        for player_id in self._changed:
            history = self._players.get(player_id)
            out.append((player_id, encode(history.stamped()) if history is not None and len(history) else None))
        self._changed.clear()
        return out

    def restore(self, key: str, value: bytes, *, before: int) -> None:
        """Merge a player's history from the changelog, without offences from input positions at
        or after `before`; `ValueError` for a value this version cannot read."""
        restored = [(ts, o) for ts, o in decode(value) if o.source < before]
        if not restored:
            return
        current = self._players.get(key)
        kept = current.stamped() if current is not None else []
        merged = kept + [(ts, o) for ts, o in restored if not any(o.same(k) for _, k in kept)]
        history = Window[Offence](span=self._window, max_items=self._max_per_player)
        for ts, offence in sorted(merged, key=_TS):
            history.add(ts, offence)
        self._players.put(key, history)

    def offences(self, player_id: str, now: datetime) -> list[tuple[datetime, Offence]]:
        """A player's offences in the window ending at `now`, oldest first."""
        history = self._players.get(player_id)
        if history is None:
            return []
        history.expire(now)
        return sorted(history.view(), key=_TS)  # (in order unless a late message was recorded)

    def holds(self, player_id: str, event_id: str, now: datetime) -> bool:
        """Whether the player's window ending at `now` holds an offence of this event: what
        `offences` would show, without copying and sorting the history (most messages have none)."""
        history = self._players.get(player_id)
        if history is None:
            return False
        history.expire(now)
        return any(o.event_id == event_id for _, o in history.view())

    def prior(
        self, player_id: str, ts: datetime, *, excluding: str, category: str | None = None, of: str | None = None
    ) -> int:
        """Episodes before the one an offence at `ts` (event `excluding`, category `of`) belongs to;
        with `category`, only offences of that category count."""
        earlier = [
            (t, o)
            for t, o in self.offences(player_id, ts)
            if o.event_id != excluding and t <= ts and (category is None or o.category == category)
        ]
        episodes = _episodes([(t, o.category) for t, o in earlier], self._gap)
        rule = _rule(of) if of is not None else None
        joins = any(ts - t <= self._gap and (rule is None or _rule(o.category) == rule) for t, o in earlier)
        return episodes - 1 if joins else episodes

    def priors(self, player_id: str, ts: datetime, *, excluding: str, of: str) -> tuple[int, int]:
        """`(prior(..., of=of), prior(..., category=of, of=of))`: both counts a tap stamps on a
        finding, from one read of the player's offences and one pass over them (`_prior_counts`)."""
        return _prior_counts(self.offences(player_id, ts), ts, self._gap, excluding=excluding, of=of)

    def episodes(self, player_id: str, now: datetime, *, excluding: str | None = None) -> int:
        """Episodes in the window ending at `now` (optionally without one event's offences)."""
        return _episodes(
            [(t, o.category) for t, o in self.offences(player_id, now) if o.event_id != excluding], self._gap
        )


_TS = itemgetter(0)
"""A (timestamp, offence) pair's timestamp: the sort key in C (a lambda per item cost more than the sort)."""

_RULE_OF: dict[str, str] = {category: rule for category, (_, rule) in CATEGORIES.items()}


def _rule(category: str) -> str:
    """The house rule an offence breaks (an unknown category is its own rule)."""
    return _RULE_OF.get(category, category)


def _prior_counts(
    offences: list[tuple[datetime, Offence]], ts: datetime, gap: timedelta, *, excluding: str, of: str
) -> tuple[int, int]:
    """Episodes before the one an offence at `ts` (event `excluding`, category `of`) joins: over
    every category, and over `of` alone. `offences` oldest first, as `OffenceLedger.offences` gives
    them: `_episodes` sorts by (time, category), but offences at one time against one rule are one
    episode whichever comes first, so time order alone gives its counts. One pass, because the tap
    stamps both on every finding and a busy offender's window holds up to 64 offences."""
    rule_of = _RULE_OF.get(of, of)
    rule_get = _RULE_OF.get
    last: dict[str, datetime] = {}
    every = same = 0
    last_same: datetime | None = None
    joins_every = joins_same = False
    since = ts - gap  # `ts - t <= gap` without a timedelta per offence
    for t, offence in offences:
        if t > ts:
            break  # oldest first: the rest are later too
        if offence.event_id == excluding:
            continue
        category = offence.category
        rule = rule_get(category, category)
        previous = last.get(rule)
        if previous is None or t - previous > gap:
            every += 1
        last[rule] = t
        near = t >= since
        if rule == rule_of and near:
            joins_every = True
        if category == of:
            if last_same is None or t - last_same > gap:
                same += 1
            last_same = t
            if near:
                joins_same = True
    return every - joins_every, same - joins_same


def _episodes(offences: list[tuple[datetime, str]], gap: timedelta) -> int:
    """Runs of same-rule offences, each within `gap` of the previous offence against that rule."""
    last: dict[str, datetime] = {}
    count = 0
    for t, category in sorted(offences):
        rule = _rule(category)
        previous = last.get(rule)
        if previous is None or t - previous > gap:
            count += 1
        last[rule] = t
    return count


@dataclass(frozen=True, slots=True)
class LedgerTap:
    """Wraps a chat detector: same name and topics, keyed by player; findings go to the ledger.

    Only for detectors that are stateless or keyed by player themselves: the streaming runtime
    routes every tap and `chat.repeat_offender` of one player to one partition, where they share
    one ledger (one `build_chat_detectors` call per partition), so N processes count what one does.
    """

    inner: Detector
    ledger: OffenceLedger

    @property
    def durable(self) -> OffenceLedger:
        """The shared ledger: the state the runtime keeps in a changelog."""
        return self.ledger

    @property
    def name(self) -> str:
        """The wrapped detector's name."""
        return self.inner.name

    @property
    def topics(self) -> frozenset[str]:
        """The wrapped detector's topics."""
        return self.inner.topics

    def key(self, event: Event) -> str:
        """The speaker: the ledger's state key (and the wrapped detector's, or it has none)."""
        return event.player_id if isinstance(event, ChatMessage) else self.inner.key(event)

    def prefetch(self, events: Sequence[Event]) -> None:
        """Pass a poll batch to the wrapped detector's `prefetch`, if it has one (the classifier)."""
        if isinstance(self.inner, PrefetchingDetector):
            self.inner.prefetch(events)

    def process(self, event: Event) -> Sequence[Finding]:
        """Run the detector; annotate each finding with prior offences, then record it."""
        produced = self.inner.process(event)
        return self.after(event, produced) if produced else produced

    def after(self, event: Event, produced: Sequence[Finding]) -> Sequence[Finding]:
        """Annotate each finding the wrapped detector produced with prior offences, then record it
        (`WrappingDetector`: the runner calls the wrapped detector and this itself)."""
        out: list[Finding] = []
        for finding in produced:
            prior, same = self.ledger.priors(finding.subject, event.ts, excluding=event.event_id, of=finding.category)
            evidence = {**finding.evidence, "prior_offences": prior, "prior_same_category": same}
            out.append(finding.model_copy(update={"evidence": evidence}))
        for finding in out:
            offence = Offence(event.event_id, finding.category, finding.finding_id, finding.detector, _line(event, finding))
            self.ledger.record(finding.subject, event.ts, offence)
        return out


@dataclass(frozen=True, slots=True)
class RepeatOffenderDetector:
    """Reports when a player's offence episodes in the window reach a rung (`thresholds`) of the ladder."""

    ledger: OffenceLedger
    thresholds: tuple[int, ...] = (3, 5, 8)
    name: str = "chat.repeat_offender"
    topics: frozenset[str] = frozenset({CHAT})

    @property
    def durable(self) -> OffenceLedger:
        """The shared ledger: the state the runtime keeps in a changelog."""
        return self.ledger

    def key(self, event: Event) -> str:
        """State (the ledger) is per player."""
        return event.player_id if isinstance(event, ChatMessage) else event.event_id

    def process(self, event: Event) -> Sequence[Finding]:
        """After the taps have run on this message: report a newly reached rung."""
        if not isinstance(event, ChatMessage):
            return ()
        if not self.ledger.holds(event.player_id, event.event_id, event.ts):
            return ()
        history = self.ledger.offences(event.player_id, event.ts)
        # Only a message that opens new episodes moves the count; report the highest rung it reaches
        # (one message can open two, e.g. a flood that is also shouted, so a rung may be stepped over).
        count = self.ledger.episodes(event.player_id, event.ts)
        before = self.ledger.episodes(event.player_id, event.ts, excluding=event.event_id)
        ladder = sorted(self.thresholds)
        reached = [k for k, n in enumerate(ladder) if before < n <= count]
        if not reached:
            return ()
        rung = reached[-1] + 1
        return (self._finding(event, history, count, rung),)

    def _finding(self, event: ChatMessage, history: list[tuple[datetime, Offence]], count: int, rung: int) -> Finding:
        categories = sorted({o.category for _, o in history})
        return make_finding(
            detector=self.name,
            category="repeat_offender",
            score=min(1.0, 0.6 + 0.1 * rung),
            players=(event.player_id,),
            ts=event.ts,
            summary=f"{count} chat offence episodes within the window ({', '.join(categories)}): ladder rung {rung}",
            id_parts=(event.player_id, event.event_id, rung),
            source_event_ids=list(dict.fromkeys(o.event_id for _, o in history)),
            evidence={
                "messages": _messages(event, history),
                "offence_count": count,
                "rung": rung,
                "offences": [
                    {"ts": ts.isoformat(), "event_id": o.event_id, "category": o.category, "finding_id": o.finding_id}
                    for ts, o in history
                ],
            },
            window=(history[0][0], event.ts),
            table_id=event.table_id,
            tournament_id=event.tournament_id,
        )



def _line(event: Event, finding: Finding) -> tuple[str, str, str, tuple[Span, ...]]:
    if not isinstance(event, ChatMessage):
        return ("", "", "", ())
    spans = tuple(s for s in finding.spans if s.end <= MAX_LINE)
    return (event.channel, event.nickname, event.text[:MAX_LINE], spans)


def _messages(event: ChatMessage, history: list[tuple[datetime, Offence]]) -> list[dict[str, object]]:
    """`evidence.messages` for the offending lines (one per message, the last 20)."""
    seen: dict[str, dict[str, object]] = {}
    for ts, offence in history:
        channel, nickname, text, spans = offence.line
        entry = seen.setdefault(offence.event_id, {
            "event_id": offence.event_id, "ts": ts.isoformat(), "player_id": event.player_id,
            "nickname": nickname, "channel": channel, "text": text, "spans": [],
        })
        known = entry["spans"]
        for span in spans:
            # Two detectors may mark the same words of one line: list each span once.
            if isinstance(known, list) and span.model_dump() not in known:
                known.append(span.model_dump())
    return list(seen.values())[-20:]
