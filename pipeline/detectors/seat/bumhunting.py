"""Bumhunting (house rules section 8): predatory table selection and flight from competent players.

Consumes `hand.records` (to keep the shared skill table, `skill.SkillTable`) and cash-game
`seat.activity`. For every player it measures avoidance with four tests (Bonferroni over the
players testable at all, and over the four; see docs/seat-integrity.md):
- flight: of the known-skill players who sit down at the player's table, how often the player
  leaves within `flight_window` seconds, separately for strong arrivals and for the others. Arrivals
  of one class less than a window apart form one exposure episode, and a leave ends at most one
  episode per class, so bursts count once and both classes are counted alike. Under the null
  (leaving does not depend on who arrives) both rates are equal; flights after strong arrivals are
  tested against the beta-binomial posterior predictive of the player's own rate after other
  arrivals (prior at the population rate);
- unplayed leaves: of the player's joins with a strong player seated, how many end with 0 hands
  (a look at the table and a seating attempt without play), against the same player's joins
  without one, by the same test;
- selection and avoidance, on stays (stints longer than the flight window): the opponents' mean
  skill at the join against all stays (one-sided z-test), and how few stays had a strong opponent
  seated against the share over all stays (binomial lower tail);
- reported alongside: heads-up refusals against strong players, joins without a hand, time seated
  but sitting out, and victims (weak players present at the player's joins, again and again).
State: table rosters, per-player counts (bounded by active players; idle ones expire) and the
replicated skill table. See docs/seat-integrity.md for the keying.
"""
from __future__ import annotations

import math
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pipeline.contracts import HAND, SEAT, Event, HandRecord, SeatActivity
from pipeline.detectors.seat.bumhunting_finding import Behaviour as _Behaviour
from pipeline.detectors.seat.bumhunting_finding import build_finding
from pipeline.detectors.seat.bumhunting_stats import (
    BumhuntConfig,
    avoidance_test,
    flight_test,
    selection_test,
)
from pipeline.detectors.seat.guard import InputGuard
from pipeline.detectors.seat.skill import SkillTable
from pipeline.findings import Finding

SWEEP_EVERY = 8_192


@dataclass(slots=True)
class _Seat:
    join_ts: float
    sitting_since: float | None = None
    sat_out: float = 0.0
    arrivals: deque[tuple[float, bool, str]] = field(default_factory=lambda: deque(maxlen=32))
    heads_up_strong: bool = False
    episode: dict[bool, float] = field(default_factory=dict)
    """Start of the latest exposure episode per class (True = strong arrivals)."""
    company: tuple[float, bool] | None = None
    """Known opponents at the join: their mean skill, and whether one of them was strong."""


@dataclass(slots=True)
class BumhuntingDetector:
    """Flags players who persistently avoid strong opponents and seek out weak ones."""

    config: BumhuntConfig = field(default_factory=BumhuntConfig)
    skills: SkillTable = field(default_factory=SkillTable)
    lateness: float = 5.0
    name: str = "seat.bumhunting"
    topics: frozenset[str] = frozenset({SEAT, HAND})
    anomalies: Counter[str] = field(default_factory=Counter)
    _guard: InputGuard[SeatActivity | HandRecord] = field(init=False)
    _tables: dict[str, dict[str, _Seat]] = field(default_factory=dict)
    _players: dict[str, _Behaviour] = field(default_factory=dict)
    _join_n: int = 0
    _join_mean: float = 0.0
    _join_m2: float = 0.0
    _join_with_strong: int = 0
    _pop_exp_other: int = 0
    _pop_flights_other: int = 0
    _tested_flight: int = 0
    _tested_look: int = 0
    _pop_looks_other: int = 0
    _pop_unplayed_other: int = 0
    _tested_join: int = 0
    _events: int = 0

    def __post_init__(self) -> None:
        self._guard = InputGuard(lateness=self.lateness, anomalies=self.anomalies)

    def key(self, event: Event) -> str:
        """Stage 1 (rosters) is keyed by table; hand records are also broadcast to every instance."""
        return event.table_id if isinstance(event, SeatActivity | HandRecord) else event.event_id

    def process(self, event: Event) -> Sequence[Finding]:
        """Feed a seat event or a hand record; findings for players who crossed the thresholds."""
        if isinstance(event, SeatActivity) and event.game == "cash":
            ts = event.ts.timestamp()
        elif isinstance(event, HandRecord) and event.game == "cash":
            ts = event.ts.timestamp()  # the stream is ordered by the hand's end, not its start
        else:
            return ()
        return self._run(self._guard.admit(event, ts))

    def flush(self) -> list[Finding]:
        """End of stream: process whatever the reorder buffer holds."""
        return self._run(self._guard.drain())

    @property
    def state_size(self) -> int:
        """Seated players, tracked behaviours and skill entries: what memory grows with."""
        return sum(len(t) for t in self._tables.values()) + len(self._players) + len(self.skills.players)

    def _run(self, released: list[tuple[float, SeatActivity | HandRecord]]) -> list[Finding]:
        out: list[Finding] = []
        for ts, ev in released:
            if isinstance(ev, HandRecord):
                self.skills.add_hand(ev, ts)
            else:
                out.extend(self._seat(ts, ev))
            self._events += 1
            if self._events % SWEEP_EVERY == 0:
                self._sweep(ts)
        return out

    def _behaviour(self, pid: str, ts: float) -> _Behaviour:
        b = self._players.get(pid)
        if b is None:
            b = self._players[pid] = _Behaviour()
        b.last_seen = ts
        return b

    def _seat(self, ts: float, ev: SeatActivity) -> list[Finding]:
        roster = self._tables.setdefault(ev.table_id, {})
        pid = ev.player_id
        me = roster.get(pid)
        if ev.action == "join":
            if me is not None:
                self.anomalies["join_while_seated"] += 1
            self._join(ts, ev, roster)
            return []
        if me is None:
            self.anomalies["no_seat"] += 1
            return []
        if ev.action == "sit_out":
            if me.sitting_since is None:
                me.sitting_since = ts
        elif ev.action == "sit_in":
            if me.sitting_since is None:
                self.anomalies["sit_in_without_sit_out"] += 1
            else:
                me.sat_out += ts - me.sitting_since
                me.sitting_since = None
        elif ev.action in ("leave", "sit_out_timeout_removal"):
            return self._leave(ts, ev, roster, me)
        return []

    def _join(self, ts: float, ev: SeatActivity, roster: dict[str, _Seat]) -> None:
        cfg = self.config
        pid = ev.player_id
        b = self._behaviour(pid, ts)
        level = self.skills.skill(pid)
        strong = level is not None and level >= cfg.strong_z
        known: list[float] = []
        for other, seat in roster.items():
            if other == pid:
                continue
            ob = self._behaviour(other, ts)
            if level is not None:
                seat.arrivals.append((ts, strong, pid))
                # Exposure episodes: arrivals of one class less than a window apart are one episode,
                # the same rule for both classes, so neither rate is inflated by bursts.
                self._expose(ob, seat, ts, strong)
            if strong and len(roster) == 1:
                seat.heads_up_strong = True
                ob.hu_strong += 1
            other_level = self.skills.skill(other)
            if other_level is not None:
                known.append(other_level)
                if other_level <= cfg.weak_z:
                    b.victims[other] += 1
        if len(b.victims) > 256:
            b.victims = Counter(dict(b.victims.most_common(64)))
        seat = _Seat(join_ts=ts)
        roster[pid] = seat
        if known:
            seat.company = (sum(known) / len(known), max(known) >= cfg.strong_z)
            if seat.company[1]:
                b.looks_strong += 1
                self._tested_look += b.looks_strong == 1
            else:
                b.looks_other += 1
                self._pop_looks_other += 1

    def _stay(self, b: _Behaviour, mean: float, strong: bool) -> None:
        """A stint that outlasted the flight window: where the player chose to stay and play."""
        b.joins += 1
        self._tested_join += b.joins == 1
        b.join_skill += mean
        if strong:
            b.joins_with_strong += 1
            self._join_with_strong += 1
        self._join_n += 1
        delta = mean - self._join_mean
        self._join_mean += delta / self._join_n
        self._join_m2 += delta * (mean - self._join_mean)

    def _expose(self, b: _Behaviour, seat: _Seat, ts: float, strong: bool) -> None:
        if ts - seat.episode.get(strong, -math.inf) <= self.config.flight_window:
            return
        seat.episode[strong] = ts
        if strong:
            b.exp_strong += 1
            # Bonferroni over every player who could be tested at all (one exposure), not only those
            # past the minimum so far: counting the latter under-corrects early in the stream.
            self._tested_flight += b.exp_strong == 1
        else:
            b.exp_other += 1
            self._pop_exp_other += 1

    def _leave(self, ts: float, ev: SeatActivity, roster: dict[str, _Seat], me: _Seat) -> list[Finding]:
        cfg = self.config
        pid = ev.player_id
        del roster[pid]
        if not roster:
            del self._tables[ev.table_id]
        b = self._behaviour(pid, ts)
        if me.sitting_since is not None:
            me.sat_out += ts - me.sitting_since
        b.stints += 1
        b.zero_hand_stints += ev.hands_played_at_table == 0
        if me.company is not None and ts - me.join_ts >= cfg.flight_window:
            self._stay(b, *me.company)
        if me.company is not None and ev.hands_played_at_table == 0:
            # A seating attempt without play: sat down, looked at who was there, left unplayed.
            if me.company[1]:
                b.unplayed_strong += 1
            else:
                b.unplayed_other += 1
                self._pop_unplayed_other += 1
        b.seated_s += ts - me.join_ts
        b.sat_out_s += me.sat_out
        # A leave ends at most one episode per class (episodes of a class are a window apart).
        strong_recent = [
            (ts - at, who) for at, strong, who in me.arrivals if strong and ts - at <= cfg.flight_window
        ]
        fled = [who for _, who in strong_recent]
        if ts - me.episode.get(True, -math.inf) <= cfg.flight_window:
            b.flights_strong += 1
        if ts - me.episode.get(False, -math.inf) <= cfg.flight_window:
            b.flights_other += 1
            self._pop_flights_other += 1
        if me.heads_up_strong and ts - me.join_ts >= 0 and ev.players_seated == 2:
            b.hu_strong_left += 1
        b.sessions.append(
            {
                "table_id": ev.table_id,
                "join": me.join_ts,
                "leave": ts,
                "hands": ev.hands_played_at_table,
                "fled_from": fled,
                "seconds_after_strong_arrival": round(min(strong_recent)[0], 1) if strong_recent else None,
                "sat_out_s": round(me.sat_out, 1),
            }
        )
        if b.flagged:
            return []
        return self._evaluate(ts, ev, b)

    def _evaluate(self, ts: float, ev: SeatActivity, b: _Behaviour) -> list[Finding]:
        cfg = self.config
        tests = {
            "flight": self._flight_test(b),
            "unplayed": self._look_test(b),
            "selection": self._join_test(b),
            "avoidance": self._avoid_test(b),
        }
        # Four statistics per player: Bonferroni over them as well.
        if min(float(t["p_adjusted"]) for t in tests.values()) > cfg.alpha / len(tests):
            return []
        b.flagged = True
        return [build_finding(self.name, cfg, self.skills, ev, b, tests)]

    def _look_test(self, b: _Behaviour) -> dict[str, Any]:
        return flight_test(
            flights=b.unplayed_strong,
            exposures=b.looks_strong,
            other_flights=b.unplayed_other,
            other_exposures=b.looks_other,
            pop_rate=self._pop_unplayed_other / max(self._pop_looks_other, 1),
            n_tests=self._tested_look,
            cfg=self.config,
            name="unplayed_leave_with_strong_seated",
        )

    def _flight_test(self, b: _Behaviour) -> dict[str, Any]:
        return flight_test(
            flights=b.flights_strong,
            exposures=b.exp_strong,
            other_flights=b.flights_other,
            other_exposures=b.exp_other,
            pop_rate=self._pop_flights_other / max(self._pop_exp_other, 1),
            n_tests=self._tested_flight,
            cfg=self.config,
        )

    def _join_test(self, b: _Behaviour) -> dict[str, Any]:
        if b.joins < self.config.min_joins or self._join_n < 2 * self.config.min_joins:
            return {"p_adjusted": 1.0}
        sd = math.sqrt(self._join_m2 / (self._join_n - 1)) or 1e-6
        return selection_test(
            joins=b.joins,
            mean=b.join_skill / b.joins,
            mean_all=self._join_mean,
            sd_all=sd,
            n_tests=self._tested_join,
        )

    def _avoid_test(self, b: _Behaviour) -> dict[str, Any]:
        if b.joins < self.config.min_joins or self._join_n < 2 * self.config.min_joins:
            return {"p_adjusted": 1.0}
        return avoidance_test(
            joins=b.joins,
            with_strong=b.joins_with_strong,
            share_all=self._join_with_strong / self._join_n,
            n_tests=self._tested_join,
        )

    def _sweep(self, now: float) -> None:
        horizon = now - self.config.player_ttl
        seated = {p for t in self._tables.values() for p in t}
        for pid in [p for p, b in self._players.items() if b.last_seen < horizon and p not in seated]:
            b = self._players.pop(pid)
            self._pop_exp_other -= b.exp_other
            self._pop_looks_other -= b.looks_other
            self._pop_unplayed_other -= b.unplayed_other
            self._tested_look -= b.looks_strong >= 1
            self._pop_flights_other -= b.flights_other
            self._tested_flight -= b.exp_strong >= 1
            self._tested_join -= b.joins >= 1
        self.skills.expire(now)
