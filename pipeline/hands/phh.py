"""PHH (Poker Hand History, TOML) text -> `hand.records` values, through pokerkit's reader."""

from __future__ import annotations

import warnings
from datetime import UTC, datetime
from typing import Any

from pokerkit import HandHistory

from pipeline.hands.errors import HandIntegrityError
from pipeline.hands.ids import safe_id

_VARIANTS = {"NT", "FT", "PO", "FO/8", "NS", "FB", "F7S", "F7S/8", "FR", "NR", "PD", "FD"}


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
    record: dict[str, Any] = {
        "event_id": safe_id(f"phh-{hand}"),
        "ts": _timestamp(hh),
        "hand_id": safe_id(f"phh-{hand}"),
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
        "rake": hh.rake if isinstance(hh.rake, int) else 0,  # pokerkit may hold a rake function
    }
    if record["game"] == "tournament":
        record["tournament_id"] = safe_id(str(hh.event))
    return record


def _per_player(values: Any, n: int) -> list[int]:
    if isinstance(values, int | float):
        return [int(values)] * n
    out = [int(v) for v in values or []]
    return out + [0] * (n - len(out)) if out else [0] * n


def _timestamp(hh: Any) -> str:
    try:
        moment = datetime(int(hh.year), int(hh.month), int(hh.day), tzinfo=UTC)
        if hh.time is not None:
            moment = moment.replace(hour=hh.time.hour, minute=hh.time.minute, second=hh.time.second)
    except (TypeError, ValueError):
        moment = datetime(1970, 1, 1, tzinfo=UTC)  # PHH files often carry no date; keep them replayable
    return moment.isoformat()


def parse_phh_all(text: str, *, name: str) -> list[dict[str, Any]]:
    """Every hand of a multi-hand PHH document (`.phhs`), in order."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            histories = list(HandHistory.loads_all(text))
    except Exception as exc:  # noqa: BLE001 - see parse_phh
        raise HandIntegrityError("parse_error", f"{name}: {type(exc).__name__}: {exc}") from None
    return [from_history(hh, name=f"{name}-{k}") for k, hh in enumerate(histories, start=1)]
