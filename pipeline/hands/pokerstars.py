"""PokerStars hand histories (text) -> `hand.records` values (JSON-ready dicts).

Our own line parser, not pokerkit's `HandHistory.from_pokerstars`: on the Pluribus files that one
repeats the turn card as the river and loses showdown cards and winnings, and it is ~10x slower.
The grammar is shared with GGPoker (`stars_lines.py`, `stars_body.py`); the header is PokerStars'
own (`stars_header.parse_ps_header`). Every game with a board is imported (hold'em, Omaha, hi/lo,
5- and 6-card Omaha, short deck; no-limit, pot-limit, fixed-limit; mixed-game hands by their game).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pipeline.hands.ids import safe_id
from pipeline.hands.stars_body import ParsedHand, parse_body
from pipeline.hands.stars_header import PS_PREFIX, parse_ps_header
from pipeline.hands.stars_record import build

__all__ = ["is_header", "parse_block", "parse_hand", "safe_id", "split_hands"]


def is_header(line: str) -> bool:
    """A line that starts a PokerStars hand."""
    return line.startswith("PokerStars ") and PS_PREFIX.match(line) is not None


def split_hands(text: str) -> Iterator[str]:
    """The hand blocks of a PokerStars history text, in order (tests and small inputs)."""
    block: list[str] = []
    for line in text.splitlines():
        if is_header(line) and block:
            yield "\n".join(block)
            block = []
        if line.strip() or block:
            block.append(line.rstrip())
    if block:
        yield "\n".join(block)


def parse_block(lines: list[str], start: int = 1) -> ParsedHand:
    """One hand's lines (first = header, numbered from `start`) -> record, chats, action lines."""
    return build(parse_body(lines, start, parse_ps_header))


def parse_hand(block: str, *, source: str = "ps") -> dict[str, Any]:
    """One hand block -> a hand.records value; `HandIntegrityError` with the line that breaks a rule."""
    del source  # ids are always prefixed 'ps-' (kept for callers of the old signature)
    return parse_block(block.splitlines()).record
