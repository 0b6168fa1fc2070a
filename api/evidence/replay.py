"""Turn a HandRecord (PHH JSON) into a readable replay: seats, cards, actions by street, pot, winners.

Pure and tolerant: it reads the JSON the detectors attached, never raises on odd input, and leaves
unknown cards as None rather than guessing.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

STREETS = ("preflop", "flop", "turn", "river")
VERBS = {"f": "folds", "cc": "checks/calls", "cbr": "bets/raises to", "sm": "shows", "sd": "discards"}


@dataclass(slots=True)
class Seat:
    """One player at the table."""

    seat: int
    player: str
    starting_stack: int
    finishing_stack: int | None
    winnings: int
    cards: str | None
    bounty: int | None
    eliminated: bool


@dataclass(slots=True)
class Street:
    """Board cards dealt on this street and the actions taken."""

    name: str
    board: list[str] = field(default_factory=list)
    actions: list[dict[str, Any]] = field(default_factory=list)
    pot: int = 0
    """Chips in the middle once this street's betting is over (what the replayer shows per step)."""


def replay(hand: dict[str, Any]) -> dict[str, Any]:
    """Readable structure for one hand record (see module docstring)."""
    players = [str(p) for p in hand.get("players", [])]
    n = len(players)
    seats_no = _maybe_ints(hand.get("seats"), n) or list(range(1, n + 1))
    starting = _ints(hand.get("starting_stacks"), n)
    finishing = _maybe_ints(hand.get("finishing_stacks"), n)
    winnings = _ints(hand.get("winnings"), n)
    bounties = hand.get("bounties") or {}
    eliminated = set(hand.get("eliminated") or [])
    cards: dict[int, str] = {}
    streets = [Street("preflop")]
    committed = _ints(hand.get("blinds_or_straddles"), n)
    street_bet = list(committed)
    pot = sum(_ints(hand.get("antes"), n))
    for raw in hand.get("actions", []):
        parts = str(raw).split(" #")[0].split()
        if len(parts) >= 3 and parts[:2] == ["d", "dh"]:
            cards[_index(parts[2])] = parts[3] if len(parts) > 3 else "??"
        elif len(parts) >= 3 and parts[:2] == ["d", "db"]:
            pot += sum(street_bet)
            streets[-1].pot = pot
            street_bet = [0] * n
            name = STREETS[min(len(streets), len(STREETS) - 1)]
            streets.append(Street(name, [parts[2][i:i + 2] for i in range(0, len(parts[2]), 2)]))
        elif parts and parts[0].startswith("p"):
            _player_action(parts, players, street_bet, cards, streets[-1])
    pot += sum(street_bet)
    streets[-1].pot = pot
    seats = [
        Seat(seats_no[i], players[i], starting[i], finishing[i] if finishing else None, winnings[i],
             cards.get(i + 1) if cards.get(i + 1, "??").count("?") == 0 else None,
             bounties.get(players[i]), players[i] in eliminated)
        for i in range(n)
    ]
    return {
        "hand_id": hand.get("hand_id"), "table_id": hand.get("table_id"),
        "tournament_id": hand.get("tournament_id"), "variant": hand.get("variant"),
        "ts": hand.get("ts"), "seats": [asdict(s) for s in seats],
        "streets": [asdict(s) for s in streets],
        "pot": sum(winnings) or pot,
        "winners": [players[i] for i in range(n) if winnings[i] > 0],
        "bounties": dict(bounties), "eliminated": sorted(eliminated),
        "blinds": [b for b in _ints(hand.get("blinds_or_straddles"), n) if b],
        "antes": [a for a in _ints(hand.get("antes"), n) if a],
    }


def _player_action(parts: list[str], players: list[str], street_bet: list[int], cards: dict[int, str],
                   street: Street) -> None:
    idx = _index(parts[0])
    if not 1 <= idx <= len(players):
        return
    verb = parts[1] if len(parts) > 1 else "?"
    amount: int | None = None
    if verb == "cbr" and len(parts) > 2 and parts[2].isdigit():
        amount = int(parts[2])
        street_bet[idx - 1] = amount
    elif verb == "cc":
        amount = max(street_bet) - street_bet[idx - 1]
        street_bet[idx - 1] = max(street_bet)
    elif verb == "sm" and len(parts) > 2:
        cards[idx] = parts[2]
    street.actions.append({"player": players[idx - 1], "action": VERBS.get(verb, verb), "amount": amount})


def _index(token: str) -> int:
    return int(token[1:]) if token[1:].isdigit() else 0


def _maybe_ints(value: Any, n: int) -> list[int] | None:
    if isinstance(value, list) and len(value) == n and all(isinstance(v, int) for v in value):
        return list(value)
    return None


def _ints(value: Any, n: int) -> list[int]:
    return _maybe_ints(value, n) or [0] * n
