"""One chat offence, and a player's offences as the bytes of the ledger's changelog value.

The value is a player's whole in-window history (not a delta), so a log-compacted topic keyed by
player keeps exactly the last one and a re-sent value is harmless. Bounded: at most the ledger's
`max_per_player` offences (64) of at most `MAX_LINE` characters each, typically a few kB;
160 kB at worst (128-character ids, 4-byte characters, 50 spans per line), far below 1 MB.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from pipeline.findings import Span

MAX_LINE = 200
"""Characters of each offending line the ledger keeps: enough to read, small enough to bound."""

FORMAT = 1
"""Version of the serialized value; a value of another version is refused (`ValueError`)."""


@dataclass(frozen=True, slots=True)
class Offence:
    """One chat offence: the message that completed it, its category and finding."""

    event_id: str
    category: str
    finding_id: str
    detector: str
    line: tuple[str, str, str, tuple[Span, ...]] = ("", "", "", ())
    """(channel, nickname, text cut to `MAX_LINE` chars, spans within it) for the case's evidence."""
    source: int = -1
    """Input position (partition offset) of the message, when the runtime said (`OffenceLedger.at`);
    -1 offline. A restore drops offences of positions the consumer had not committed."""

    def same(self, other: Offence) -> bool:
        """The same finding of the same message (a replay re-records what a restore brought back)."""
        return self.finding_id == other.finding_id and self.event_id == other.event_id


def encode(history: Sequence[tuple[datetime, Offence]]) -> bytes:
    """A player's offences as compact JSON: {"v": 1, "o": [[ts, event, category, finding, detector,
    channel, nickname, text, [[start, end, label]...], source], ...]}."""
    rows = [
        [ts.isoformat(), o.event_id, o.category, o.finding_id, o.detector, *o.line[:3],
         [[s.start, s.end, s.label] for s in o.line[3]], o.source]
        for ts, o in history
    ]
    return json.dumps({"v": FORMAT, "o": rows}, separators=(",", ":"), ensure_ascii=False).encode()


def decode(value: bytes) -> list[tuple[datetime, Offence]]:
    """The offences of an `encode`d value; `ValueError` for anything else."""
    try:
        body = json.loads(value)
        if not isinstance(body, dict) or body.get("v") != FORMAT:
            raise ValueError(f"not a version {FORMAT} offence history")
        out = []
        for ts, event_id, category, finding_id, detector, channel, nickname, text, spans, source in body["o"]:
            line = (str(channel), str(nickname), str(text)[:MAX_LINE],
                    # Our own bytes, cast field by field: pydantic's validation was most of a restore.
                    tuple(Span.model_construct(start=int(s), end=int(e), label=str(label)) for s, e, label in spans))
            offence = Offence(str(event_id), str(category), str(finding_id), str(detector), line, int(source))
            out.append((datetime.fromisoformat(ts), offence))
        return out
    except (TypeError, KeyError, AttributeError) as exc:  # ValueError (JSON, pydantic) passes as is
        raise ValueError(f"malformed offence history: {exc}") from exc
