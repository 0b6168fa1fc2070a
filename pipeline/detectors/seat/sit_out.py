"""Collusive sit-outs (house rules section 5): players who agree to sit out together in a tournament.

Keyed by tournament. Away intervals run from `sit_out`/`disconnect` to `sit_in`/`reconnect` (or the
player leaving). A start is classified once the event time is `settle` seconds past it: if many
players of the field started within +-`break_spread` of it (a break or a hand-for-hand pause), it is
field-wide and discounted; otherwise it joins the field's break-free starts, and every other
player's break-free start within `tol` before it is a coincidence for that pair. Ends (`sit_in`,
`reconnect`) are a second lane treated the same way (field-wide break ends are discounted too), so
one joint sit-out that starts and ends together counts twice: two coordinated decisions. A pair is flagged
when the coincidences are far beyond chance (`sit_out_stats`) and repeated; flagged pairs that share
a player form one group finding. Coincidences near the bubble or a pay jump count double towards
the repetition minimum and raise the score; the tail probability itself is never weighted.
"""

from __future__ import annotations

import math
from bisect import bisect_left, insort
from collections import Counter, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pipeline.categories import rule_of
from pipeline.contracts import SEAT, Event, SeatActivity
from pipeline.contracts.seat import TournamentStanding
from pipeline.detectors.seat.common import iso, timeline_entry, utc
from pipeline.detectors.seat.guard import InputGuard
from pipeline.detectors.seat.sit_out_stats import NULL_MODEL, PairTest, pair_test
from pipeline.findings import Finding, stable_id

CATEGORY = "collusive_sit_out"
START, END = "start", "end"
MAX_INTERVALS = 100
TOURNAMENT_TTL = 24 * 3600.0
SWEEP_EVERY = 4_096


@dataclass(frozen=True, slots=True)
class PayoutContext:
    """Where the money starts for one tournament: from the events' `standing` when the game server
    sends it, else from the lobby feed passed in at wiring time."""

    paid_places: int
    pay_jumps: tuple[int, ...] = ()
    """Players-remaining counts at which the payout steps up (e.g. 9 for the final table)."""


@dataclass(frozen=True, slots=True)
class SitOutConfig:
    """Tuning of the collusive sit-out test; defaults justified in docs/seat-integrity.md."""

    tol: float = 4.0
    window: float = 300.0
    settle: float = 30.0
    break_spread: float = 5.0
    break_min_players: int = 8
    break_fraction: float = 0.05
    alpha: float = 0.01
    min_coincidences: int = 3
    bubble_margin: float = 0.10


@dataclass(slots=True)
class _Player:
    first_seen: float
    last_seen: float
    seated: bool = True
    sitting_out: bool = False
    disconnected: bool = False
    table_id: str = ""
    open_start: float | None = None
    open_state: str = "sitting_out"
    events: dict[str, list[float]] = field(default_factory=lambda: {START: [], END: []})
    intervals: deque[tuple[float, float, str, str, bool]] = field(
        default_factory=lambda: deque(maxlen=MAX_INTERVALS)
    )
    field_wide: set[float] = field(default_factory=set)


@dataclass(slots=True)
class _Tournament:
    players: dict[str, _Player] = field(default_factory=dict)
    raw: dict[str, list[float]] = field(default_factory=lambda: {START: [], END: []})
    pending: deque[tuple[float, str, str, int]] = field(default_factory=deque)
    """(ts, player, kind, players remaining at that moment) waiting for `settle`."""
    lanes: dict[str, list[float]] = field(default_factory=lambda: {START: [], END: []})
    owners: dict[str, list[str]] = field(default_factory=lambda: {START: [], END: []})
    pairs: dict[tuple[str, str], list[tuple[float, bool, str, int]]] = field(default_factory=dict)
    """Coincidences per pair: (ts, near a payout mark, kind, players remaining)."""
    flagged: dict[tuple[str, str], PairTest] = field(default_factory=dict)
    groups_emitted: set[frozenset[str]] = field(default_factory=set)
    last_ts: float = 0.0
    seated: int = 0
    standing: TournamentStanding | None = None

    def remaining(self) -> int:
        """Players left: the server's count when events carry it, else those seated right now."""
        return self.standing.players_remaining if self.standing is not None else self.seated


@dataclass(slots=True)
class CollusiveSitOutDetector:
    """Finds groups whose sit-out starts and ends coincide far beyond chance within one tournament."""

    config: SitOutConfig = field(default_factory=SitOutConfig)
    payouts: Mapping[str, PayoutContext] = field(default_factory=dict)
    lateness: float = 5.0
    name: str = "seat.collusive_sit_out"
    topics: frozenset[str] = frozenset({SEAT})
    anomalies: Counter[str] = field(default_factory=Counter)
    _guard: InputGuard[SeatActivity] = field(init=False)
    _tournaments: dict[str, _Tournament] = field(default_factory=dict)
    _events: int = 0

    def __post_init__(self) -> None:
        self._guard = InputGuard(lateness=self.lateness, anomalies=self.anomalies)

    def key(self, event: Event) -> str:
        """State lives per tournament."""
        if isinstance(event, SeatActivity) and event.tournament_id is not None:
            return event.tournament_id
        return event.event_id

    def process(self, event: Event) -> Sequence[Finding]:
        """Feed one seat event; group findings completed by the events the buffer released."""
        if not isinstance(event, SeatActivity) or event.tournament_id is None:
            return ()
        out: list[Finding] = []
        for ts, ev in self._guard.admit(event, event.ts.timestamp()):
            out.extend(self._apply(ts, ev))
        return out

    def flush(self) -> list[Finding]:
        """End of stream: process the buffer and classify every start still waiting."""
        out: list[Finding] = []
        for ts, ev in self._guard.drain():
            out.extend(self._apply(ts, ev))
        for tid, t in self._tournaments.items():
            out.extend(self._classify(tid, t, math.inf))
        return out

    @property
    def state_size(self) -> int:
        """Players tracked across live tournaments: what memory grows with."""
        return sum(len(t.players) for t in self._tournaments.values())

    def _apply(self, ts: float, ev: SeatActivity) -> list[Finding]:
        tid = ev.tournament_id or ""
        t = self._tournaments.setdefault(tid, _Tournament())
        t.last_ts = ts
        if ev.standing is not None:
            t.standing = ev.standing
        p = t.players.get(ev.player_id)
        if p is None:
            p = t.players[ev.player_id] = _Player(first_seen=ts, last_seen=ts, table_id=ev.table_id)
            t.seated += 1
            if ev.action != "join":
                self.anomalies["implicit_join"] += 1
        p.last_seen = ts
        self._transition(t, p, ev, ts)
        self._events += 1
        if self._events % SWEEP_EVERY == 0:
            self._sweep(ts)
        return self._classify(tid, t, ts - self.config.settle)

    def _transition(self, t: _Tournament, p: _Player, ev: SeatActivity, ts: float) -> None:
        was_away = p.sitting_out or p.disconnected
        action = ev.action
        if action == "join":
            if not p.seated:
                t.seated += 1
            p.seated, p.table_id = True, ev.table_id
            if was_away and p.open_start is None:
                # A table move keeps the player's sit-out state: the interval continues, no new start.
                p.open_start = ts
            return
        if action in ("leave", "sit_out_timeout_removal"):
            if p.seated:
                t.seated -= 1
            p.seated = False
            self._close(p, ts)
            return
        flag = "sitting_out" if action in ("sit_out", "sit_in") else "disconnected"
        going_away = action in ("sit_out", "disconnect")
        if getattr(p, flag) == going_away:
            self.anomalies[f"{action}_unexpected"] += 1
        setattr(p, flag, going_away)
        now_away = p.sitting_out or p.disconnected
        if now_away and not was_away:
            p.open_start, p.open_state, p.table_id = (
                ts,
                "sitting_out" if p.sitting_out else "disconnected",
                ev.table_id,
            )
            t.raw[START].append(ts)
            t.pending.append((ts, ev.player_id, START, t.remaining()))
        elif was_away and not now_away:
            self._close(p, ts)
            t.raw[END].append(ts)
            t.pending.append((ts, ev.player_id, END, t.remaining()))

    @staticmethod
    def _close(p: _Player, ts: float) -> None:
        if p.open_start is not None:
            start = p.open_start
            p.intervals.append((start, ts, p.open_state, p.table_id, start in p.field_wide))
            p.open_start = None

    def _classify(self, tid: str, t: _Tournament, upto: float) -> list[Finding]:
        cfg = self.config
        touched: set[tuple[str, str]] = set()
        while t.pending and t.pending[0][0] <= upto:
            s, pid, kind, left = t.pending.popleft()
            player = t.players.get(pid)
            if player is None:
                continue
            spread = _count(t.raw[kind], s - cfg.break_spread, s + cfg.break_spread)
            if spread >= max(cfg.break_min_players, cfg.break_fraction * max(t.remaining(), 1)):
                if kind == START:
                    player.field_wide.add(s)
                continue
            near = self._near_payout(tid, t, left)
            lane, owners = t.lanes[kind], t.owners[kind]
            lo = bisect_left(lane, s - cfg.tol)
            for other in set(owners[lo:]) - {pid}:
                pair = (min(pid, other), max(pid, other))
                t.pairs.setdefault(pair, []).append((s, near, kind, left))
                touched.add(pair)
            idx = bisect_left(lane, s)
            lane.insert(idx, s)
            owners.insert(idx, pid)
            insort(player.events[kind], s)
        for raw in t.raw.values():
            _trim(raw, upto - cfg.break_spread)
        return [f for pair in sorted(touched) if (f := self._evaluate(tid, t, pair)) is not None]

    def _context(self, tid: str, t: _Tournament) -> PayoutContext | None:
        if t.standing is not None:
            return PayoutContext(t.standing.paid_places, t.standing.pay_jumps)
        return self.payouts.get(tid)

    def _near_payout(self, tid: str, t: _Tournament, left: int) -> bool:
        ctx = self._context(tid, t)
        if ctx is None:
            return False
        for mark in (ctx.paid_places, *ctx.pay_jumps):
            if mark < left <= mark + max(2, math.ceil(self.config.bubble_margin * mark)):
                return True
        return False

    def _evaluate(self, tid: str, t: _Tournament, pair: tuple[str, str]) -> Finding | None:
        cfg = self.config
        hits = t.pairs[pair]
        weighted = sum(2 if near else 1 for _, near, _, _ in hits)
        if pair in t.flagged or weighted < cfg.min_coincidences:
            return None
        a, b = t.players[pair[0]], t.players[pair[1]]
        # Every pair of the field could have been flagged at some point of the tournament, so all of
        # them count as tests (counting only pairs eligible so far under-corrects early on).
        n = len(t.players)
        test = pair_test(
            coincidences=len(hits),
            a_events=a.events,
            b_events=b.events,
            a_presence=(a.first_seen, a.last_seen),
            b_presence=(b.first_seen, b.last_seen),
            field=t.lanes,
            tol=cfg.tol,
            window=cfg.window,
            n_tests=n * (n - 1) // 2,
        )
        if test.p_adjusted > cfg.alpha:
            return None
        t.flagged[pair] = test
        group = _component(t.flagged, pair[0])
        if group in t.groups_emitted:
            return None
        t.groups_emitted.add(group)
        return self._finding(tid, t, group)

    def _finding(self, tid: str, t: _Tournament, group: frozenset[str]) -> Finding:
        pairs = {k: v for k, v in t.flagged.items() if k[0] in group}
        hits = sorted(h for k in pairs for h in t.pairs[k])
        members = sorted(group, key=lambda m: (-sum(len(t.pairs[k]) for k in pairs if m in k), m))
        best = min(pairs.values(), key=lambda x: x.p_adjusted)
        near_share = sum(near for _, near, _, _ in hits) / len(hits)
        strength = min(1.0, -math.log10(max(best.p_adjusted, 1e-300)) / 20)
        score = round(min(1.0, 0.55 + 0.35 * strength + 0.1 * near_share), 4)
        start, end = hits[0][0], hits[-1][0]
        fid = stable_id("fnd", self.name, tid, *sorted(group))
        return Finding(
            finding_id=fid,
            detector=self.name,
            rule=rule_of(CATEGORY),
            family="seat",
            category=CATEGORY,
            score=score,
            players=tuple(members),
            ts=utc(t.last_ts),
            window_start=utc(start),
            window_end=utc(end),
            tournament_id=tid,
            summary=(
                f"{len(members)} players sat out together {len(hits)} times in tournament {tid} "
                f"(p_adj={best.p_adjusted:.2g})"
            ),
            evidence=self._evidence(tid, t, members, pairs, hits),
        )

    def _evidence(
        self,
        tid: str,
        t: _Tournament,
        members: list[str],
        pairs: dict[tuple[str, str], PairTest],
        hits: list[tuple[float, bool, str, int]],
    ) -> dict[str, Any]:
        best_pair, best = min(pairs.items(), key=lambda kv: kv[1].p_adjusted)
        timeline: list[dict[str, Any]] = []
        for m in members:
            p = t.players[m]
            rows = list(p.intervals)
            if p.open_start is not None:
                rows.append((p.open_start, t.last_ts, p.open_state, p.table_id, p.open_start in p.field_wide))
            for start, end, state, table, wide in rows:
                row = timeline_entry(
                    player_id=m, table_id=table, tournament_id=tid, start=start, end=end, state=state
                )
                row["field_wide"] = wide
                timeline.append(row)
        ctx = self._context(tid, t)
        return {
            "timeline": timeline,
            "statistic": {
                "name": "coincident_sit_out_transitions",
                "value": best.coincidences,
                "expected": round(best.expected, 6),
                "p_value": best.p_value,
                "p_adjusted": best.p_adjusted,
                "n_tests": best.n_tests,
                "tolerance_s": self.config.tol,
                "null_model": NULL_MODEL,
                "pair": list(best_pair),
                "pairs": [
                    {
                        "players": list(k),
                        "coincidences": v.coincidences,
                        "expected": v.expected,
                        "p_adjusted": v.p_adjusted,
                    }
                    for k, v in sorted(pairs.items())
                ],
            },
            "coincidences": [
                {"ts": iso(s), "near_payout": near, "transition": kind, "players_remaining": left}
                for s, near, kind, left in hits
            ],
            "payout_context": {
                "paid_places": ctx.paid_places if ctx else None,
                "pay_jumps": list(ctx.pay_jumps) if ctx else [],
                "players_remaining": t.remaining(),
                "source": "seat events" if t.standing is not None else ("lobby" if ctx else None),
                "near_payout_coincidences": sum(near for _, near, _, _ in hits),
            },
        }

    def _sweep(self, now: float) -> None:
        for tid in [k for k, t in self._tournaments.items() if t.last_ts < now - TOURNAMENT_TTL]:
            del self._tournaments[tid]


def _count(sorted_ts: list[float], lo: float, hi: float) -> int:
    return bisect_left(sorted_ts, hi + 1e-9) - bisect_left(sorted_ts, lo)


def _trim(sorted_ts: list[float], before: float) -> None:
    cut = bisect_left(sorted_ts, before)
    if cut > 1024:
        del sorted_ts[:cut]


def _component(edges: Mapping[tuple[str, str], object], seed: str) -> frozenset[str]:
    seen, todo = {seed}, [seed]
    while todo:
        node = todo.pop()
        for a, b in edges:
            for x, y in ((a, b), (b, a)):
                if x == node and y not in seen:
                    seen.add(y)
                    todo.append(y)
    return frozenset(seen)
