"""Generator of tournament seat traffic with planted collusive sit-outs (until simulator/ lands).

Honest behaviour (stated in docs/seat-integrity.md): each player sits out at their own Poisson rate
(0.2-1.5 per hour, 10-300 s, three times as often near the bubble), disconnects 0.2 per hour
(5-120 s), is moved in synchronised rebalancing batches every 20 minutes, busts out over the
tournament, and sits out with the whole field at hourly 5-minute breaks and at hand-for-hand pauses
on the bubble (game-server sit-outs spread over 3 s). A planted group of 2-3 players additionally
sits out together `together` times at random moments 10+ minutes apart, each member within `jitter` seconds.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from pipeline.contracts import SeatActivity
from pipeline.detectors.seat.sit_out import PayoutContext
from tests.seat.seat_events import seat

HOUR = 3600.0


@dataclass(frozen=True)
class Tournament:
    """Events (time-ordered), planted groups and the payout context of one simulated tournament."""

    tournament_id: str
    events: list[SeatActivity]
    groups: list[frozenset[str]]
    payout: PayoutContext
    players: list[str] = field(default_factory=list)


def simulate(
    rng: random.Random,
    *,
    tid: str = "mtt1",
    n_players: int = 300,
    hours: float = 4.0,
    groups: tuple[int, ...] = (2, 2, 3),
    together: int = 6,
    jitter: float = 3.0,
) -> Tournament:
    """One tournament's seat events with `groups` planted (sizes) and an honest field otherwise."""
    players = [f"{tid}-p{i}" for i in range(n_players)]
    end = hours * HOUR
    paid = max(3, n_players * 15 // 100)
    busts = sorted(rng.uniform(0.1 * end, end) for _ in range(n_players - 9))
    order = players[:]
    rng.shuffle(order)
    planted: list[list[str]] = []
    cursor = 0
    for size in groups:
        planted.append(order[cursor : cursor + size])
        cursor += size
    colluders = {p for g in planted for p in g}
    bust_at: dict[str, float] = {}
    busters = [p for p in order if p not in colluders]
    for p, t in zip(busters, busts, strict=False):
        bust_at[p] = t
    bubble = busts[n_players - paid - 1] if n_players - paid - 1 < len(busts) else end
    breaks = [h * HOUR - 300 for h in range(1, int(hours) + 1) if h * HOUR - 300 < end]
    h4h = [bubble - 60 * k for k in range(1, 6)]
    away: dict[str, list[tuple[float, float, str]]] = {p: [] for p in players}
    honest: dict[str, list[tuple[float, float, str]]] = {p: [] for p in players}
    for p in players:
        last = bust_at.get(p, end)
        for b in breaks:
            if b < last:
                away[p].append((b + rng.uniform(0, 3), b + 300 + rng.uniform(0, 10), "sit_out"))
        for h in h4h:
            if h < last:
                away[p].append((h + rng.uniform(0, 3), h + rng.uniform(20, 40), "sit_out"))
    for g in planted:
        used: list[float] = []
        for _ in range(together):
            t0 = _free_moment(rng, end, breaks, [*h4h, *used])
            used.append(t0)
            for p in g:
                s = t0 + rng.uniform(0, jitter)
                away[p].append((s, s + rng.uniform(60, 180), "sit_out"))
    for p in players:
        last = bust_at.get(p, end)
        rate = rng.uniform(0.2, 1.5) / HOUR
        honest[p] += _poisson_intervals(rng, rate, last, bubble, (10, 300), "sit_out")
        honest[p] += _poisson_intervals(rng, 0.2 / HOUR, last, bubble, (5, 120), "disconnect")
    table = {p: f"{tid}-t{i // 9}" for i, p in enumerate(players)}
    moves = _moves(rng, players, end, bust_at)
    events = _events(rng, tid, players, table, away, honest, moves, bust_at, end)
    payout = PayoutContext(paid_places=paid, pay_jumps=(9,))
    return Tournament(tid, events, [frozenset(g) for g in planted], payout, players)


def _free_moment(rng: random.Random, end: float, breaks: list[float], h4h: list[float]) -> float:
    while True:
        t = rng.uniform(0.05 * end, 0.95 * end)
        if all(abs(t - b) > 420 for b in breaks) and all(abs(t - h) > 600 for h in h4h):
            return t


def _poisson_intervals(
    rng: random.Random, rate: float, last: float, bubble: float, length: tuple[float, float], kind: str
) -> list[tuple[float, float, str]]:
    out: list[tuple[float, float, str]] = []
    t = 0.0
    while True:
        boost = 3.0 if abs(t - bubble) < 900 else 1.0
        t += rng.expovariate(rate * boost)
        if t >= last:
            return out
        out.append((t, t + rng.uniform(*length), kind))


def _moves(
    rng: random.Random, players: list[str], end: float, bust_at: dict[str, float]
) -> dict[str, list[float]]:
    moves: dict[str, list[float]] = {p: [] for p in players}
    t = 1200.0
    while t < end:
        alive = [p for p in players if bust_at.get(p, end) > t + 5]
        for p in rng.sample(alive, k=max(1, len(alive) // 20)):
            moves[p].append(t + rng.uniform(0, 2))
        t += 1200.0
    return moves


def _events(
    rng: random.Random,
    tid: str,
    players: list[str],
    table: dict[str, str],
    away: dict[str, list[tuple[float, float, str]]],
    honest: dict[str, list[tuple[float, float, str]]],
    moves: dict[str, list[float]],
    bust_at: dict[str, float],
    end: float,
) -> list[SeatActivity]:
    rows: list[tuple[float, str, str, str]] = []
    for p in players:
        last = bust_at.get(p, end)
        tab = table[p]
        rows.append((0.0, p, "join", tab))
        kept = _non_overlapping([], away[p], last)
        kept = sorted(_non_overlapping(kept, honest[p], last))
        for s, e, kind in kept:
            rows.append((s, p, kind, tab))
            rows.append((e, p, "sit_in" if kind == "sit_out" else "reconnect", tab))
        for i, m in enumerate(moves[p]):
            if m < last - 5:
                rows.append((m, p, "leave", tab))
                tab = f"{tid}-m{i}-{rng.randrange(40)}"
                rows.append((m + 2, p, "join", tab))
        if p in bust_at:
            rows.append((last, p, "leave", tab))
    rows.sort(key=lambda r: r[0])
    return [
        seat(a, t, player=p, table=tab, game="tournament", tournament=tid, seated=9, level="mtt-l1")
        for t, p, a, tab in rows
    ]


def _non_overlapping(
    kept: list[tuple[float, float, str]], extra: list[tuple[float, float, str]], last: float
) -> list[tuple[float, float, str]]:
    """Add intervals that keep 1 s clear of every kept one: planned sit-outs win over honest ones."""
    out = list(kept)
    for s, e, kind in sorted(extra):
        e = min(e, last - 0.5)
        if s < e and all(e + 1 < a or s > b + 1 for a, b, _ in out):
            out.append((s, e, kind))
    return out
