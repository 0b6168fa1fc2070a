"""Generator of cash-game traffic (seat events + hand records) with planted bumhunters.

Population (stated in docs/seat-integrity.md): strong regulars (VPIP 0.22, PFR 0.18, win often),
average players (0.28/0.12) and weak players (0.50/0.05, lose often) at 6-max tables. Honest players
idle for ~25 minutes, join a random table with a free seat, sit out now and then, and leave at
random (mean stint 40 minutes), whoever arrives. A planted bumhunter plays like a regular but joins
the free seat at the table with the weakest seated players (only if a weak player sits there),
leaves 20-200 s after a strong player sits down (90 %), and leaves when no weak player is left.
Every player first plays `warmup_hands` hands so that the skill table knows them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from pipeline.contracts import HandRecord, SeatActivity
from tests.seat.seat_events import T0, seat

TICK = 30.0
SEATS = 6
PROFILES = {"strong": (0.22, 0.18, 1.6), "average": (0.28, 0.12, 1.0), "weak": (0.50, 0.05, 0.6)}


@dataclass(frozen=True)
class CashWorld:
    """Time-ordered events (hands and seat events), the planted bumhunters and the weak players."""

    events: list[SeatActivity | HandRecord]
    hunters: frozenset[str]
    weak: frozenset[str]


def hand(
    rng: random.Random, hid: str, table: str, players: list[str], kinds: dict[str, str], at: float
) -> HandRecord:
    """One legal PHH hand: an open-raise or limps preflop, then the strongest-drawn player bets the
    flop and everyone else folds (no showdown, so no cards are needed)."""
    n = len(players)
    order = list(range(n)) if n == 2 else [*range(2, n), 0, 1]
    put = [50, 100] + [0] * (n - 2)
    actions: list[str] = []
    live: list[int] = []
    raised = limped = False
    for i in order:
        if i == 1 and not live:
            break  # folded round to the big blind, who wins without acting
        vpip, pfr, _ = PROFILES[kinds[players[i]]]
        r = rng.random()
        if r < pfr and not raised and not limped:
            actions.append(f"p{i + 1} cbr 300")
            put[i], raised = 300, True
        elif r < vpip or (i == 1 and not raised):
            actions.append(f"p{i + 1} cc")
            put[i] = 300 if raised else 100
            limped = limped or not raised
        else:
            actions.append(f"p{i + 1} f")
            continue
        live.append(i)
    if len(live) < 2:
        winner = live[0] if live else 1
    else:
        actions.append("d db 7h8s9c")
        live.sort(reverse=n == 2)  # heads-up, the big blind acts first after the flop
        winner = rng.choices(live, weights=[PROFILES[kinds[players[i]]][2] for i in live])[0]
        at_w = live.index(winner)
        actions += [f"p{i + 1} cc" for i in live[:at_w]]
        actions.append(f"p{winner + 1} cbr 500")
        actions += [f"p{i + 1} f" for i in live[at_w + 1 :] + live[:at_w]]
    pot = sum(put)
    stacks = [10_000] * n
    finish = [s - c + (pot if i == winner else 0) for i, (s, c) in enumerate(zip(stacks, put, strict=True))]
    return HandRecord(
        event_id=f"ev-{hid}",
        ts=T0 + timedelta(seconds=at),
        hand_id=hid,
        table_id=table,
        game="cash",
        variant="NT",
        antes=[0] * n,
        blinds_or_straddles=[50, 100] + [0] * (n - 2),
        min_bet=100,
        starting_stacks=stacks,
        players=players,
        seats=list(range(1, n + 1)),
        actions=actions,
        finishing_stacks=finish,
        winnings=[],
    )


def simulate(
    rng: random.Random,
    *,
    n_strong: int = 30,
    n_average: int = 120,
    n_weak: int = 80,
    n_hunters: int = 6,
    tables: int = 40,
    hours: float = 24.0,
    warmup_hands: int = 150,
    hand_sample: float = 0.1,
    tag: str = "c",
) -> CashWorld:
    """A cash-game day with planted bumhunters; events sorted by time."""
    kinds: dict[str, str] = {}
    for kind, count in (("strong", n_strong), ("average", n_average), ("weak", n_weak)):
        for i in range(count):
            kinds[f"{tag}-{kind}{i}"] = kind
    hunters = {f"{tag}-hunter{i}" for i in range(n_hunters)}
    kinds.update(dict.fromkeys(hunters, "strong"))
    names = sorted(kinds)
    events: list[Any] = []
    for k in range(len(names) * warmup_hands // SEATS):
        events.append(
            hand(rng, f"{tag}-w{k}", f"{tag}-warm", rng.sample(names, SEATS), kinds, -3600.0 + k * 0.01)
        )
    state = _World(rng, kinds, hunters, tables, tag)
    t = 0.0
    while t < hours * 3600:
        events += state.tick(t, hand_sample)
        t += TICK
    weak = frozenset(p for p, k in kinds.items() if k == "weak")
    return CashWorld(sorted(events, key=lambda e: e.ts), frozenset(hunters), weak)


class _World:
    def __init__(
        self, rng: random.Random, kinds: dict[str, str], hunters: set[str], tables: int, tag: str
    ) -> None:
        self.rng, self.kinds, self.hunters, self.tag = rng, kinds, hunters, tag
        self.tables: dict[str, dict[str, int]] = {f"{tag}-t{i}": {} for i in range(tables)}
        self.where: dict[str, str] = {}
        self.hands: dict[str, int] = {}
        self.out: set[str] = set()
        self.leave_at: dict[str, float] = {}
        self.n = 0

    def ev(self, action: str, t: float, p: str, table: str, **kw: Any) -> SeatActivity:
        roster = self.tables[table]
        self.n += 1
        others_out = sum(1 for q in roster if q in self.out and q != p)
        return seat(
            action,
            t,
            player=p,
            table=table,
            seated=len(roster),
            others_out=others_out,
            event_id=f"{self.tag}-e{self.n}",
            seat_no=roster[p],
            **kw,
        )

    def tick(self, t: float, hand_sample: float) -> list[Any]:
        out: list[Any] = []
        rng = self.rng
        for p in list(self.kinds):
            at = t + rng.uniform(0, TICK)
            if p not in self.where:
                if rng.random() < (0.03 if p in self.hunters else 0.02):
                    table = self.pick(p)
                    if table is not None:
                        out += self.join(p, table, at)
                continue
            table = self.where[p]
            due = self.leave_at.get(p)
            if (due is not None and due <= at) or rng.random() < 1 / 80:
                out.append(self.leave(p, at))
            elif p in self.out and rng.random() < 0.3:
                self.out.discard(p)
                out.append(self.ev("sit_in", at, p, table))
            elif p not in self.out and rng.random() < 0.005:
                self.out.add(p)
                out.append(self.ev("sit_out", at, p, table))
        for table, roster in self.tables.items():
            live = [q for q in roster if q not in self.out]
            if len(live) >= 2:
                for q in roster:
                    self.hands[q] += 1
                if rng.random() < hand_sample:
                    self.n += 1
                    out.append(hand(rng, f"{self.tag}-h{self.n}", table, live, self.kinds, t + TICK - 1))
        return out

    def pick(self, p: str) -> str | None:
        free = [k for k, r in self.tables.items() if len(r) < SEATS]
        if p not in self.hunters:
            return self.rng.choice(free) if free else None
        weakest = [k for k in free if any(self.kinds[q] == "weak" for q in self.tables[k])]
        if not weakest:
            return None
        return min(
            weakest,
            key=lambda k: sum(PROFILES[self.kinds[q]][2] for q in self.tables[k]) / len(self.tables[k]),
        )

    def join(self, p: str, table: str, at: float) -> list[Any]:
        roster = self.tables[table]
        roster[p] = min(set(range(1, SEATS + 1)) - set(roster.values()))
        self.where[p] = table
        self.hands[p] = 0
        if self.kinds[p] == "strong":
            for q in roster:
                if q in self.hunters and q != p and self.rng.random() < 0.9:
                    self.leave_at[q] = min(self.leave_at.get(q, 1e18), at + self.rng.uniform(20, 200))
        return [self.ev("join", at, p, table)]

    def leave(self, p: str, at: float) -> SeatActivity:
        table = self.where.pop(p)
        ev = self.ev("leave", at, p, table, hands=self.hands.pop(p))
        del self.tables[table][p]
        self.out.discard(p)
        self.leave_at.pop(p, None)
        for q in self.tables[table]:
            if q in self.hunters and not any(self.kinds[r] == "weak" for r in self.tables[table]):
                self.leave_at.setdefault(q, at + self.rng.uniform(60, 240))
        return ev
