"""Builders shared by the chat-area tests: chat messages, SnapCam reports, a fake classifier."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

from pipeline.contracts import ChatMessage, SnapCamReport
from pipeline.findings import Span
from pipeline.text_model import TextVerdict

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def msg(text: str, *, at: float = 0.0, event_id: str | None = None, **fields: Any) -> ChatMessage:
    """A table message by p1 at T0 + `at` seconds; override any field."""
    values: dict[str, Any] = {
        "event_id": event_id or f"m{abs(hash((text, at, tuple(sorted(fields.items(), key=str))))) % 10**12}",
        "ts": T0 + timedelta(seconds=at),
        "channel": "table",
        "player_id": "p1",
        "nickname": "Bob",
        "text": text,
        "client": "desktop",
        "table_id": "t1",
    }
    values.update(fields)
    return ChatMessage.model_validate(values)


def report(
    reporter: str, reported: str, *, at: float = 0.0, report_id: str | None = None, **fields: Any
) -> SnapCamReport:
    """A SnapCam report at T0 + `at` seconds."""
    rid = report_id or f"r-{reporter}-{reported}-{int(at)}"
    values: dict[str, Any] = {
        "event_id": f"e-{rid}",
        "ts": T0 + timedelta(seconds=at),
        "report_id": rid,
        "reporter_id": reporter,
        "reported_id": reported,
        "reason": "offensive",
        "comment": "",
        "clip_ref": f"clip://{rid}",
        "table_id": "t1",
    }
    values.update(fields)
    return SnapCamReport.model_validate(values)


class FakeClassifier:
    """Hand-written stand-in for the model: flags texts containing a marker word.

    `toxic` -> insult 0.99, `meanish` -> insult 0.7, `threatening` -> threat 0.9; anything else clean.
    Counts calls so tests can check batching and caching.
    """

    MARKERS: ClassVar[dict[str, tuple[str, float]]] = {"toxic": ("insult", 0.99), "meanish": ("insult", 0.7), "threatening": ("threat", 0.9)}

    def __init__(self) -> None:
        self.calls = 0
        self.texts = 0

    def classify(self, texts: Sequence[str]) -> list[TextVerdict]:
        self.calls += 1
        self.texts += len(texts)
        return [self._one(t) for t in texts]

    def _one(self, text: str) -> TextVerdict:
        lowered = text.lower()
        for marker, (category, score) in self.MARKERS.items():
            at = lowered.find(marker)
            if at >= 0:
                span = Span(start=at, end=at + len(marker), label=category)
                return TextVerdict(scores={category: score, "spam": 0.01}, spans=(span,), language="en", flagged=(category,))
        return TextVerdict(scores={"insult": 0.01}, language="en")
