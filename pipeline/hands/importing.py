"""Hand-history files -> validated `hand.records` and `chat.messages` values, or a reason per hand.

`TEXT_FORMATS` is the explicit table of text formats (one header test and one block parser each);
a block is routed by its own header, so concatenated files of both sites import. Every hand ends
as exactly one `Imported` or `Rejected` (file, line, rule broken); lines outside any hand are
`Junk`. Validation is the `hand.records` contract itself (replay, chip conservation), run here so
the line of the action that broke a rule can be named.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from pydantic import ValidationError
from pydantic_core import PydanticSerializationError, to_json

from pipeline.contracts.chat import ChatMessage
from pipeline.contracts.hand import HandRecord
from pipeline.contracts.seat import SeatActivity
from pipeline.hands import ggpoker, pokerstars
from pipeline.hands.errors import HandIntegrityError
from pipeline.hands.history_io import Block, numbered_lines, split_blocks
from pipeline.hands.phh import parse_phh, parse_phh_all
from pipeline.hands.seating import SeatTracker
from pipeline.hands.stars_body import ParsedHand
from pipeline.hands.stars_header import TABLE


@dataclass(frozen=True, slots=True)
class TextFormat:
    """One hand-history text format: how its hands start and how one is parsed."""

    name: str
    is_header: Callable[[str], bool]
    parse_block: Callable[[list[str], int], ParsedHand]
    source: str
    """Prefix of the ids made from its hands ('ps', 'gg')."""


TEXT_FORMATS: dict[str, TextFormat] = {
    "pokerstars": TextFormat("pokerstars", pokerstars.is_header, pokerstars.parse_block, "ps"),
    "ggpoker": TextFormat("ggpoker", ggpoker.is_header, ggpoker.parse_block, "gg"),
}
PHH_SUFFIXES = (".phh", ".phhs")


@dataclass(frozen=True, slots=True)
class Imported:
    """A hand that passed the contract: its JSON value (as validated) and its chat values."""

    hand_json: str
    chats: tuple[str, ...]
    line: int


@dataclass(frozen=True, slots=True)
class Rejected:
    """A hand (or a chat line of one) left out, with the line and the rule it breaks."""

    line: int
    kind: str
    reason: str
    hand_id: str | None = None
    topic: str = "hand.records"


@dataclass(frozen=True, slots=True)
class Seats:
    """`seat.activity` values (JSON, validated) a hand shows against its table's previous hand;
    yielded before that hand's own outcome."""

    values: tuple[str, ...]
    line: int


@dataclass(frozen=True, slots=True)
class Junk:
    """Lines outside any hand (before the first header, binary junk after a summary)."""

    line: int
    count: int


Outcome = Imported | Rejected | Junk | Seats


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
"""`json.dumps(value, ensure_ascii=False, separators=(",", ":"))`, built once."""


def _compact(value: dict[str, Any]) -> str:
    """Compact JSON of a record, chat or seat value. pydantic-core's serializer writes the same
    text as `_ENCODER` for these values (str, int, bool, None, lists and dicts of them) at a fifth
    of its cost; it refuses a lone surrogate, which `_ENCODER` writes as is (the decoders here
    never make one, but the text must not depend on that)."""
    try:
        return to_json(value).decode()
    except PydanticSerializationError:
        return _ENCODER.encode(value)


def _integrity(exc: ValidationError) -> HandIntegrityError | None:
    for error in exc.errors(include_url=False, include_input=False):
        original = (error.get("ctx") or {}).get("error")
        if isinstance(original, HandIntegrityError):
            return original
    return None


def _field_reason(exc: ValidationError) -> str:
    errors = exc.errors(include_url=False, include_input=False)
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '<record>'}: {e['msg']}" for e in errors[:3])


def validate_hand(parsed: ParsedHand) -> Imported | Rejected:
    """The contract's verdict on a parsed hand, pointing at the action's source line on a rejection."""
    text = _compact(parsed.record)
    hand_id = parsed.record.get("hand_id")
    try:
        HandRecord.model_validate_json(text)
    except ValidationError as exc:
        found = _integrity(exc)
        if found is None:
            return Rejected(parsed.start, "invalid", f"line {parsed.start}: {_field_reason(exc)}", hand_id)
        if found.action is not None and found.action < len(parsed.action_lines):
            line = parsed.action_lines[found.action]
        else:
            line = parsed.end  # conservation and truncation are judged at the end of the hand
        reason = str(found).split(": ", 1)[-1]
        return Rejected(line, found.kind, f"line {line}: {reason}", hand_id)
    if parsed.total_error is not None:
        reason = str(parsed.total_error).split(": ", 1)[-1]
        line = int(reason.split(":", 1)[0].removeprefix("line "))
        return Rejected(line, parsed.total_error.kind, reason, hand_id)
    return Imported(text, tuple(_compact(c) for c in parsed.chats), parsed.start)


def _chat_outcomes(imported: Imported) -> tuple[tuple[str, ...], list[Rejected]]:
    good, bad = [], []
    for chat in imported.chats:
        try:
            ChatMessage.model_validate_json(chat)
            good.append(chat)
        except ValidationError as exc:
            bad.append(Rejected(imported.line, "invalid", f"chat line: {_field_reason(exc)}", topic="chat.messages"))
    return tuple(good), bad


def _seat_outcomes(parsed: ParsedHand, seats: SeatTracker) -> Iterator[Outcome]:
    if parsed.body is None:
        return
    good = []
    for value in seats.observe(parsed.body):
        text = _compact(value)
        try:
            SeatActivity.model_validate_json(text)
        except ValidationError as exc:
            yield Rejected(parsed.start, "invalid", f"seat event: {_field_reason(exc)}", topic="seat.activity")
            continue
        good.append(text)
    if good:
        yield Seats(tuple(good), parsed.start)


def _block_outcomes(block: Block, seats: SeatTracker | None = None) -> Iterator[Outcome]:
    if not block.hand:
        yield Junk(block.start, len(block.lines))
        return
    if block.overflow:
        yield Rejected(block.start, "parse_error", f"line {block.start}: the hand runs past {len(block.lines)} lines")
        return
    fmt = next(f for f in TEXT_FORMATS.values() if f.is_header(block.lines[0]))
    try:
        parsed = fmt.parse_block(block.lines, block.start)
    except HandIntegrityError as exc:
        if seats is not None and len(block.lines) > 1 and (table := TABLE.match(block.lines[1])):
            seats.broken(fmt.source, table["table"])  # hands of this table may be missing from here on
        reason = str(exc).split(": ", 1)[-1]
        lost = sum(' said, "' in line for line in block.lines)
        suffix = f" ({lost} chat lines in it not imported)" if lost else ""
        yield Rejected(block.start, exc.kind, reason + suffix)
        return
    if seats is not None:
        yield from _seat_outcomes(parsed, seats)  # a rejected hand still shows who sat where
    verdict = validate_hand(parsed)
    if isinstance(verdict, Imported) and not verdict.chats:
        yield verdict  # most hands have no chat line: nothing to check, no copy
    elif isinstance(verdict, Imported):
        chats, bad = _chat_outcomes(verdict)
        yield Imported(verdict.hand_json, chats, verdict.line)
        yield from bad
    else:
        yield verdict
    if parsed.junk:
        yield Junk(parsed.junk[0], len(parsed.junk))


_HEADER_STARTS = ("PokerStars ", "Poker Hand #")


def _is_header(line: str) -> bool:
    # A cheap prefix test first: this runs on every line of every file.
    return line.startswith(_HEADER_STARTS) and any(f.is_header(line) for f in TEXT_FORMATS.values())


def text_outcomes(
    stream: BinaryIO, seats: SeatTracker | None = None, on_block: Callable[[Block], None] | None = None
) -> Iterator[Outcome]:
    """Every hand of a PokerStars / GGPoker text stream, in order, in bounded memory; with a
    `SeatTracker`, the seat events each hand shows (`Seats`) come before its outcome. `on_block`
    sees each block's lines before its outcomes (the import summary counts chat and bounty lines)."""
    for block in split_blocks(numbered_lines(stream), _is_header, _HEADER_STARTS):
        if on_block is not None:
            on_block(block)
        yield from _block_outcomes(block, seats)


def phh_outcomes(path: Path) -> Iterator[Outcome]:
    """Every hand of a PHH file (`.phhs` holds many)."""
    text = path.read_text(encoding="utf-8-sig", errors="replace")
    try:
        values = parse_phh_all(text, name=path.stem) if path.suffix == ".phhs" else [parse_phh(text, name=path.stem)]
    except HandIntegrityError as exc:
        yield Rejected(1, exc.kind, str(exc).split(": ", 1)[-1])
        return
    for value in values:
        parsed = ParsedHand(value, [], [], 1, 1)
        yield validate_hand(parsed)


def file_outcomes(path: Path, fmt: str = "auto", seats: SeatTracker | None = None) -> Iterator[Outcome]:
    """Outcomes of one file: PHH by suffix (or `fmt='phh'`), else the text formats (with seat
    events when a `SeatTracker` is given: PHH files carry no seating between hands)."""
    if fmt == "phh" or (fmt == "auto" and path.suffix.lower() in PHH_SUFFIXES):
        yield from phh_outcomes(path)
        return
    with path.open("rb") as stream:
        yield from text_outcomes(stream, seats)
