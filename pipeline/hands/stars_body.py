"""One PokerStars-style hand block (PokerStars or GGPoker) -> a `hand.records` value, its chat lines
as `chat.messages` values, and the source line of every action (so a rejection names its line).

The grammar is in `stars_lines.py`; the header parsers in `stars_header.py`; the record fields in
`stars_record.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from pipeline.hands import stars_lines as g
from pipeline.hands.errors import HandIntegrityError
from pipeline.hands.stars_header import CURRENCY_SYMBOLS, TABLE, Header, amount

ZERO = 0
"""Amounts are ints in hundredths (`stars_header.amount`)."""
RUNS = {"SECOND": 2, "THIRD": 3}


@dataclass(slots=True)
class ParsedHand:
    """A parsed hand: the record value, chat values, and where each action came from."""

    record: dict[str, Any]
    chats: list[dict[str, Any]]
    action_lines: list[int]
    start: int
    end: int
    junk: list[int] = field(default_factory=list)
    """Lines after the summary that belong to no hand (reported, not part of this hand)."""
    total_error: HandIntegrityError | None = None
    """The summary's 'Total pot' disagrees with the bets (reported if the replay passes)."""
    body: Body | None = None
    """What the text said (seats, players sitting out, seat lines): `seating` reads it."""


@dataclass(slots=True)
class Body:
    """Everything read from one hand's lines; `stars_record.build` turns it into a record."""

    header: Header
    table: str
    button: int
    start: int
    seats: dict[str, int] = field(default_factory=dict)
    stacks: dict[str, int] = field(default_factory=dict)
    head_bounty: dict[str, int] = field(default_factory=dict)
    absent: dict[str, tuple[int, bool]] = field(default_factory=dict)
    """Seated but not dealt in: seat number, and whether the seat line says sitting out (else waiting
    for the button or the big blind)."""
    seat_notes: list[tuple[str, str, int]] = field(default_factory=list)
    """(player, seat action, seat number or 0) of the hand's seat lines ("sits out", "has returned", "leaves the
    table", ...), in line order: what `seating.SeatTracker` derives seat events from."""
    antes: dict[str, int] = field(default_factory=dict)
    blinds: dict[str, int] = field(default_factory=dict)
    holes: dict[str, tuple[str, int]] = field(default_factory=dict)
    steps: list[tuple[str, str, int, int]] = field(default_factory=list)
    """(kind, player, amount, line): kind is a verb (amount = call increment / bet / raise-to) or
    'board' (player = the cards)."""
    collected: dict[str, int] = field(default_factory=dict)
    returned: dict[str, int] = field(default_factory=dict)
    shown: dict[str, tuple[str, int]] = field(default_factory=dict)
    knocked_out: dict[str, int] = field(default_factory=dict)
    bounty_won: dict[str, int] = field(default_factory=dict)
    places: dict[str, int] = field(default_factory=dict)
    chats: list[tuple[int, str, str]] = field(default_factory=list)
    house: int = ZERO
    total_pot: tuple[int, int] | None = None
    run_count: int = 1
    in_summary: bool = False
    end: int = 0
    junk: list[int] = field(default_factory=list)



@lru_cache(maxsize=8192)
def money(text: str, currency: str) -> int:
    """A chip amount of a hand in `currency` ('' for chips); another currency is a reason to reject.

    Cached, so the usual call (the same blinds, bets and stacks recur) runs no Python frame; an
    error names no line: `parse_body` adds the line it was reading (`_at_line`)."""
    symbol = text[0] if text and text[0] in CURRENCY_SYMBOLS else ""
    if symbol != currency and text.strip("0.,") != "":  # a bare 0 needs no currency
        raise HandIntegrityError("parse_error", f"amount {text!r} is not in the hand's currency {currency or 'chips'!r}")
    return amount(text)


def parse_body(lines: list[str], start: int, header: Callable[[str], Header]) -> Body:
    """Read a hand block; `HandIntegrityError` names the first line that breaks the grammar."""
    head = header(lines[0])
    table = TABLE.match(lines[1]) if len(lines) > 1 else None
    if table is None:
        raise HandIntegrityError("parse_error", f"line {start + 1}: no table line after the header")
    if table["button"] is None:
        raise HandIntegrityError("parse_error", f"line {start + 1}: the table line names no button seat")
    body = Body(head, table["table"], int(table["button"]), start)
    numbered = enumerate(lines[2:], start=start + 2)
    # Two loops over one iterator: the body lines up to the summary marker, then the summary's
    # (only these can be junk), so no line pays for the other part's tests.
    _read_body(body, numbered)
    _read_summary(body, numbered)
    if not body.in_summary:
        raise HandIntegrityError("truncated", f"line {start + len(lines) - 1}: the hand ends without its summary")
    if len(body.seats) < 2:
        raise HandIntegrityError("parse_error", f"line {start}: fewer than two players dealt in")
    return body


def _read_body(body: Body, numbered: Iterator[tuple[int, str]]) -> None:
    """The lines up to and including the summary marker. The usual lines are told apart here, in
    the loop, each saving a call: actions ("name: verb ...", the name ending at the first ': '),
    seat lines and deals; `_body_line` reads the rest, exactly as it would these."""
    seats, absent, steps, currency = body.seats, body.absent, body.steps, body.header.currency
    number = body.end
    for number, line in numbered:
        try:
            cut = line.find(": ")
            if cut > 0:
                if (name := line[:cut]) in seats and (bet := _betting(line[cut + 2 :])) is not None:
                    kind, text = bet
                    steps.append((kind, name, ZERO if text is None else money(text, currency), number))
                elif name in seats or name in absent:
                    _verb(body, name, line[cut + 2 :], number, line)
                elif line.startswith("Seat ") and line.find(": ", cut + 1) < 0:
                    _seat(body, line, number)
                else:
                    _body_line(body, line, number, cut)
            elif line.startswith("Dealt to "):
                _dealt(body, line, number)
            else:
                _body_line(body, line, number, cut)
        except HandIntegrityError as exc:
            raise _at_line(exc, number) from None
        if body.in_summary:
            break
    body.end = number


def _read_summary(body: Body, numbered: Iterator[tuple[int, str]]) -> None:
    """The summary's lines; the first that is not a summary line starts the junk after the hand.
    A seat's line without shown cards ("Seat 3: bob folded before Flop", most of them) is
    accepted here without a call; the rest go to `_summary_line`."""
    junk = body.junk
    for number, line in numbered:
        # `g.SUMMARY_OK` for a "Seat " line is "Seat <digits>: ", read here without the regex.
        if (not junk and line.startswith("Seat ") and "ed [" not in line
                and (cut := line.find(": ", 5)) > 5 and line[5:cut].isdecimal()):
            body.end = number
            continue
        try:
            _summary_line(body, line, number)
        except HandIntegrityError as exc:
            raise _at_line(exc, number) from None
        if not junk:
            body.end = number


def _at_line(exc: HandIntegrityError, number: int) -> HandIntegrityError:
    """The error with the line number in front, unless it names its line already."""
    if str(exc).split(": ", 1)[-1].startswith("line "):
        return exc
    return HandIntegrityError(exc.kind, f"line {number}: {str(exc).split(': ', 1)[-1]}")


def _not_understood(line: str, number: int) -> HandIntegrityError:
    shown = line[:60].encode("ascii", "backslashreplace").decode("ascii")
    return HandIntegrityError("parse_error", f"line {number}: line not understood: {shown!r}")


def _body_line(body: Body, line: str, number: int, cut: int) -> None:
    """A body line other than the usual action (`cut`: where its first ': ' is, or -1)."""
    later = line.find(": ", cut + 1) if cut > 0 else -1
    split = _split_name(body, line, later) if later > 0 else None  # a name holding ': '
    if split is not None:
        _verb(body, split[0], split[1], number, line)
    elif line.startswith("*** "):
        _marker(body, line, number)
    elif line.startswith("Seat "):
        _seat(body, line, number)
    elif line.startswith("Dealt to "):
        _dealt(body, line, number)
    elif line.startswith("Uncalled bet"):
        m = g.UNCALLED.match(line)
        if m is None:
            raise _not_understood(line, number)
        body.returned[m["name"]] = body.returned.get(m["name"], ZERO) + money(m["amt"], body.header.currency)
    elif ' said, "' in line and (m := g.CHAT.match(line)):
        body.chats.append((number, m["name"], m["text"]))
    elif line.strip():
        _fact(body, line, number)


def _dealt(body: Body, line: str, number: int) -> None:
    found = _dealt_fields(line)
    if found is None or found[0] not in body.seats:
        raise HandIntegrityError("parse_error", f"line {number}: cards dealt to a player not seated: {line[:60]!r}")
    name, cards = found
    if cards:
        body.holes[name] = ("".join(cards.split()), number)


@lru_cache(maxsize=4096)  # pure; "Dealt to NAME" of each opponent recurs every hand at a table
def _dealt_fields(line: str) -> tuple[str, str | None] | None:
    """(name, cards or None) as `g.DEALT` reads a 'Dealt to ' line. Its lazy name makes that
    regex slow, and every GGPoker hand has a line per player: the two usual shapes are read here,
    the regex does the rest. "Dealt to NAME": the name is the text less trailing whitespace.
    "Dealt to NAME [CARDS]" with NAME before the first " [" and no "]" inside CARDS: the lazy
    name can end at no earlier " [", so it ends there."""
    if "[" not in line:
        name = line[9:].rstrip()
        if name:
            return name, None
    elif line.endswith("]"):
        cut = line.find(" [", 10)
        if cut > 0 and "]" not in line[cut + 2 : -1]:
            return line[9:cut], line[cut + 2 : -1]
    m = g.DEALT.match(line)
    return None if m is None else (m["name"], m["cards"])


def _marker(body: Body, line: str, number: int) -> None:
    if line.startswith(g.SUMMARY):
        body.in_summary = True
        return
    if m := g.BOARD.match(line):
        run = m["run"]
        if run in RUNS:
            body.run_count = max(body.run_count, RUNS[run])  # later boards: only their count is kept
        else:
            body.steps.append(("board", "".join(m["cards"].split()), ZERO, number))
    elif not g.MARKERS.match(line):
        raise _not_understood(line, number)


def _seat(body: Body, line: str, number: int) -> None:
    m = g.SEAT.match(line)
    if m is None:
        raise HandIntegrityError("parse_error", f"line {number}: seat line not understood: {line[:60]!r}")
    name = m["name"]
    tail = m["tail"]
    if tail and (any(out in tail for out in g.SEAT_OUT) or tail.strip().startswith("will be allowed")):
        # Seated but not dealt in: not a player of this hand (kept for the seat events).
        body.absent[name] = (int(m["seat"]), "sitting out" in tail or "out of hand" in tail)
        return
    if name in body.seats:
        raise HandIntegrityError("parse_error", f"line {number}: {name!r} is seated twice")
    body.seats[name] = int(m["seat"])
    body.stacks[name] = money(m["chips"], body.header.currency)
    if m["bounty"]:
        body.head_bounty[name] = amount(m["bounty"])


def _split_name(body: Body, line: str, i: int) -> tuple[str, str] | None:
    """(player, rest) of a 'name: rest' line, trying the ': ' at `i` and those after it; the
    name must be seated (names may hold ': ')."""
    while i > 0:
        name = line[:i]
        if name in body.seats or name in body.absent:
            return name, line[i + 2 :]
        i = line.find(": ", i + 1)
    return None


_FAST = {"folds": "fold", "checks": "check", "calls": "call", "bets": "bet", "raises": "raise"}


@lru_cache(maxsize=4096)
def _betting(rest: str) -> tuple[str, str | None] | None:
    """(kind, amount text; None for a fold or check) of the five betting verbs read without a
    regex: "folds", "checks", "calls X", "bets X", "raises X to Y" (+ "and is all-in"); None for
    any other line, which `_verb` reads. Cached: folds and checks, and most amounts, recur."""
    words = rest.split(" ", 4)
    fast = _FAST.get(words[0])
    if fast is None:
        return None
    if fast in ("fold", "check"):
        return fast, None
    if fast == "raise":
        return (fast, words[3]) if len(words) >= 4 and words[2] == "to" else None
    return (fast, words[1]) if len(words) >= 2 else None


def _verb(body: Body, name: str, rest: str, number: int, line: str) -> None:
    if name in body.seats and (bet := _betting(rest)) is not None:
        kind, text = bet
        body.steps.append((kind, name, ZERO if text is None else money(text, body.header.currency), number))
        return
    found = _classify(rest)
    if found is None:
        raise _not_understood(line, number)
    kind, text = found
    if kind in ("info", "cashout"):
        if kind == "info" and (note := g.seat_note(rest)) is not None:
            body.seat_notes.append((name, note, 0))
        return
    if name in body.absent:
        raise HandIntegrityError("parse_error", f"line {number}: {name!r} acts but was not dealt in")
    if kind == "show":
        body.shown[name] = (text, number)
    elif kind in ("fold", "check"):
        body.steps.append((kind, name, ZERO, number))
    elif kind in ("call", "bet", "raise"):
        body.steps.append((kind, name, money(text, body.header.currency), number))
    else:
        _post(body, name, kind, money(text, body.header.currency))


@lru_cache(maxsize=4096)
def _classify(rest: str) -> tuple[str, str] | None:
    """(kind, the text that matters: amount or cards) of what follows 'name: ', by the first of
    `g.VERBS` that matches; None when none does. Cached because the lines that miss the fast path
    (posts, above all: up to 8 patterns tried per ante line) repeat from hand to hand at a level."""
    for pattern, kind in g.VERBS:
        m = pattern.match(rest)
        if m is None:
            continue
        if kind == "show":
            return kind, "".join(m["cards"].split())
        if kind == "raise":
            return kind, m["b"]
        if kind in ("info", "cashout", "fold", "check"):
            return kind, ""
        return kind, m["a"]
    return None


def _post(body: Body, name: str, kind: str, value: int) -> None:
    if kind == "ante":
        body.antes[name] = body.antes.get(name, ZERO) + value
        return
    if kind == "dead_and_big":
        # The small-blind part of "small & big blinds" is dead money (like an ante), the big part live.
        head = body.header
        big = head.small if body.header.variant.startswith("F") else head.big
        live = min(value, big or value)
        body.antes[name] = body.antes.get(name, ZERO) + value - live
        value = live
    body.blinds[name] = body.blinds.get(name, ZERO) + value


def _fact(body: Body, line: str, number: int) -> None:
    if m := g.COLLECTED.match(line):
        body.collected[m["name"]] = body.collected.get(m["name"], ZERO) + money(m["amt"], body.header.currency)
    elif m := g.BOUNTY.match(line):
        _bounty(body, m, number)
    elif m := g.PLACE.match(line):
        if m["place"]:
            body.places[m["name"]] = int(m["place"])
    elif m := g.WINS_TOURNAMENT.match(line):
        body.places[m["name"]] = 1
    elif not g.INFO.search(line):
        raise _not_understood(line, number)
    elif (m := g.SEAT_LINE_NOTE.match(line)) is not None and (note := g.seat_note(line[m.start("what") :])) is not None:
        seat = g.AT_SEAT.search(line)
        body.seat_notes.append((m["name"], note, int(seat[1]) if seat else 0))


def _bounty(body: Body, m: Any, number: int) -> None:
    """'A wins the $12.01 bounty for eliminating B' (also split, progressive: cash half + increase)."""
    losers = [m["loser"]]
    if m["loser"] not in body.seats and " and " in m["loser"]:
        losers = m["loser"].split(" and ")
    cash = amount(m["amt"])
    increase = amount(m["inc"]) if m["inc"] else ZERO
    body.bounty_won[m["winner"]] = body.bounty_won.get(m["winner"], ZERO) + cash
    for loser in losers:
        if loser not in body.seats:
            raise HandIntegrityError("parse_error", f"line {number}: bounty for {loser!r}, who is not in the hand")
        body.knocked_out[loser] = body.knocked_out.get(loser, ZERO) + (cash + increase) // len(losers)


def _summary_line(body: Body, line: str, number: int) -> None:
    if body.junk:
        body.junk.append(number)
        return
    if not line.strip():
        return
    if line.startswith("Total pot ") and (m := g.TOTAL.match(line)):  # the prefix TOTAL needs
        body.total_pot = (money(m["pot"], body.header.currency), number)
        for house in g.HOUSE.finditer(line):
            body.house += money(house["amt"], body.header.currency)
    elif ("showed [" in line or "mucked [" in line) and (m := g.SUMMARY_CARDS.match(line)):
        # SUMMARY_CARDS needs one of those words: testing for them first skips its slow lazy scan
        # on the many "folded before Flop" lines.
        if m["name"] in body.seats:
            body.shown.setdefault(m["name"], ("".join(m["cards"].split()), number))
    elif not g.SUMMARY_OK.match(line) and not g.CHAT.match(line):
        body.junk.append(number)  # not a summary line: what follows belongs to no hand
