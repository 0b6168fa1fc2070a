"""A parsed PokerStars-style hand body -> the `hand.records` value (PHH fields) and its chat lines."""

from __future__ import annotations

from bisect import bisect_right
from datetime import datetime, timedelta
from operator import itemgetter
from typing import Any

from pipeline.hands.errors import HandIntegrityError
from pipeline.hands.ids import safe_id
from pipeline.hands.stars_body import ZERO, Body, ParsedHand
from pipeline.hands.variants import VARIANTS

CENTS = 100
_STEP_AMOUNT = itemgetter(2)
"""The amount of a `Body.steps` entry."""


def build(body: Body) -> ParsedHand:
    """The record, chats and action lines of a parsed hand; wrong totals are rejected here."""
    head = body.header
    order = _from_button(body.seats, body.button)
    index = dict(zip(order, _TOKENS, strict=False)) if len(order) <= len(_TOKENS) else {p: f"p{i + 1}" for i, p in enumerate(order)}
    """Each player's PHH token ('p3')."""
    scale = _scale(body)
    unknown = ("?" * 2 * VARIANTS[head.variant].hole, body.start)
    actions: list[str] = []
    lines: list[int] = []
    for p in order:
        cards, line = body.holes.get(p, unknown)
        actions.append(f"d dh {index[p]} {cards}")
        lines.append(line)
    # Per player in `order` (posts come only from players dealt in: `stars_body._verb`).
    street = dict.fromkeys(order, ZERO) | body.blinds
    committed = dict.fromkeys(order, ZERO) | body.antes
    for kind, name, value, line in body.steps:
        if kind == "board":
            actions.append(f"d db {name}")
            for p in order:
                committed[p] += street[p]
            street = dict.fromkeys(order, ZERO)
        elif kind == "fold":
            actions.append(f"{index[name]} f")
        elif kind in ("check", "call"):
            street[name] += value
            actions.append(f"{index[name]} cc")
        else:
            street[name] = value  # a bet is the street total, "raises X to Y" gives Y
            actions.append(f"{index[name]} cbr {_chips(value, scale, line)}")
        lines.append(line)
    for p in order:
        committed[p] += street[p] - body.returned.get(p, ZERO)
    for p in order:
        if p in body.shown:
            actions.append(f"{index[p]} sm {body.shown[p][0]}")
            lines.append(body.shown[p][1])
    record = _record(body, order, scale, committed, actions)
    parsed = ParsedHand(record, _chats(body, order), lines, body.start, body.end, body.junk, body=body)
    parsed.total_error = _check_total(body, sum(committed.values()))
    return parsed


_TOKENS = tuple(f"p{i}" for i in range(1, 21))
"""PHH player tokens, formatted once: a hand has at most 10 players (the contract rejects more)."""


def _from_button(seats: dict[str, int], button: int) -> list[str]:
    """Players in PHH order: by seat, starting after the button (`(seat - button - 1) % 100`)."""
    ranked = sorted(seats, key=seats.__getitem__)
    cut = bisect_right(sorted(seats.values()), button)
    return ranked[cut:] + ranked[:cut]


def _scale(body: Body) -> int:
    """Divisor from hundredths to the record's unit: cents for cash, whole chips when they suffice."""
    if body.header.currency:
        return 1  # cash amounts are kept in cents, whatever the stake
    amounts = [*body.stacks.values(), *body.blinds.values(), *body.antes.values(), *body.collected.values(), body.house,
               *map(_STEP_AMOUNT, body.steps)]
    return 1 if any(map(CENTS.__rmod__, amounts)) else CENTS  # a % CENTS for each, in C


def _chips(value: int, scale: int, line: int) -> int:
    units, rest = divmod(value, scale)
    if rest:
        raise HandIntegrityError("parse_error", f"line {line}: amount {value / 100} is finer than the hand's unit")
    return units


def _units(values: list[int], scale: int, line: int) -> list[int]:
    """`_chips` of each value, in order: one call per field instead of one per player (this runs
    for every list field of every hand imported); the first value finer than the unit raises."""
    if scale == 1:
        return values
    units = [v // scale for v in values]
    # Each v - (v // scale) * scale is in [0, scale), so the sums agree only when every value
    # divides: one check in C instead of a generator over the values.
    if sum(values) != sum(units) * scale:
        for v in values:
            _chips(v, scale, line)
    return units


def _check_total(body: Body, pot: int) -> HandIntegrityError | None:
    """The summary's total against the bets; judged after the replay, whose reasons are sharper."""
    if body.total_pot is None:
        return None
    total, line = body.total_pot
    if total == pot:
        return None
    return HandIntegrityError(
        "chips_not_conserved", f"line {line}: 'Total pot {total / 100:g}' but the hand's bets add up to {pot / 100:g}"
    )


def _record(body: Body, order: list[str], scale: int, committed: dict[str, int], actions: list[str]) -> dict[str, Any]:
    head = body.header
    hand_id = f"{head.source}-{head.hand}"
    zeros = [ZERO] * len(order)
    # Fields in `order` read in C (map, dict views in `order`'s key order), not by comprehensions.
    chips = _units(list(map(body.stacks.__getitem__, order)), scale, body.start)
    won = _units(list(map(body.collected.get, order, zeros)), scale, body.start)
    spent = _units(list(committed.values()), scale, body.start)
    blinds = _units(list(map(body.blinds.get, order, zeros)), scale, body.start)
    fixed = head.variant.startswith("F")
    unit = head.small if fixed else head.big
    min_bet = _chips(unit, scale, body.start) if unit else max([*blinds, 1])
    antes = _units(list(map(body.antes.get, order, zeros)), scale, body.start)
    record: dict[str, Any] = {
        "event_id": hand_id,
        "ts": head.ts,
        "hand_id": hand_id,
        "table_id": safe_id(body.table),
        "game": "tournament" if head.tournament else "cash",
        "variant": head.variant,
        "antes": antes,
        "blinds_or_straddles": blinds,
        "min_bet": max(1, min_bet),
        "starting_stacks": chips,
        "players": [safe_id(p) for p in order],
        "seats": [body.seats[p] for p in order],
        "actions": actions,
        "finishing_stacks": [c - s + w for c, s, w in zip(chips, spent, won, strict=True)],
        "winnings": won,
        "rake": _chips(body.house, scale, body.start),
    }
    if body.run_count > 1:
        record["run_count"] = body.run_count
    if head.level:
        record["blind_level"] = safe_id(f"level-{head.level}")
    if head.tournament:
        record["tournament_id"] = f"{head.source}-t{head.tournament}"
        # Bounties are prize money, kept in cents whatever the chip unit.
        heads = {**body.head_bounty, **body.knocked_out}
        if head.bounty_event:
            # A bounty on every head, its amount not written (GGPoker): 0 marks "unknown amount", so
            # the bounty detector sees a bounty hand and no prize is invented.
            heads = dict.fromkeys(order, 0) | heads
        record["bounties"] = {safe_id(p): v for p, v in heads.items() if p in body.seats}
        # Knocked out: named by a bounty or place line, or left with no chips at the end of the hand.
        busted = {p for i, p in enumerate(order) if record["finishing_stacks"][i] == 0}
        out = [p for p in order if p in body.knocked_out or body.places.get(p, 1) > 1 or p in busted]
        record["eliminated"] = [safe_id(p) for p in out]
        if body.bounty_won:
            record["bounties_won"] = {safe_id(p): v for p, v in body.bounty_won.items() if p in body.seats}
        if body.places:
            record["places"] = {safe_id(p): v for p, v in body.places.items() if p in body.seats}
    return record


def _chats(body: Body, order: list[str]) -> list[dict[str, Any]]:
    """Chat lines as `chat.messages` values: the running hand and who was dealt in come along."""
    if not body.chats:
        return []
    head = body.header
    hand_id = f"{head.source}-{head.hand}"
    start = datetime.fromisoformat(head.ts)
    players = [safe_id(p) for p in order]
    out = []
    for k, (_line, name, text) in enumerate(body.chats, start=1):
        value: dict[str, Any] = {
            "event_id": f"{hand_id}-chat-{k}",
            # The file gives no time per line: a millisecond apart keeps their order within the hand.
            "ts": (start + timedelta(milliseconds=k)).isoformat(),
            "channel": "table",
            "player_id": safe_id(name),
            "nickname": name[:64],
            "text": text[:2000],
            "client": "desktop",
            "table_id": safe_id(body.table),
            "hand_id": hand_id,
            "players_in_hand": players,
        }
        if head.tournament:
            value["tournament_id"] = f"{head.source}-t{head.tournament}"
        out.append(value)
    return out
