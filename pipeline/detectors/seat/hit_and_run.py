"""Hit-and-run (house rules section 7): leaving a cash table before 10 hands is a refusal to play.

A stint is one player at one cash table from `join` to `leave` (or `sit_out_timeout_removal`).
Contract relied on: `hands_played_at_table` on the leave event counts the hands of THIS stint (the
game server resets it when the player joins). A stint that ends after 1..min_hands-1 hands is a
refusal, unless the leaver sat alone or every other player was sitting out. Refusals are counted per
player and blind level over a rolling window; the window is half-open, (t - 12 h, t], so a refusal
exactly 12 hours earlier no longer counts. Every refusal raises a finding, so it is on the player's
record where analysts and the ladder audit see it; from the 2nd on it carries an automatic
`table_block` scoped to that blind level for the ladder's minutes. The 1st rung (no penalty) carries
no action at all (policy records hit-and-run findings without proposing anything), so game servers
never receive a block that expires as it starts. `record_first_refusal=False` keeps it off the record.

Blocks must leave at once, so by default nothing is held back for reordering (`lateness=0`): an
event older than the newest seen is processed on arrival and counted as `late`. A player's join and
leave at one table come from one producer partition, in order, so stints stay exact.

Stints at different tables come from different partitions, so a backlog can deliver a player's
refusals out of event-time order. The ladder is still ranked in event time: a player's refusals at a
level are kept sorted by (ts, event_id), each refusal's rung is the number of refusals in its own
window (t - 12 h, t], and a refusal that arrives after later ones (by at most `ladder_lateness` of
event time behind the newest event seen) re-ranks them: every later refusal whose rung rises is
issued again as an amended finding with the higher block (same start, new expiry). So the last
finding per refusal is the same whatever the arrival order within `ladder_lateness`. A refusal later
than that still gets its own event-time rung but re-ranks nothing (counted as `late_refusal`): its
successors' blocks have been served.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import pairwise
from typing import Any

from pipeline.categories import rule_of
from pipeline.contracts import SEAT, Event, SeatActivity
from pipeline.detectors.seat.common import epoch, iso, timeline_entry
from pipeline.detectors.seat.guard import InputGuard
from pipeline.findings import ActionProposal, Finding, stable_id
from pipeline.rules import RulesConfig

CATEGORY = "hit_and_run"
STINT_TTL = 7 * 86_400.0
"""A stint with no leave after a week is dropped (counted): the leave was lost upstream."""
MAX_STATES = 64
"""Timeline rows kept per stint; a stint with more state changes keeps its first ones."""
SWEEP_EVERY = 4_096
_STATE_AFTER = {
    "sit_out": "sitting_out",
    "sit_in": "seated",
    "disconnect": "disconnected",
    "reconnect": "seated",
}


@dataclass(slots=True)
class _Stint:
    join_ts: float
    join_at: datetime
    join_event_id: str
    states: list[tuple[float, str]]


@dataclass(slots=True)
class _Refusal:
    ts: float
    event_id: str
    event: SeatActivity
    stint: _Stint
    count: int
    """The rung issued so far (the refusal's position in its own 12-hour window)."""

    def __lt__(self, other: _Refusal) -> bool:
        return (self.ts, self.event_id) < (other.ts, other.event_id)


@dataclass(slots=True)
class HitAndRunDetector:
    """Counts refusals per player and blind level and computes the automatic block ladder."""

    rules: RulesConfig = field(default_factory=RulesConfig)
    lateness: float = 0.0
    record_first_refusal: bool = True
    removal_is_refusal: bool = True
    """A timeout removal after 1-9 hands counts (sitting out until removed is a way of leaving)."""
    ladder_lateness: float = 900.0
    """Seconds of event time a refusal may arrive behind the newest event and still re-rank the
    later refusals of its player and level (see the module docstring)."""
    name: str = "seat.hit_and_run"
    topics: frozenset[str] = frozenset({SEAT})
    anomalies: Counter[str] = field(default_factory=Counter)
    _guard: InputGuard[SeatActivity] = field(init=False)
    _stints: dict[tuple[str, str], _Stint] = field(default_factory=dict)
    _refusals: dict[tuple[str, str], list[_Refusal]] = field(default_factory=dict)
    _events: int = 0
    _newest: float = float("-inf")

    def __post_init__(self) -> None:
        self._guard = InputGuard(lateness=self.lateness, anomalies=self.anomalies)

    def key(self, event: Event) -> str:
        """State lives per player (stints and refusal counts)."""
        return event.player_id if isinstance(event, SeatActivity) else event.event_id

    def process(self, event: Event) -> Sequence[Finding]:
        """Feed one seat event; findings for refusals that the reorder buffer has released."""
        if not isinstance(event, SeatActivity) or event.game != "cash":
            return ()
        return self._run(self._guard.admit(event, epoch(event.ts)))

    def flush(self) -> list[Finding]:
        """Process whatever the reorder buffer still holds (end of stream)."""
        return self._run(self._guard.drain())

    @property
    def state_size(self) -> int:
        """Open stints plus remembered refusals: what memory grows with."""
        return len(self._stints) + sum(len(d) for d in self._refusals.values())

    def _run(self, released: list[tuple[float, SeatActivity]]) -> list[Finding]:
        out: list[Finding] = []
        for ts, ev in released:
            self._newest = max(self._newest, ts)
            out.extend(self._apply(ts, ev))
            self._events += 1
            if self._events % SWEEP_EVERY == 0:
                self._sweep(ts)
        return out

    def _apply(self, ts: float, ev: SeatActivity) -> list[Finding]:
        key = (ev.player_id, ev.table_id)
        if ev.action == "join":
            if key in self._stints:
                self.anomalies["join_while_seated"] += 1
            self._stints[key] = _Stint(ts, ev.ts, ev.event_id, [(ts, "seated")])
            return []
        stint = self._stints.get(key)
        if stint is None:
            # No join seen: we cannot prove a stint, and an automatic block needs complete evidence.
            self.anomalies["leave_without_join" if _ends(ev) else "no_stint"] += 1
            return []
        if not _ends(ev):
            if len(stint.states) < MAX_STATES:
                stint.states.append((ts, _STATE_AFTER[ev.action]))
            return []
        del self._stints[key]
        if not self._is_refusal(ev):
            return []
        return self._refuse(ts, ev, stint)

    def _is_refusal(self, ev: SeatActivity) -> bool:
        if ev.action == "sit_out_timeout_removal" and not self.removal_is_refusal:
            return False
        if ev.format in self.rules.exempt_formats:
            return False
        if not 1 <= ev.hands_played_at_table < self.rules.min_hands_per_stint:
            return False
        # Leaving alone, or with everyone else sitting out, is allowed (players_seated counts the leaver).
        return ev.others_sitting_out < ev.players_seated - 1

    def _refuse(self, ts: float, ev: SeatActivity, stint: _Stint) -> list[Finding]:
        window = self.rules.refusal_window.total_seconds()
        history = self._refusals.setdefault((ev.player_id, ev.blind_level), [])
        # Keep what a refusal arriving up to `ladder_lateness` late still needs for its own window.
        _expire(history, self._newest - window - self.ladder_lateness)
        refusal = _Refusal(ts, ev.event_id, ev, stint, 0)
        insort(history, refusal)
        at = bisect_left(history, refusal)
        out = self._issue(history, at, window, amended_from=None)
        later = [k for k in range(at + 1, len(history)) if history[k].ts < ts + window]
        if later and ts < self._newest - self.ladder_lateness:
            self.anomalies["late_refusal"] += 1
            return out
        for k in later:
            out += self._issue(history, k, window, amended_from=history[k].count)
        return out

    def _issue(self, history: list[_Refusal], at: int, window: float, amended_from: int | None) -> list[Finding]:
        """The finding for `history[at]` at its event-time rung (again, if an amendment raised it)."""
        r = history[at]
        first = bisect_right([h.ts for h in history[:at]], r.ts - window)
        count = at - first + 1
        ladder = self.rules.ladder_minutes
        minutes = ladder[min(count, len(ladder)) - 1]
        if amended_from is not None and count == amended_from:
            return []
        r.count = count
        if minutes <= 0 and not self.record_first_refusal:
            return []
        earlier = [iso(h.ts) for h in history[first:at]]
        return [self._finding(r.ts, r.event, r.stint, count, minutes, earlier, amended_from)]

    def _finding(
        self, ts: float, ev: SeatActivity, stint: _Stint, count: int, minutes: int, earlier: list[str],
        amended_from: int | None = None,
    ) -> Finding:
        # An amendment is a new finding (new id) for the same leave: the ladder moved it up a rung.
        fid = stable_id("fnd", self.name, ev.event_id, *([] if amended_from is None else [f"rung{count}"]))
        rule = rule_of(CATEGORY)
        summary = (
            f"refusal #{count} at {ev.blind_level} within {self.rules.refusal_window}: left {ev.table_id} "
            f"after {ev.hands_played_at_table} hands; "
            + (f"{minutes}-minute block" if minutes > 0 else "recorded, no penalty")
            + ("" if amended_from is None else f" (re-ranked from #{amended_from}: an earlier refusal arrived late)")
        )
        if minutes <= 0:
            fields = self._fields(ts, ev, stint, count, minutes, earlier, fid, rule, summary)
            fields["evidence"]["refusal"]["amended_from"] = amended_from
            return Finding(**fields)
        action = ActionProposal(
            action_id=stable_id("act", fid, "table_block"),
            disposition="automatic",
            kind="table_block",
            scope="blind_level",
            scope_value=ev.blind_level,
            player_id=ev.player_id,
            starts_at=ev.ts,
            expires_at=ev.ts + timedelta(minutes=minutes),
            reason=summary,
            rule=rule,
        )
        fields = self._fields(ts, ev, stint, count, minutes, earlier, fid, rule, summary)
        fields["evidence"]["refusal"]["amended_from"] = amended_from
        return Finding(**fields, actions=(action,))

    def _fields(
        self,
        ts: float,
        ev: SeatActivity,
        stint: _Stint,
        count: int,
        minutes: int,
        earlier: list[str],
        fid: str,
        rule: str,
        summary: str,
    ) -> dict[str, Any]:
        return dict(
            finding_id=fid,
            detector=self.name,
            rule=rule,
            family="seat",
            category=CATEGORY,
            score=1.0,
            players=(ev.player_id,),
            ts=ev.ts,
            window_start=min(ev.ts, stint.join_at),
            window_end=ev.ts,
            table_id=ev.table_id,
            summary=summary,
            source_event_ids=(stint.join_event_id, ev.event_id),
            evidence=self._evidence(ts, ev, stint, count, minutes, earlier),
        )

    def _evidence(
        self, ts: float, ev: SeatActivity, stint: _Stint, count: int, minutes: int, earlier: list[str]
    ) -> dict[str, Any]:
        bounds = [*stint.states, (ts, "left")]
        timeline = [
            timeline_entry(
                player_id=ev.player_id, table_id=ev.table_id, tournament_id=None, start=a, end=b, state=state
            )
            for (a, state), (b, _) in pairwise(bounds)
        ]
        return {
            "timeline": timeline,
            "refusal": {
                "count_in_window": count,
                "earlier_refusals": earlier,
                "blind_level": ev.blind_level,
                "hands_played": ev.hands_played_at_table,
                "min_hands": self.rules.min_hands_per_stint,
                "players_seated": ev.players_seated,
                "others_sitting_out": ev.others_sitting_out,
                "format": ev.format,
                "block_minutes": minutes,
                "window_hours": self.rules.refusal_window.total_seconds() / 3600,
                "rules_version": self.rules.version,
                "end_action": ev.action,
            },
        }

    def _sweep(self, now: float) -> None:
        horizon = now - self.rules.refusal_window.total_seconds()
        for key in [k for k, d in self._refusals.items() if not d or d[-1].ts <= horizon - self.ladder_lateness]:
            del self._refusals[key]
        for key in [k for k, s in self._stints.items() if s.join_ts < now - STINT_TTL]:
            del self._stints[key]
            self.anomalies["stint_expired"] += 1


def _ends(ev: SeatActivity) -> bool:
    return ev.action in ("leave", "sit_out_timeout_removal")


def _expire(history: list[_Refusal], horizon: float) -> None:
    # Half-open window: a refusal at exactly t - window is out.
    cut = 0
    while cut < len(history) and history[cut].ts <= horizon:
        cut += 1
    del history[:cut]
