"""`seat.activity` from hand-history files: what consecutive hands of one table show.

A history file has no seat events, only hands. Between two observed hands of a table the tracker
derives them: a player in a hand and not in the previous one joined (`join`, at the hand's time), a
player gone from it left (`leave`, at the time of the LAST hand they were in: the file does not say
when they stood up, only that they were not dealt the next hand); a seat line "is sitting out" after
one dealt in is `sit_out`, dealt in again after it `sit_in`; the hand's own lines ("X: sits out",
"X has returned", "X is disconnected", "X has reconnected", "X has timed out", "X leaves the table",
"X joins the table", "X was removed from the table") give the change at the hand's time plus a
millisecond per line. `hands_played_at_table` counts the hands the player was dealt into since the
join; `players_seated` and `others_sitting_out` come from the hand's seat lines.

What a history cannot show, and how the tracker stays on the safe side of it:
- Players already seated at the first hand seen of a table sat down at an unknown time and played an
  unknown number of hands: no `join` is made for them, and at a cash table no `leave` either (a
  leave needs its join: hit-and-run must never judge a stint it did not see start).
- A gap in the observation (more than `gap_seconds` between two hands of a table, a hand older
  than the last one seen, or a hand of that table that could not be parsed) may hide hands, joins
  and leaves: the next hand is treated like a first one (every stint open before the gap is left
  without its leave), so no hand count is ever an undercount.
- A join and a leave both between two observed hands (a player who sat down and left without being
  dealt in) are invisible; so is the end of the file: the players of a table's last hand get no
  leave (counted in `open_stints`).
- Fast-fold pools (PokerStars Zoom, GGPoker Rush & Cash) seat new players every hand: no seat events.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from pipeline.hands.ids import safe_id
from pipeline.hands.stars_body import Body

GAP_SECONDS = 300.0
"""More time than this between two hands of a table: hands may have been missed (the history's
owner away from the table), so the observation starts again."""
_VARIANTS = {"NT": "nlhe", "PO": "plo", "PO5": "plo5", "NS": "short_deck"}
_CURRENCIES = {"$": "usd", "€": "eur", "£": "gbp", "¥": "yen", "₹": "inr"}


@dataclass(slots=True)
class _Player:
    seat: int
    joined: bool
    """Its join was seen (and emitted): the stint's hands are all counted."""
    hands: int = 0
    sitting_out: bool = False
    disconnected: bool = False


@dataclass(slots=True)
class _Table:
    epoch: float
    ts: str
    players: dict[str, _Player] = field(default_factory=dict)


def _level(body: Body) -> str:
    head = body.header
    if head.tournament and head.level:
        return safe_id(f"level-{head.level}")
    stakes = "-".join(f"{v / 100:g}" for v in (head.small, head.big) if v is not None) or "0"
    money = _CURRENCIES.get(head.currency, "chips")
    return safe_id(f"{head.variant.replace('/', '8')}-{money}-{stakes}")


@dataclass(slots=True)
class SeatTracker:
    """Derives `seat.activity` values hand by hand; one tracker for a whole import run (a table's
    hands may continue in the next file). Hands must come in time order per table."""

    gap_seconds: float = GAP_SECONDS
    counts: Counter[str] = field(default_factory=Counter)
    _tables: dict[tuple[str, str, str], _Table] = field(default_factory=dict)

    def broken(self, source: str, table: str) -> None:
        """A hand of this table could not be read: what follows is a new observation."""
        for key in [k for k in self._tables if k[0] == source and k[2] == table]:
            self._restart(key)

    def open_stints(self) -> int:
        """Players of the tables' last hands: their leave, if any, is not in the files."""
        return sum(len(t.players) for t in self._tables.values())

    def _restart(self, key: tuple[str, str, str]) -> None:
        table = self._tables.pop(key)
        self.counts["observation_gaps"] += 1
        self.counts["stints_without_leave"] += sum(p.joined for p in table.players.values())

    def observe(self, body: Body) -> list[dict[str, Any]]:
        """The seat events hand `body` shows against the table's previous hand, in event order."""
        head = body.header
        if head.fast_fold:
            return []
        key = (head.source, head.tournament or "", body.table)
        now = datetime.fromisoformat(head.ts)
        epoch = now.timestamp()
        table = self._tables.get(key)
        if table is not None and not 0 <= epoch - table.epoch <= self.gap_seconds:
            self._restart(key)
            table = None
        emit = _Emitter(body)
        present = {**{n: (s, False) for n, s in body.seats.items()}, **body.absent}
        if table is None:
            table = self._tables[key] = _Table(epoch, head.ts)
            for name, (seat, out) in present.items():
                table.players[name] = _Player(seat, joined=False, sitting_out=out)
        else:
            self._changes(table, present, emit, head.ts)
        for name in body.seats:
            table.players[name].hands += 1
        for k, (name, action, seat) in enumerate(body.seat_notes, start=1):
            self._note(table, name, action, seat, emit, (now + timedelta(milliseconds=k)).isoformat())
        table.epoch, table.ts = epoch, head.ts
        self.counts["events"] += len(emit.out)
        return emit.out

    def _changes(self, table: _Table, present: dict[str, tuple[int, bool]], emit: _Emitter, ts: str) -> None:
        before = len(table.players)
        gone = [n for n in table.players if n not in present]
        for name in gone:
            # Counted as the leaver left the table: the last hand they were in, at its time.
            leaver = table.players[name]
            if leaver.joined or emit.tournament:
                emit.event(name, leaver, "leave", table.ts, before, _others_out(table, name))
            else:
                self.counts["leaves_without_join"] += 1
        for name in gone:
            del table.players[name]
        for name, (seat, out) in present.items():
            p = table.players.get(name)
            if p is None:
                p = table.players[name] = _Player(seat, joined=True)
                emit.event(name, p, "join", ts, len(present), _others_out(table, name))
            p.seat = seat
            if out and not p.sitting_out:
                p.sitting_out = True
                emit.event(name, p, "sit_out", ts, len(present), _others_out(table, name))
            elif not out and p.sitting_out:
                p.sitting_out = False
                emit.event(name, p, "sit_in", ts, len(present), _others_out(table, name))

    def _note(self, table: _Table, name: str, action: str, seat: int, emit: _Emitter, ts: str) -> None:
        p = table.players.get(name)
        seated = len(table.players)
        if action == "join":
            if p is None:
                p = table.players[name] = _Player(seat, joined=True)
                emit.event(name, p, action, ts, seated + 1, _others_out(table, name))
            return
        if p is None:
            self.counts["note_for_unseated"] += 1
            return
        if action in ("leave", "sit_out_timeout_removal"):
            del table.players[name]
            if p.joined or emit.tournament:
                emit.event(name, p, action, ts, seated, _others_out(table, name))
            return
        flag = "sitting_out" if action in ("sit_out", "sit_in") else "disconnected"
        going = action in ("sit_out", "disconnect")
        if getattr(p, flag) == going:
            return  # already so (the seat line or an earlier line said it)
        setattr(p, flag, going)
        emit.event(name, p, action, ts, seated, _others_out(table, name))


def _others_out(table: _Table, name: str) -> int:
    return sum(q.sitting_out for n, q in table.players.items() if n != name)


class _Emitter:
    """Builds the `seat.activity` values of one hand. The fields every event of the hand shares
    are made at its first event: most hands of a table show none."""

    __slots__ = ("_base", "body", "out", "tournament")

    def __init__(self, body: Body) -> None:
        self.body = body
        self.tournament = bool(body.header.tournament)
        self._base: dict[str, Any] | None = None
        self.out: list[dict[str, Any]] = []

    def _shared(self) -> dict[str, Any]:
        body = self.body
        head = body.header
        bounty = bool(body.head_bounty or body.knocked_out or head.bounty_event)
        base: dict[str, Any] = {
            "table_id": safe_id(body.table),
            "game": "tournament" if head.tournament else "cash",
            "format": "bounty" if head.tournament and bounty else "regular",
            "variant": _VARIANTS.get(head.variant, "other"),
            "blind_level": _level(body),
        }
        if head.tournament:
            base["tournament_id"] = f"{head.source}-t{head.tournament}"
        return base

    def event(self, name: str, p: _Player, action: str, ts: str, seated: int, others_out: int) -> None:
        if self._base is None:
            self._base = self._shared()
        head = self.body.header
        seated = max(1, min(seated, 10))
        value = {
            "event_id": f"{head.source}-{head.hand}-seat-{len(self.out) + 1}",
            "ts": ts,
            "player_id": safe_id(name),
            **self._base,
            "seat": max(1, min(p.seat or 1, 10)),
            "action": action,
            "hands_played_at_table": p.hands,
            "players_seated": seated,
            "others_sitting_out": min(others_out, seated - 1),
        }
        self.out.append(value)
