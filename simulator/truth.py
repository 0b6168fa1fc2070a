"""Ground truth: one row per planted (or mechanically committed) offence, and the room summary."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pipeline.contracts import SeatActivity

MIN_HANDS = 10
"""House rule 7: leaving a cash table before the 10th hand is a refusal to play."""


@dataclass(frozen=True, slots=True)
class TruthRow:
    """A planted offence: its category, offenders (first = main), window and the events showing it."""

    category: str
    players: tuple[str, ...]
    start: datetime
    end: datetime
    event_ids: tuple[str, ...]
    detail: dict[str, Any] = field(default_factory=dict)
    table_id: str | None = None
    tournament_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The ground-truth JSONL line's object."""
        out: dict[str, Any] = {
            "category": self.category,
            "players": list(self.players),
            "start": _iso(self.start),
            "end": _iso(self.end),
            "event_ids": list(self.event_ids),
            "detail": self.detail,
        }
        if self.table_id is not None:
            out["table_id"] = self.table_id
        if self.tournament_id is not None:
            out["tournament_id"] = self.tournament_id
        return out

    @staticmethod
    def from_json(obj: dict[str, Any]) -> TruthRow:
        """Parse one ground-truth line's object."""
        return TruthRow(
            category=obj["category"], players=tuple(obj["players"]),
            start=datetime.fromisoformat(obj["start"]), end=datetime.fromisoformat(obj["end"]),
            event_ids=tuple(obj["event_ids"]), detail=dict(obj.get("detail", {})),
            table_id=obj.get("table_id"), tournament_id=obj.get("tournament_id"),
        )


def _iso(value: datetime) -> str:
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


class RefusalAuditor:
    """Derives hit-and-run truth from the seat events themselves, exactly as rule 7 reads.

    Every cash stint that ends (leave, or `sit_out_timeout_removal`) after 1 to 9 hands is a row,
    unless the player was alone or every other player sat out; the format is kept in `detail`
    because which formats are exempt depends on the rules version the evaluation runs with.
    """

    def __init__(self) -> None:
        self._joins: dict[tuple[str, str], SeatActivity] = {}
        self._history: dict[tuple[str, str], list[datetime]] = {}

    def observe(self, event: SeatActivity) -> TruthRow | None:
        """Feed a seat event; a row when it completes a refusal."""
        if event.game != "cash":
            return None
        key = (event.player_id, event.table_id)
        if event.action == "join":
            self._joins[key] = event
            return None
        if event.action not in ("leave", "sit_out_timeout_removal"):
            return None
        joined = self._joins.pop(key, None)
        # The stint ends at the leave or at removal by the sit-out timer (issue #5's definition): a
        # player who sits out or drops until the server removes them has left after those hands too.
        if joined is None or not 1 <= event.hands_played_at_table < MIN_HANDS:
            return None  # 0 hands is not a refusal (issue #5): sitting down and leaving unplayed
        if event.players_seated == 1 or event.others_sitting_out == event.players_seated - 1:
            return None
        past = self._history.setdefault((event.player_id, event.blind_level), [])
        past[:] = [t for t in past if (event.ts - t).total_seconds() < 12 * 3600]
        past.append(event.ts)
        return TruthRow(
            category="hit_and_run", players=(event.player_id,), start=joined.ts, end=event.ts,
            event_ids=(joined.event_id, event.event_id), table_id=event.table_id,
            detail={
                "format": event.format, "blind_level": event.blind_level,
                "hands": event.hands_played_at_table, "refusal_in_12h": len(past),
                "end_action": event.action,
            },
        )
