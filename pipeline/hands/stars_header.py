"""The first two lines of a PokerStars or GGPoker hand: site, hand and tournament numbers, game,
stakes, currency, level and time; then the table line.

The two sites write the same body format (GGPoker copied PokerStars') but different headers, so each
has its header parser here and the body parser (`stars_body.py`) is shared.
"""

from __future__ import annotations

import re
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


def parse_ps_header(line: str) -> Header:
    """A PokerStars header (cash, Zoom, tournament, sit & go, Spin & Go, mixed games, play money)."""
    prefix = PS_PREFIX.match(line)
    if prefix is None:
        raise HandIntegrityError("parse_error", f"line 1: not a PokerStars hand header: {line[:80]!r}")
    rest = line[prefix.end():]
    dates = _dates(rest)
    fixed = _ps_fixed(rest[: dates[0].start() + 1]) if dates else None
    if fixed is None:
        return _ps_header(line, prefix, rest, dates)
    name, code, tournament, stakes, level = fixed
    if stakes is None:
        raise HandIntegrityError("parse_error", "line 1: no stakes '(small/big)' in the header")
    a, b, ante = stakes
    return Header(
        source="ps", hand=prefix["hand"], variant=code, game_name=name,
        small=amount(a), big=amount(b) if b else None, ante=amount(ante) if ante else None,
        currency="" if tournament is not None else _symbol(a, b),
        tournament=tournament, level=level, ts=_timestamp(dates), fast_fold=line.startswith("PokerStars Zoom "),
    )


# What a header says before its first date is the same for every hand of a table (only the hand
# number and the time change), so it is read once per table: `_ps_fixed` / `_gg_fixed` take the
# header's text after the prefix up to and including the first date's first character, `head`.
# That character is kept because a game name can end on it (adversarial "PLO-5026/..." is
# "PLO-5"); no other field can reach past it: the level, stakes and tournament patterns cannot
# run into "dddd/" (a digit run there must be followed by ')', '(' or ','), which is why a level
# not found in `head` is looked for only from the date on. Where `head` cannot decide (no game
# before the date, or an unknown or unreplayed one), they return None and the header is read in
# full, as before, raising what it raised; so do a game or a tournament match reaching the date,
# which the patterns rule out, checked rather than relied on.
# `tests/hands/test_header_once_per_table.py` compares both readings on headers made for these edges.


@lru_cache(maxsize=1024)
def _ps_fixed(head: str) -> tuple[str, str, str | None, tuple[str, str | None, str | None] | None, str | None] | None:
    cut = len(head) - 1
    game = _GAME.search(head)
    if game is None or game.start() >= cut or GAMES[game.group(0)] in _NOT_REPLAYED:
        return None
    tournament = _TOURNAMENT.match(head)
    if tournament is not None and tournament.end() >= cut:
        return None
    before = head[:cut]
    stakes = _last_stakes(before)
    level = _PS_LEVEL.search(before)
    return (
        game.group(0), GAMES[game.group(0)], tournament["t"] if tournament else None,
        (stakes["a"], stakes["b"], stakes["ante"]) if stakes else None, level["lvl"] if level else None,
    )


def _ps_header(line: str, prefix: re.Match[str], rest: str, dates: list[re.Match[str]]) -> Header:
    """A PokerStars header read in full (what `_ps_fixed` cannot decide from the text before the date)."""
    name, code = _variant(rest)
    tournament = _TOURNAMENT.match(rest)
    before_date = _before_date(rest, dates)
    stakes = _last_stakes(before_date)
    if stakes is None:
        raise HandIntegrityError("parse_error", "line 1: no stakes '(small/big)' in the header")
    level = _PS_LEVEL.search(before_date)
    return Header(
        source="ps", hand=prefix["hand"], variant=code, game_name=name,
        small=amount(stakes["a"]), big=amount(stakes["b"]) if stakes["b"] else None,
        ante=amount(stakes["ante"]) if stakes["ante"] else None,
        currency="" if tournament else _symbol(stakes["a"], stakes["b"]),
        tournament=tournament["t"] if tournament else None, level=level["lvl"] if level else None,
        ts=_timestamp(dates), fast_fold=line.startswith("PokerStars Zoom "),
    )


def parse_gg_header(line: str) -> Header:
    """A GGPoker header: cash (HD, RC Rush & Cash, OM, SD short deck), tournaments (TM, SG Spin & Gold)."""
    prefix = GG_PREFIX.match(line)
    if prefix is None:
        raise HandIntegrityError("parse_error", f"line 1: not a GGPoker hand header: {line[:80]!r}")
    rest = line[prefix.end():]
    dates = _dates(rest)
    fixed = _gg_fixed(rest[: dates[0].start() + 1]) if dates else None
    if fixed is None:
        return _gg_header(line, prefix, rest, dates)
    name, code, tournament, bounty_event, level, stakes = fixed
    if level is None and (found := _GG_LEVEL.search(rest, dates[0].start())) is not None:
        level = (found["lvl"], found["a"], found["b"], found["ante"])
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


_Stakes = tuple[str | None, str | None, str | None]
_Level = tuple[str | None, str | None, str | None, str | None]
"""A GGPoker level's number, small and big blind and ante, as written."""


@lru_cache(maxsize=1024)
def _gg_fixed(head: str) -> tuple[str, str, str | None, bool, _Level | None, _Stakes | None] | None:
    cut = len(head) - 1
    game = _GAME.search(head)
    if game is None or game.start() >= cut or GAMES[game.group(0)] in _NOT_REPLAYED:
        return None
    name = game.group(0)
    tournament = _TOURNAMENT.match(head)
    if tournament is not None and tournament.end() >= cut:
        return None
    event = head[tournament.end() : game.start()] if tournament else ""  # `rest.find(name)` is game.start()
    level = _GG_LEVEL.search(head)
    stakes = _last_stakes(head[:cut])
    return (
        name, GAMES[name], tournament["t"] if tournament else None, _BOUNTY_EVENT.search(event) is not None,
        (level["lvl"], level["a"], level["b"], level["ante"]) if level else None,
        (stakes["a"], stakes["b"], stakes["ante"]) if stakes else None,
    )


def _gg_header(line: str, prefix: re.Match[str], rest: str, dates: list[re.Match[str]]) -> Header:
    """A GGPoker header read in full (what `_gg_fixed` cannot decide from the text before the date)."""
    name, code = _variant(rest)
    tournament = _TOURNAMENT.match(rest)
    event = rest[tournament.end() : rest.find(name)] if tournament else ""
    level = _GG_LEVEL.search(rest)
    if level is not None:
        small, big, ante = level["a"], level["b"], level["ante"]
    else:
        stakes = _last_stakes(_before_date(rest, dates))
        if stakes is None:
            raise HandIntegrityError("parse_error", "line 1: no stakes in the header")
        small, big, ante = stakes["a"], stakes["b"], stakes["ante"]
        if big is None and code == "NS":
            small, ante = None, small  # "ShortDeck No Limit ($0.02)": an ante-only game
    return Header(
        source="gg", hand=prefix["hand"], variant=code, game_name=name,
        small=amount(small) if small else None, big=amount(big) if big else None,
        ante=amount(ante) if ante else None, currency="" if tournament else _symbol(small, big, ante),
        tournament=tournament["t"] if tournament else None, level=level["lvl"] if level else None,
        ts=_timestamp(dates), bounty_event=_BOUNTY_EVENT.search(event) is not None,
        fast_fold=prefix["hand"].startswith("RC"),
    )


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
