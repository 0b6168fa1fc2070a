"""The first two lines of a PokerStars or GGPoker hand: site, hand and tournament numbers, game,
stakes, currency, level and time; then the table line.

The two sites write the same body format (GGPoker copied PokerStars') but different headers, so each
has its header parser here and the body parser (`stars_body.py`) is shared.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import NamedTuple
from zoneinfo import ZoneInfo

from pipeline.hands.errors import HandIntegrityError

CURRENCY_SYMBOLS = "$€£¥₹"
GAMES: dict[str, str] = {
    # PokerStars names (also inside mixed-game headers: "HORSE (Razz Limit, ...)", "Mixed NLH/PLO (...)")
    "Hold'em No Limit": "NT",
    "Hold'em Pot Limit": "PT",
    "Hold'em Limit": "FT",
    "Omaha Pot Limit": "PO",
    "Omaha No Limit": "NO",
    "Omaha Limit": "FO",
    "Omaha Hi/Lo Pot Limit": "PO/8",
    "Omaha Hi/Lo Limit": "FO/8",
    "5 Card Omaha Pot Limit": "PO5",
    "5 Card Omaha Hi/Lo Pot Limit": "PO5/8",
    "6 Card Omaha Pot Limit": "PO6",
    "6+ Hold'em No Limit": "NS",
    "Hold'em Short Deck No Limit": "NS",
    "7 Card Stud Limit": "F7S",
    "7 Card Stud Hi/Lo Limit": "F7S/8",
    "Razz Limit": "FR",
    "Badugi Limit": "FB",
    "Triple Draw 2-7 Lowball Limit": "F2L3D",
    "Single Draw 2-7 Lowball No Limit": "N2L1D",
    # GGPoker names
    "PLO": "PO",
    "PLO-5": "PO5",
    "PLO5": "PO5",
    "PLO-6": "PO6",
    "PLO6": "PO6",
    "PLO Hi/Lo": "PO/8",
    "PLO-8": "PO/8",
    "PLO-5 Hi/Lo": "PO5/8",
    "ShortDeck No Limit": "NS",
    "Short Deck No Limit": "NS",
}
"""Game name as the header writes it -> variant code. Longest names are tried first."""
_GAME = re.compile("|".join(re.escape(g) for g in sorted(GAMES, key=len, reverse=True)))
_NOT_REPLAYED = {"F7S", "F7S/8", "FR", "FB", "F2L3D", "N2L1D"}

PS_PREFIX = re.compile(r"^PokerStars (?:Zoom |Home Game |Spin )?(?:Hand|Game) #(?P<hand>\d+):\s*")
GG_PREFIX = re.compile(r"^Poker Hand #(?P<hand>[A-Z]{0,4}\d+):\s*")
_TOURNAMENT = re.compile(r"Tournament #(?P<t>\d+),?\s*")
_DATE = re.compile(r"(?P<d>\d{4}[/-]\d{1,2}[/-]\d{1,2})[ T-]+(?P<t>\d{1,2}:\d{2}:\d{2})(?:\.\d+)?\s*(?P<tz>Z|[A-Z]{2,5})?")
_AMT = r"[$€£¥₹]?[\d.,]+"
_STAKES = re.compile(rf"\((?:[^()]*?, )?(?P<a>{_AMT})(?:/(?P<b>{_AMT}))?(?:\s*-\s*(?:Ante )?(?P<ante>{_AMT}))?(?:\s+(?P<iso>[A-Z]{{3}}))?\)")
_GG_LEVEL = re.compile(rf"Level\s*(?P<lvl>\d+)\s*\((?P<a>{_AMT})/(?P<b>{_AMT})(?:\((?P<ante>{_AMT})\))?\)")
_BOUNTY_EVENT = re.compile(r"Bounty|PKO|Knockout|KO\b|Mystery", re.IGNORECASE)
_PS_LEVEL = re.compile(r"Level (?P<lvl>[IVXLCDM\d]+)")
TABLE = re.compile(r"^Table '(?P<table>.*)'(?P<rest>.*?)(?:Seat #(?P<button>\d+) is the button)?\s*$")
OFFSETS = {"UTC": 0, "GMT": 0, "Z": 0, "CET": 1, "CEST": 2, "WET": 0, "WEST": 1, "EET": 2, "EEST": 3,
           "MSK": 3, "AEST": 10, "AEDT": 11, "NZST": 12, "BRT": -3, "ART": -3, "IST": 5.5, "CCT": 8, "JST": 9}
_EASTERN = ZoneInfo("America/New_York")


class Header(NamedTuple):
    """What the first line of a hand says (a named tuple: immutable, and built without the
    `object.__setattr__` per field a frozen dataclass pays, once per hand imported)."""

    source: str
    """'ps' or 'gg': prefix of every id made from this hand."""
    hand: str
    variant: str
    game_name: str
    small: int | None
    """Small blind, or the small bet of a fixed-limit game (None: ante-only short deck); hundredths."""
    big: int | None
    ante: int | None
    currency: str
    """Currency symbol of the chip amounts ('' for tournament or play chips)."""
    tournament: str | None
    level: str | None
    ts: str
    bounty_event: bool = False
    """The tournament's name says it pays bounties (GGPoker writes no bounty lines or amounts)."""
    fast_fold: bool = False
    """A fast-fold pool (PokerStars Zoom, GGPoker Rush & Cash): a new table and players every hand."""


@lru_cache(maxsize=8192)  # pure, and the same few amounts (blinds, antes, stacks) recur in every hand
def amount(text: str) -> int:
    """Hundredths of '$1,059.65', '1,500', '€0.5' (symbol and thousands separators dropped).

    Every amount is read as an int in hundredths (cents of cash, hundredths of a chip): exact,
    and several times faster than Decimal; the record divides by 100 when no amount needs them."""
    digits = text.lstrip(CURRENCY_SYMBOLS)
    if "," in digits:
        digits = digits.replace(",", "")
    if digits.isdecimal():
        return int(digits) * 100  # the common case: whole chips or dollars
    whole, dot, frac = digits.partition(".")
    if not whole.isdecimal() and not (dot and whole == ""):
        raise HandIntegrityError("parse_error", f"not an amount: {text[:40]!r}")
    if frac and (not frac.isdecimal() or frac[2:].strip("0")):
        raise HandIntegrityError("parse_error", f"amount {text[:40]!r} is finer than a hundredth")
    return int(whole or "0") * 100 + (int((frac + "00")[:2]) if frac else 0)


def _symbol(*texts: str | None) -> str:
    for t in texts:
        if t and t[0] in CURRENCY_SYMBOLS:
            return t[0]
    return ""


def _variant(line: str) -> tuple[str, str]:
    found = _GAME.search(line)
    if found is None:
        raise HandIntegrityError("unknown_variant", f"line 1: no game Railbird knows in {line[:120]!r}")
    name = found.group(0)
    code = GAMES[name]
    if code in _NOT_REPLAYED:
        raise HandIntegrityError("unknown_variant", f"line 1: {name} (stud and draw hands are not imported yet)")
    return name, code


def _last_stakes(text: str) -> re.Match[str] | None:
    """The last '(a/b)' before the date: it carries the stakes ("Level I (10/20)", mixed games)."""
    found = None
    for found in _STAKES.finditer(text):  # noqa: B007 - the loop keeps the last match
        continue
    return found


def parse_ps_header(line: str, fixed: Callable[[str], _PsParts | None] | None = None) -> Header:
    """A PokerStars header (cash, Zoom, tournament, sit & go, Spin & Go, mixed games, play money).
    `fixed` reads the part before the date (default: once per table, `_ps_fixed`)."""
    prefix = PS_PREFIX.match(line)
    if prefix is None:
        raise HandIntegrityError("parse_error", f"line 1: not a PokerStars hand header: {line[:80]!r}")
    rest = line[prefix.end():]
    dates = _dates(rest)
    parts = (fixed or _ps_fixed)(rest[: dates[0].start() + 1]) if dates else None
    if parts is None:
        parts = _ps_parts(rest, _before_date(rest, dates), *_variant(rest))
    name, code, tournament, stakes, level = parts
    if stakes is None:
        raise HandIntegrityError("parse_error", "line 1: no stakes '(small/big)' in the header")
    a, b, ante = stakes
    return Header(
        source="ps", hand=prefix["hand"], variant=code, game_name=name,
        small=amount(a) if a else None, big=amount(b) if b else None, ante=amount(ante) if ante else None,
        currency="" if tournament is not None else _symbol(a, b),
        tournament=tournament, level=level, ts=_timestamp(dates), fast_fold=line.startswith("PokerStars Zoom "),
    )


def parse_gg_header(line: str, fixed: Callable[[str], _GgParts | None] | None = None) -> Header:
    """A GGPoker header: cash (HD, RC Rush & Cash, OM, SD short deck), tournaments (TM, SG Spin & Gold).
    `fixed` reads the part before the date (default: once per table, `_gg_fixed`)."""
    prefix = GG_PREFIX.match(line)
    if prefix is None:
        raise HandIntegrityError("parse_error", f"line 1: not a GGPoker hand header: {line[:80]!r}")
    rest = line[prefix.end():]
    dates = _dates(rest)
    parts = (fixed or _gg_fixed)(rest[: dates[0].start() + 1]) if dates else None
    level_after: int | None = dates[0].start() if parts is not None else None
    if parts is None:
        parts = _gg_parts(rest, _before_date(rest, dates), *_variant(rest))  # level searched in all of it
    name, code, tournament, bounty_event, level, stakes = parts
    if level is None and level_after is not None:  # none before the date (cash): one may follow it
        level = _level(_GG_LEVEL.search(rest, level_after))
    if level is not None:
        lvl, small, big, ante = level
    else:
        lvl = None
        if stakes is None:
            raise HandIntegrityError("parse_error", "line 1: no stakes in the header")
        small, big, ante = stakes
        if big is None and code == "NS":
            small, ante = None, small  # "ShortDeck No Limit ($0.02)": an ante-only game
    return Header(
        source="gg", hand=prefix["hand"], variant=code, game_name=name,
        small=amount(small) if small else None, big=amount(big) if big else None,
        ante=amount(ante) if ante else None, currency="" if tournament is not None else _symbol(small, big, ante),
        tournament=tournament, level=lvl, ts=_timestamp(dates), bounty_event=bounty_event,
        fast_fold=prefix["hand"].startswith("RC"),
    )


# What a header says before its first date is the same for every hand of a table (only the hand
# number and the time change), so it is read once per table: `_ps_fixed` / `_gg_fixed` read the
# header's text after the prefix up to and including the first date's first character, `head`,
# with the same code as the full reading (`_ps_parts` / `_gg_parts`). That character is kept
# because a game name can end on it (adversarial "PLO-5026/..." is "PLO-5"); no other field can
# reach past it: the tournament, level and stakes patterns cannot run into "dddd/" (a digit run
# there must be followed by ')', '(' or ','), so a level not in `head` can only follow the date.
# Where `head` names no game Railbird replays, they return None and the header is read in full,
# which finds the game after the date or raises what it raised.
# `tests/hands/test_header_once_per_table.py` compares both readings on headers made for these edges.

_Stakes = tuple[str | None, str | None, str | None]
_Level = tuple[str | None, str | None, str | None, str | None]
"""A GGPoker level's number, small and big blind and ante, as written."""
_PsParts = tuple[str, str, str | None, _Stakes | None, str | None]
"""Game name, variant code, tournament number, stakes, level."""
_GgParts = tuple[str, str, str | None, bool, _Level | None, _Stakes | None]
"""Game name, variant code, tournament number, bounty event, level, stakes."""


def _head_game(head: str) -> tuple[str, str] | None:
    """(name, code) of the game `_variant` would find, when `head` holds it and it is replayed."""
    game = _GAME.search(head)
    if game is None or GAMES[game.group(0)] in _NOT_REPLAYED:
        return None
    return game.group(0), GAMES[game.group(0)]


@lru_cache(maxsize=1024)
def _ps_fixed(head: str) -> _PsParts | None:
    game = _head_game(head)
    return None if game is None else _ps_parts(head, head[:-1], *game)


@lru_cache(maxsize=1024)
def _gg_fixed(head: str) -> _GgParts | None:
    game = _head_game(head)
    return None if game is None else _gg_parts(head, head[:-1], *game)


def _ps_parts(text: str, before: str, name: str, code: str) -> _PsParts:
    tournament = _TOURNAMENT.match(text)
    level = _PS_LEVEL.search(before)
    return name, code, tournament["t"] if tournament else None, _stakes(before), level["lvl"] if level else None


def _gg_parts(text: str, before: str, name: str, code: str) -> _GgParts:
    tournament = _TOURNAMENT.match(text)
    event = text[tournament.end() : text.find(name)] if tournament else ""
    return (
        name, code, tournament["t"] if tournament else None, _BOUNTY_EVENT.search(event) is not None,
        _level(_GG_LEVEL.search(text)), _stakes(before),
    )


def _stakes(before: str) -> _Stakes | None:
    found = _last_stakes(before)
    return (found["a"], found["b"], found["ante"]) if found else None


def _level(found: re.Match[str] | None) -> _Level | None:
    return (found["lvl"], found["a"], found["b"], found["ante"]) if found else None


def _dates(text: str) -> list[re.Match[str]]:
    """Every date of a header, found once: the search is the costliest step of a header's parse
    (it is tried at every position), and both the stakes and the time need the dates."""
    return list(_DATE.finditer(text))


def _before_date(text: str, dates: list[re.Match[str]]) -> str:
    """The header up to its first date (`_DATE.split(text, maxsplit=1)[0]`)."""
    return text[: dates[0].start()] if dates else text


def timestamp(text: str) -> str:
    """UTC ISO time of a header: the ET time in brackets when given (with US daylight saving),
    else the first date with its zone (a zone-less time is taken as UTC, as GGPoker writes it)."""
    return _timestamp(_dates(text))


def _timestamp(dates: list[re.Match[str]]) -> str:
    if not dates:
        raise HandIntegrityError("parse_error", "line 1: no date in the header")
    chosen = next((d for d in dates if d["tz"] in ("ET", "EDT", "EST")), dates[0])
    return _utc(chosen["d"].replace("-", "/"), chosen["t"], chosen["tz"] or "UTC")


@lru_cache(maxsize=4096)
def _utc(day: str, clock: str, tz: str) -> str:
    try:
        # `_DATE` has matched the digits already ('2017/08/08', '23:16:30'), so the fields are
        # read directly: datetime() rejects what strptime("%Y/%m/%d %H:%M:%S") would (month 13,
        # 31 February, hour 24, second 60) at a fraction of its cost, paid by every hand whose
        # time is not cached (each has its own minute in a real file).
        year, month, mday = day.split("/")
        hour, minute, second = clock.split(":")
        naive = datetime(int(year), int(month), int(mday), int(hour), int(minute), int(second))
    except ValueError:
        raise HandIntegrityError("parse_error", f"line 1: not a date: {day} {clock}") from None
    if tz in ("ET", "EDT", "EST"):
        return naive.replace(tzinfo=_EASTERN).astimezone(UTC).isoformat()
    hours = OFFSETS.get(tz)
    if hours is None:
        raise HandIntegrityError("parse_error", f"line 1: unknown time zone {tz!r}")
    return (naive - timedelta(hours=hours)).replace(tzinfo=UTC).isoformat()
