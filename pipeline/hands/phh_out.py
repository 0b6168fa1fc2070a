"""`hand.records` values -> PHH (Poker Hand History, TOML) text that `phh.py` reads back to the same record.

The PHH fields carry what PHH has a field for: `variant`, `antes`, `blinds_or_straddles`, `min_bet`,
`starting_stacks`, `actions`, `players`, `seats`, `finishing_stacks`, `winnings`, `hand`, `table`,
`event` (tournaments only), and the start as `year`/`month`/`day`/`time` with `time_zone = "UTC"`
(records are in UTC). Railbird's own facts go in user-defined fields, which PHH spells with a leading
underscore so any reader ignores them: `_event_id`, `_hand_id` (the record's ids; `hand` alone would
come back as `phh-<hand>`), `_blind_level`, `_started_at`, `_bounties`, `_eliminated`,
`_bounties_won`, `_places`, `_run_count`, and `_rake` (when the house took something: pokerkit's own
`rake` field is a function, so a number there would stop pokerkit replaying the file).

Two departures from plain PHH, both forced by the record: heads-up blinds and antes are written in
pokerkit's reversed order (`phh.py` un-reverses them on reading, so a record is literal); and the
variant is Railbird's code, which is PHH's wherever PHH has the game (NT, NS, PO, FO/8, ...) and
PHH-style otherwise (PT, FO, PO/8, PO5, PO6: `variants.py`), which other PHH readers will not know.
Pure: no I/O; the caller writes the text.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

_OPTIONAL = ("blind_level", "started_at", "bounties", "eliminated", "bounties_won", "places")
"""Record fields PHH has no field for, written as `_<name>` when the record has them."""
_LISTS = ("antes", "blinds_or_straddles", "starting_stacks", "players", "seats", "actions",
          "finishing_stacks", "winnings")


def to_phh(record: Mapping[str, Any]) -> str:
    """One PHH document (what a `.phh` file holds) for one `hand.records` value."""
    lines = [f"variant = {_value(record['variant'])}"]
    antes, blinds = list(record.get("antes", [])), list(record.get("blinds_or_straddles", []))
    if len(record["players"]) == 2:
        # pokerkit reverses heads-up blinds (player 1 posts the second entry); `phh.py` flips them back.
        antes, blinds = antes[::-1], blinds[::-1]
    fields: dict[str, Any] = {name: record.get(name, []) for name in _LISTS}
    fields["antes"], fields["blinds_or_straddles"] = antes, blinds
    for name in ("antes", "blinds_or_straddles"):
        lines.append(f"{name} = {_value(fields[name])}")
    lines.append(f"min_bet = {_value(record['min_bet'])}")
    if str(record["variant"]).startswith("F"):
        # PHH sizes fixed-limit games by small and big bet; the engine's big bet is twice `min_bet`.
        lines.append(f"small_bet = {_value(record['min_bet'])}")
        lines.append(f"big_bet = {_value(2 * int(record['min_bet']))}")
    for name in _LISTS[2:]:
        if fields[name] or name in ("starting_stacks", "actions", "players"):
            lines.append(f"{name} = {_value(fields[name])}")
    lines.append(f"hand = {_value(record['hand_id'])}")
    lines.append(f"table = {_value(record['table_id'])}")
    if record.get("game") == "tournament" and record.get("tournament_id"):
        lines.append(f"event = {_value(record['tournament_id'])}")
    lines += _moment(str(record["ts"]))
    if record.get("rake"):
        lines.append(f"_rake = {_value(record['rake'])}")
    lines.append(f"_event_id = {_value(record['event_id'])}")
    lines.append(f"_hand_id = {_value(record['hand_id'])}")
    for name in _OPTIONAL:
        if name in record and record[name] is not None:
            lines.append(f"_{name} = {_value(record[name])}")
    if record.get("run_count", 1) != 1:
        lines.append(f"_run_count = {_value(record['run_count'])}")
    return "\n".join(lines) + "\n"


def to_phhs_section(number: int, record: Mapping[str, Any]) -> str:
    """Hand `number` (from 1) of a `.phhs` document: a TOML table `[number]` holding one PHH hand."""
    return f"[{number}]\n{to_phh(record)}\n"


def _moment(ts: str) -> list[str]:
    moment = datetime.fromisoformat(ts).astimezone(UTC)
    clock = moment.strftime("%H:%M:%S") + (f".{moment.microsecond:06d}" if moment.microsecond else "")
    return [f"year = {moment.year}", f"month = {moment.month}", f"day = {moment.day}",
            f"time = {clock}", 'time_zone = "UTC"']


def _value(value: Any) -> str:
    """A TOML value: strings quoted and escaped, ints, lists, inline tables with quoted keys."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_string(str(k))} = {_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no PHH value for {type(value).__name__}: {value!r}")


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _string(text: str) -> str:
    # TOML basic strings forbid raw control characters (and DEL): escape them, keep the rest as is.
    out = []
    for char in text:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'
