"""Structured JSON logs (one object per line) with event ids; secrets are redacted on the way out."""

from __future__ import annotations

import json
import logging
import re
import sys
from datetime import UTC, datetime
from typing import IO, Any

CONTEXT_FIELDS = ("topic", "partition", "offset", "event_id", "detector", "group", "kind", "count", "delay_s")
SECRET = re.compile(
    r"(Bearer\s+)[A-Za-z0-9._~+/=-]+|((?:token|password|secret)[\"']?\s*[:=]\s*[\"']?)[^\s\"',}]+", re.I
)


def redact(text: str) -> str:
    """Text with bearer tokens and `token=...`-style values replaced by `***`."""
    return SECRET.sub(lambda m: (m.group(1) or m.group(2) or "") + "***", text)


class JsonFormatter(logging.Formatter):
    """Formats a record as one JSON object: time, level, logger, message and known context fields."""

    def format(self, record: logging.LogRecord) -> str:
        """The JSON line for `record`."""
        out: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "msg": redact(record.getMessage()),
        }
        for name in CONTEXT_FIELDS:
            if name in record.__dict__:
                out[name] = record.__dict__[name]
        if record.exc_info:
            out["exc"] = redact(self.formatException(record.exc_info))
        return json.dumps(out, ensure_ascii=False, default=str)


def configure_json_logging(*, level: str, stream: IO[str] | None = None) -> None:
    """Route the root logger to `stream` (stderr) as JSON lines; called once, from the command."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # kafka-python logs every reconnect at INFO/WARNING; keep its noise out of our stream.
    logging.getLogger("kafka").setLevel(logging.ERROR)
    # httpx logs every request at INFO: one line per batch is noise, errors come from the lane.
    logging.getLogger("httpx").setLevel(logging.WARNING)
