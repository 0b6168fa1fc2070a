"""PokerStars-format hand histories (text) -> `hand.records` values (JSON-ready dicts).

Our own line parser, not pokerkit's `HandHistory.from_pokerstars`: on the Pluribus files that one
repeats the turn card as the river and loses showdown cards and winnings, and it is ~10x slower.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from pipeline.hands.errors import HandIntegrityError

HEADER = re.compile(
    r"^PokerStars (?:Game|Hand) #(?P<hand>\d+):\s*(?:Tournament #(?P<tournament>\d+),\s*(?P<buyin>[^H]*?)\s*)?"
    r"(?P<game>Hold'em No Limit|[^(\-]+?)\s*(?:- Level [^(]*)?\((?P<blinds>[^)]*)\)[^-]*-\s*"
    r"(?P<date>\d{4}/\d{2}/\d{2} \d{1,2}:\d{2}:\d{2})\s*(?P<tz>[A-Z]+)?"
)
TABLE = re.compile(r"^Table '(?P<table>[^']+)'.*?Seat #(?P<button>\d+) is the button")
SEAT = re.compile(r"^Seat (?P<seat>\d+): (?P<name>.+?) \((?P<chips>[$€£]?[\d.,]+) in chips(?:, (?P<bounty>[$€£]?[\d.,]+) bounty)?\)(?P<out> is sitting out)?")
POST = re.compile(r"^(?P<name>.+?): posts (?P<what>small blind|big blind|the ante|small & big blinds) (?P<amt>[$€£]?[\d.,]+)")
DEALT = re.compile(r"^Dealt to (?P<name>.+?) \[(?P<cards>[^\]]+)\]")
ACTION = re.compile(
    r"^(?P<name>.+?): (?P<verb>folds|checks|calls|bets|raises)(?: (?P<a>[$€£]?[\d.,]+))?(?: to (?P<b>[$€£]?[\d.,]+))?"
)
SHOWS = re.compile(r"^(?P<name>.+?): shows \[(?P<cards>[^\]]+)\]")
SUMMARY_SHOW = re.compile(r"^Seat \d+: (?P<name>.+?) (?:\([^)]*\) )?(?:showed|mucked) \[(?P<cards>[^\]]+)\]")
BOARD = re.compile(r"^\*\*\* (?P<street>FLOP|TURN|RIVER) \*\*\* (?:\[[^\]]*\] )*\[(?P<cards>[^\]]+)\]$")
UNCALLED = re.compile(r"^Uncalled bet \((?P<amt>[$€£]?[\d.,]+)\) returned to (?P<name>.+)$")
COLLECTED = re.compile(r"^(?P<name>.+?) collected (?P<amt>[$€£]?[\d.,]+) from (?:side |main )?pot")
RAKE = re.compile(r"^Total pot .*\| Rake (?P<rake>[$€£]?[\d.,]+)")
ELIMINATED = re.compile(r"^(?P<winner>.+?) wins (?:the )?[$€£]?[\d.,]+ (?:bounty )?for eliminating (?P<loser>.+?)(?: and|$)")
ID_UNSAFE = re.compile(r"[^A-Za-z0-9_.:@\-]")
TIMEZONES = {"ET": -5, "EST": -5, "EDT": -4, "UTC": 0, "GMT": 0, "CET": 1, "CEST": 2, "MSK": 3}


def split_hands(text: str) -> Iterator[str]:
    """The hand blocks of a PokerStars history file, in order."""
    block: list[str] = []
    for line in text.splitlines():
        if line.startswith(("PokerStars Hand #", "PokerStars Game #")) and block:
            yield "\n".join(block)
            block = []
        if line.strip() or block:
            block.append(line.rstrip())
    if block:
        yield "\n".join(block)


def safe_id(text: str) -> str:
    """A contract-safe id from a free-form name (table names, screen names with spaces)."""
    cleaned = ID_UNSAFE.sub("_", text.strip())[:128]
    return cleaned if cleaned and cleaned[0].isalnum() else f"x{cleaned}"[:128]


def _amount(text: str) -> Decimal:
    try:
        return Decimal(text.lstrip("$€£").replace(",", ""))
    except InvalidOperation:
        raise HandIntegrityError("parse_error", f"not an amount: {text!r}") from None


def _cards(text: str) -> str:
    return "".join(text.split())


def parse_hand(block: str, *, source: str = "ps") -> dict[str, Any]:
    """One hand block -> a hand.records value; `HandIntegrityError('parse_error')` if malformed."""
    lines = block.splitlines()
    head = HEADER.match(lines[0]) if lines else None
    if head is None:
        raise HandIntegrityError("parse_error", f"not a PokerStars hand header: {lines[0][:80] if lines else ''!r}")
    if "Hold'em No Limit" not in head["game"]:
        raise HandIntegrityError("unknown_variant", f"game {head['game'].strip()!r} is not no-limit hold'em")
    table = TABLE.match(lines[1]) if len(lines) > 1 else None
    if table is None:
        raise HandIntegrityError("parse_error", "missing table line")
    return _Builder(head, table, source).build(lines[2:])


class _Builder:
    """Accumulates one hand's lines into PHH fields; private to this module."""

    def __init__(self, head: re.Match[str], table: re.Match[str], source: str) -> None:
        self.head, self.table, self.source = head, table, source
        self.seats: dict[str, int] = {}
        self.stacks: dict[str, Decimal] = {}
        self.bounties: dict[str, Decimal] = {}
        self.antes: dict[str, Decimal] = {}
        self.blinds: dict[str, Decimal] = {}
        self.holes: dict[str, str] = {}
        self.street_bets: dict[str, Decimal] = {}
        self.body: list[tuple[str, str, str]] = []  # (kind, name-or-"", payload)
        self.collected: dict[str, Decimal] = {}
        self.returned: dict[str, Decimal] = {}
        self.shown: dict[str, str] = {}
        self.eliminated: list[str] = []
        self.rake = Decimal(0)

    def build(self, lines: list[str]) -> dict[str, Any]:
        for line in lines:
            self._line(line)
        if len(self.seats) < 2:
            raise HandIntegrityError("parse_error", "fewer than two seated players")
        return self._record()

    def _line(self, line: str) -> None:
        if m := SEAT.match(line):
            if not m["out"] and "SUMMARY" not in line:
                self.seats[m["name"]] = int(m["seat"])
                self.stacks[m["name"]] = _amount(m["chips"])
                if m["bounty"]:
                    self.bounties[m["name"]] = _amount(m["bounty"])
        elif m := POST.match(line):
            target = self.antes if m["what"] == "the ante" else self.blinds
            target[m["name"]] = target.get(m["name"], Decimal(0)) + _amount(m["amt"])
        elif m := DEALT.match(line):
            self.holes[m["name"]] = _cards(m["cards"])
        elif m := BOARD.match(line):
            self.body.append(("board", "", _cards(m["cards"])))
        elif m := UNCALLED.match(line):
            self.returned[m["name"]] = self.returned.get(m["name"], Decimal(0)) + _amount(m["amt"])
        elif m := COLLECTED.match(line):
            self.collected[m["name"]] = self.collected.get(m["name"], Decimal(0)) + _amount(m["amt"])
        elif m := SHOWS.match(line):
            self.shown[m["name"]] = _cards(m["cards"])
        elif m := SUMMARY_SHOW.match(line):
            self.shown.setdefault(m["name"], _cards(m["cards"]))
        elif m := RAKE.match(line):
            self.rake = _amount(m["rake"])
        elif m := ELIMINATED.match(line):
            self.eliminated.append(m["loser"])
        elif m := ACTION.match(line):
            self.body.append((m["verb"], m["name"], m["b"] or m["a"] or ""))

    def _order(self) -> list[str]:
        """Players in PHH order: first seat after the button, the button last."""
        button = int(self.table["button"])
        return sorted(self.seats, key=lambda p: (self.seats[p] - button - 1) % 100)

    def _record(self) -> dict[str, Any]:
        order = self._order()
        amounts = [*self.stacks.values(), *self.blinds.values(), *self.antes.values(), *self.collected.values(), self.rake]
        scale = 100 if any(a != a.to_integral_value() for a in amounts) else 1  # cents for cash amounts
        chips = {p: int(self.stacks[p] * scale) for p in order}
        index = {p: i + 1 for i, p in enumerate(order)}
        actions = [f"d dh p{index[p]} {self.holes.get(p, '????')}" for p in order]
        self.street_bets = {p: self.blinds.get(p, Decimal(0)) for p in order}
        for kind, name, payload in self.body:
            if kind == "board":
                actions.append(f"d db {payload}")
                self.street_bets = dict.fromkeys(order, Decimal(0))
            elif name in index:
                actions.append(self._action(index[name], kind, name, payload, scale))
        for p in order:
            if p in self.shown:
                actions.append(f"p{index[p]} sm {self.shown[p]}")
        won = [int(self.collected.get(p, Decimal(0)) * scale) for p in order]
        committed = self._committed(order, actions, scale)
        hand = self.head["hand"]
        tournament = self.head["tournament"]
        record: dict[str, Any] = {
            "event_id": f"{self.source}-{hand}",
            "ts": _timestamp(self.head["date"], self.head["tz"]),
            "hand_id": f"{self.source}-{hand}",
            "table_id": safe_id(self.table["table"]),
            "game": "tournament" if tournament else "cash",
            "variant": "NT",
            "antes": [int(self.antes.get(p, Decimal(0)) * scale) for p in order],
            "blinds_or_straddles": [int(self.blinds.get(p, Decimal(0)) * scale) for p in order],
            "min_bet": max(1, max(int(b * scale) for b in [*self.blinds.values(), Decimal(0)])),
            "starting_stacks": [chips[p] for p in order],
            "players": [safe_id(p) for p in order],
            "seats": [self.seats[p] for p in order],
            "actions": actions,
            "finishing_stacks": [chips[p] - committed[i] + won[i] for i, p in enumerate(order)],
            "winnings": won,
            "rake": int(self.rake * scale),
        }
        if tournament:
            record["tournament_id"] = f"{self.source}-t{tournament}"
            record["bounties"] = {safe_id(p): int(v * scale) for p, v in self.bounties.items() if p in index}
            record["eliminated"] = [safe_id(p) for p in self.eliminated if p in index]
        return record

    def _action(self, seat: int, kind: str, name: str, payload: str, scale: int) -> str:
        if kind == "folds":
            return f"p{seat} f"
        if kind in ("checks", "calls"):
            if kind == "calls":
                self.street_bets[name] = self.street_bets.get(name, Decimal(0)) + _amount(payload)
            return f"p{seat} cc"
        if kind == "bets":
            self.street_bets[name] = _amount(payload)
        else:
            self.street_bets[name] = _amount(payload)  # "raises X to Y": Y is the street total
        return f"p{seat} cbr {int(self.street_bets[name] * scale)}"

    def _committed(self, order: list[str], actions: list[str], scale: int) -> list[int]:
        """Chips each player put in, net of returned bets, by summing posts and street totals."""
        total = {p: self.antes.get(p, Decimal(0)) for p in order}
        bets = {p: self.blinds.get(p, Decimal(0)) for p in order}
        for kind, name, payload in self.body:
            if kind == "board":
                for p in order:
                    total[p] += bets[p]
                bets = dict.fromkeys(order, Decimal(0))
            elif name in bets and kind == "calls":
                bets[name] += _amount(payload)
            elif name in bets and kind in ("bets", "raises"):
                bets[name] = _amount(payload)
        for p in order:
            total[p] += bets[p] - self.returned.get(p, Decimal(0))
        return [int(total[p] * scale) for p in order]


def _timestamp(text: str, tz: str | None) -> str:
    naive = datetime.strptime(text, "%Y/%m/%d %H:%M:%S")
    offset = TIMEZONES.get(tz or "UTC", 0)
    return (naive - timedelta(hours=offset)).replace(tzinfo=UTC).isoformat()
