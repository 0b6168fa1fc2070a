"""The header's fixed part is read once per table (`stars_header._ps_fixed` / `_gg_fixed`): every
header must come out exactly as the full reading gives it, value or error, including headers made
to sit on the edges of that shortcut (a game name ending on the date's first digit, a game or a
level only after the date, a tournament number running into the date, no stakes, bad amounts)."""

from __future__ import annotations

import itertools

import pytest

from pipeline.hands import stars_header as h
from pipeline.hands.errors import HandIntegrityError

GG_BODIES = [
    "Hold'em No Limit ($0.05/$0.1) - {d}",
    "PLO ($0.05/$0.1) - {d}",
    "PLO-5 ($2/$5) - {d}",
    "ShortDeck No Limit ($0.02) - {d}",
    "Tournament #258198994, $25 GGMasters Bounty Hold'em No Limit - Level12(200/400) - {d}",
    "Tournament #258199000, $10 Mystery KO PLO - Level3(50/100(10)) - {d}",
    "Tournament #7, Daily Hold'em No Limit - {d} Level4(60/120)",  # the level only after the date
    "Hold'em No Limit - {d} ($0.05/$0.10)",  # stakes only after the date: none before it
    "Hold'em No Limit ($0.05/$0.10) {d}",
    "PLO-{d} ($0.05/$0.10)",  # a game name that the date's first digit completes
    "PLO{d} ($0.05/$0.10)",
    "($0.05/$0.10) PLO-{d}",  # ... with its stakes before it: the header reads
    "Tournament #8, ($0.05/$0.10) PLO{d}",
    "Razz Limit ($0.05/$0.10) - {d}",
    "Nothing we know ($0.05/$0.10) - {d} PLO",  # the game only after the date
    "Nothing we know ($0.05/$0.10) - {d}",
    "Tournament #{d} Hold'em No Limit (10/20)",
    "Tournament #12{d} Hold'em No Limit (10/20)",
    "Hold'em No Limit ($0.0.5/$0.10) - {d}",  # an amount that is not one
    "Hold'em No Limit ($0.05/$0.10)",  # no date at all
]
PS_BODIES = [
    "Tournament #3100000001, $4.40+$0.40+$0.20 USD Hold'em No Limit - Level III (25/50) - {d} CET [{d} ET]",
    "Tournament #3100000003, $1+$0.10 USD Hold'em No Limit - Match Round I, Level II (15/30) - {d} ET",
    " Omaha Hi/Lo Pot Limit ($0.05/$0.10 USD) - {d} CET [{d} ET]",
    " 5 Card Omaha Pot Limit (25/50) - {d} ET",
    "Hold'em No Limit (€0.25/€0.50 EUR) - {d} CET",
    "Hold'em No Limit - {d} ($0.05/$0.10)",
    "PLO-{d} Omaha Pot Limit ($0.05/$0.10)",
    "($0.05/$0.10) PLO-{d}",
    "7 Card Stud Limit ($0.10/$0.20 USD) - {d} ET",
    "Tournament #99{d} Hold'em No Limit (10/20)",
    "Hold'em No Limit ($0.0.5/$0.10) - {d} ET",
    "Hold'em No Limit ($0.05/$0.10)",
]
DATES = ["2026/02/04 01:07:12", "2026/02/04 01:09:40", "5026/02/04 01:07:12", "8023-3-1 14:20:00"]


def _outcome(parse, *args):  # type: ignore[no-untyped-def]
    try:
        return parse(*args)
    except HandIntegrityError as exc:
        return ("error", exc.kind, str(exc))


def _full(line: str, parse):  # type: ignore[no-untyped-def]
    return _outcome(lambda text: parse(text, fixed=lambda head: None), line)  # no cached part: all read


@pytest.mark.parametrize(("site", "bodies"), [("gg", GG_BODIES), ("ps", PS_BODIES)])
def test_every_header_reads_as_the_full_reading_gives_it(site: str, bodies: list[str]) -> None:
    parse, start = (
        (h.parse_gg_header, "Poker Hand #{k}: ") if site == "gg" else (h.parse_ps_header, "PokerStars Hand #{k}: ")
    )
    seen_fixed = 0  # headers read to a value (the rest are errors, compared too)
    for k, (body, date) in enumerate(itertools.product(bodies, DATES)):
        number = f"TM{k}" if site == "gg" else str(k)
        line = start.format(k=number) + body.format(d=date)
        for _ in range(2):  # the second reading comes from the table's cached part
            assert _outcome(parse, line) == _full(line, parse), line
        if isinstance(_outcome(parse, line), h.Header):
            seen_fixed += 1
    fixed = h._gg_fixed if site == "gg" else h._ps_fixed
    assert fixed.cache_info().hits > 0 and seen_fixed > len(bodies)
