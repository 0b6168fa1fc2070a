"""Offline replay: JSON lines `{"topic": ..., "value": {...}}` through the same pipeline code.

Used by `railbird replay` for backtests and to check that the streaming path and the offline path
agree. A line that cannot be decoded becomes a dead-letter record in the output, never an exception.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from pipeline.contracts import DecodeError, decode
from pipeline.runner import Outcome, Pipeline


def envelope_line(topic: str, value: dict[str, Any]) -> str:
    """One replay line for an event (the format the simulator writes)."""
    return json.dumps({"topic": topic, "value": value}, ensure_ascii=False, separators=(",", ":"))


def split_envelope(line: str) -> tuple[str, bytes]:
    """Topic and raw value bytes of one replay line, or `DecodeError` with the reason."""
    try:
        obj = json.loads(line)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise DecodeError("not_json", f"line is not JSON: {exc}") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("topic"), str) or "value" not in obj:
        raise DecodeError("invalid", 'line must be {"topic": str, "value": object}')
    return obj["topic"], json.dumps(obj["value"], ensure_ascii=False).encode("utf-8")


def replay_lines(lines: Iterable[str], pipeline: Pipeline, *, flush: bool = True) -> Iterator[dict[str, Any]]:
    """Outputs in order: a `finding` and its `action`s, a `dead_letter`, or a `detector_error`.

    `flush`: at the end of the lines, also what the detectors still hold back (`Pipeline.flush`;
    outputs with `"line": null`). Off, the output is what a live stream of the same events has
    emitted so far, which is what the streaming-parity checks compare against."""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            topic, raw = split_envelope(line)
            event = decode(topic, raw)
        except DecodeError as exc:
            yield {"kind": "dead_letter", "line": number, "error_kind": exc.kind, "error": str(exc)}
            continue
        yield from _outputs(pipeline.process(topic, event), number)
    if flush:
        yield from _outputs(pipeline.flush(), None)


def _outputs(outcome: Outcome, number: int | None) -> Iterator[dict[str, Any]]:
    for finding in outcome.findings:
        yield {"kind": "finding", "line": number, "finding": finding.model_dump(mode="json")}
        for action in finding.actions:
            yield {
                "kind": "action",
                "line": number,
                "finding_id": finding.finding_id,
                "action": action.model_dump(mode="json"),
            }
    for err in outcome.errors:
        yield {"kind": "detector_error", "line": number, "detector": err.detector, "error": err.error}
