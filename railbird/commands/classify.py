"""`railbird classify`: one JSON verdict per stdin line (plain text or {"text": ...} JSON lines)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from railbird.settings import Settings

BATCH = 256


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Input format and model path."""
    parser.add_argument("--json", action="store_true", help='lines are JSON objects with a "text" field')
    parser.add_argument("--model", type=Path, default=None, help="artifact (default: settings / shipped)")


def parse_line(line: str, *, as_json: bool) -> tuple[str | None, str | None]:
    """(text, None) or (None, reason it cannot be classified)."""
    line = line.rstrip("\r\n")
    if not as_json and not line.lstrip().startswith("{"):
        return line, None
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        return (None, f"invalid JSON: {exc.msg}") if as_json else (line, None)
    if not isinstance(obj, dict) or not isinstance(obj.get("text"), str):
        return None, 'expected a JSON object with a string "text"'
    return obj["text"], None


def _batches(lines: Iterable[str], size: int) -> Iterator[list[str]]:
    batch: list[str] = []
    for line in lines:
        batch.append(line)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def run(args: argparse.Namespace, settings: Settings) -> int:
    """Classify stdin in batches; a line that cannot be read yields {"error": reason}."""
    from models.chat import load_classifier
    from models.chat.normalize import MAX_CHARS

    try:
        classifier = load_classifier(args.model or settings.chat_model_path, cache_dir=settings.resolved_cache_dir())
    except (OSError, ValueError) as exc:  # a missing or broken artifact: say so before reading stdin
        print(f"railbird classify: cannot load the chat model ({exc})", file=sys.stderr)
        return 2
    for batch in _batches(sys.stdin, BATCH):
        parsed = [parse_line(line, as_json=args.json) for line in batch]
        texts = [t for t, _ in parsed if t is not None]
        verdicts = iter(classifier.classify(texts))
        for text, error in parsed:
            out: dict[str, Any]
            if text is None:
                out = {"error": error}
            else:
                v = next(verdicts)
                out = {
                    "language": v.language,
                    "flagged": list(v.flagged),
                    # Past the automatic-action point too (None: the artifact states no points).
                    "automatic": None if v.automatic is None else list(v.automatic),
                    "scores": {c: round(x, 4) for c, x in v.scores.items()},
                    "spans": [s.model_dump() for s in v.spans],
                }
                if len(text) > MAX_CHARS:
                    out["note"] = f"analysed the first {MAX_CHARS} of {len(text)} characters"
                elif not text.strip():
                    out["note"] = "empty message"
            sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
    return 0
