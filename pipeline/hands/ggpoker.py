"""GGPoker hand histories (text, as the client and PokerCraft export them) -> `hand.records` values.

GGPoker writes PokerStars' body format with its own header ("Poker Hand #HD123: Hold'em No Limit
($0.01/$0.02) - 2025/04/07 23:48:32", tournaments "Level12(200/400)"), anonymised opponents
("Dealt to 9db941d0" with no cards), thousands separators in chips, straddles and button blinds,
Rush & Cash / All-in or Fold / Spin & Gold / PKO tables, run it twice, EV cash-out lines and the
"| Jackpot | Bingo | Fortune | Tax" house takes in the total line, all read by the shared grammar.
"""

from __future__ import annotations

from pipeline.hands.stars_body import ParsedHand, parse_body
from pipeline.hands.stars_header import GG_PREFIX, parse_gg_header
from pipeline.hands.stars_record import build


def is_header(line: str) -> bool:
    """A line that starts a GGPoker hand."""
    return line.startswith("Poker Hand #") and GG_PREFIX.match(line) is not None


def parse_block(lines: list[str], start: int = 1) -> ParsedHand:
    """One hand's lines (first = header, numbered from `start`) -> record, chats, action lines."""
    return build(parse_body(lines, start, parse_gg_header))
