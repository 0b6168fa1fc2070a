"""PHH (Poker Hand History, TOML) text -> `hand.records` values, through pokerkit's reader.

Railbird's own facts come back from the user-defined fields `phh_out.py` writes (`_event_id`,
`_hand_id`, `_blind_level`, `_started_at`, `_bounties`, `_eliminated`, `_bounties_won`, `_places`,
`_run_count`, `_rake`), so an imported hand written as PHH reads back to the same record; PHH files from
elsewhere have none of them and get ids made from `hand` (or the file name)."""

from __future__ import annotations

import warnings
from datetime import UTC, datetime
from typing import Any, get_args
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pokerkit import HandHistory

from pipeline.hands.errors import HandIntegrityError
from pipeline.hands.ids import safe_id
from pipeline.hands.variants import Variant

_VARIANTS = set(get_args(Variant))
"""PHH's codes and the PHH-style ones Railbird adds (PO5, PO/8, ...: `variants.py`), which `phh_out` writes."""
_CARRIED = ("blind_level", "started_at", "bounties", "eliminated", "bounties_won", "places", "run_count")
"""Record fields read from the user-defined field `_<name>` when a file has it."""


def parse_phh(text: str, *, name: str) -> dict[str, Any]:
    """One PHH document -> a hand.records value; `HandIntegrityError` when it cannot be read."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pokerkit warns about non-standard fields; not our concern
            hh = HandHistory.loads(text)
    except Exception as exc:  # noqa: BLE001 - pokerkit raises many types on bad files; all mean unreadable
        raise HandIntegrityError("parse_error", f"{name}: {type(exc).__name__}: {exc}") from None
    return from_history(hh, name=name)


def from_history(hh: Any, *, name: str) -> dict[str, Any]:
    """A pokerkit `HandHistory` -> hand.records value (heads-up blinds un-reversed to literal)."""
    variant = str(getattr(hh, "variant", ""))
    if variant not in _VARIANTS:
        raise HandIntegrityError("unknown_variant", f"{name}: variant {variant!r}")
    n = len(hh.starting_stacks)
    players = [safe_id(str(p)) for p in (hh.players or [f"p{i + 1}" for i in range(n)])]
    blinds = [int(b) for b in hh.blinds_or_straddles or [0] * n]
    antes = _per_player(hh.antes, n)
    if n == 2:
        # pokerkit reverses heads-up blinds (player 1 posts the second entry); records are literal.
        blinds, antes = blinds[::-1], antes[::-1]
    hand = str(hh.hand if getattr(hh, "hand", None) is not None else name)
    extra = dict(getattr(hh, "user_defined_fields", None) or {})
    record: dict[str, Any] = {
        "event_id": str(extra.get("_event_id") or safe_id(f"phh-{hand}")),
        "ts": _timestamp(hh),
        "hand_id": str(extra.get("_hand_id") or safe_id(f"phh-{hand}")),
        "table_id": safe_id(str(getattr(hh, "table", None) or name)),
        "game": "tournament" if getattr(hh, "event", None) else "cash",
        "variant": variant,
        "antes": antes,
        "blinds_or_straddles": blinds,
        "min_bet": int(hh.min_bet or max(blinds or [1])),
        "starting_stacks": [int(s) for s in hh.starting_stacks],
        "players": players,
        "seats": [int(s) for s in hh.seats] if getattr(hh, "seats", None) else [],
        "actions": list(hh.actions),
        "finishing_stacks": [int(s) for s in hh.finishing_stacks] if hh.finishing_stacks else [],
        "winnings": [int(s) for s in hh.winnings] if hh.winnings else [],
        # `_rake` as phh_out writes it; else a number in `rake` (pokerkit holds a function there by default).
        "rake": int(extra.get("_rake", hh.rake if isinstance(hh.rake, int) else 0)),
    }
    if record["game"] == "tournament":
        record["tournament_id"] = safe_id(str(hh.event))
    for field in _CARRIED:
        if f"_{field}" in extra:
            record[field] = extra[f"_{field}"]  # the contract checks them like any other field
    return record


def _per_player(values: Any, n: int) -> list[int]:
    if isinstance(values, int | float):
        return [int(values)] * n
    out = [int(v) for v in values or []]
    return out + [0] * (n - len(out)) if out else [0] * n


def _timestamp(hh: Any) -> str:
    try:
        moment = datetime(int(hh.year), int(hh.month), int(hh.day), tzinfo=_zone(hh))
        if hh.time is not None:
            moment = moment.replace(hour=hh.time.hour, minute=hh.time.minute, second=hh.time.second,
                                    microsecond=hh.time.microsecond)
    except (TypeError, ValueError):
        moment = datetime(1970, 1, 1, tzinfo=UTC)  # PHH files often carry no date; keep them replayable
    return moment.astimezone(UTC).isoformat()


def _zone(hh: Any) -> Any:
    """The file's `time_zone` when it names one (IANA or UTC), else UTC as before."""
    name = getattr(hh, "time_zone", None)
    if not isinstance(name, str) or name.upper() == "UTC":
        return UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return UTC  # an abbreviation like 'ET' names no single zone; keep the file replayable


def parse_phh_all(text: str, *, name: str) -> list[dict[str, Any]]:
    """Every hand of a multi-hand PHH document (`.phhs`), in order."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            histories = list(HandHistory.loads_all(text))
    except Exception as exc:  # noqa: BLE001 - see parse_phh
        raise HandIntegrityError("parse_error", f"{name}: {type(exc).__name__}: {exc}") from None
    return [from_history(hh, name=f"{name}-{k}") for k, hh in enumerate(histories, start=1)]
