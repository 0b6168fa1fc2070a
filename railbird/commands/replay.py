"""`railbird replay FILE.jsonl`: backtest recorded events offline, printing JSON lines."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pipeline.replay import replay_lines
from railbird.settings import Settings
from railbird.wiring import make_pipeline


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The file ('-' for stdin) and an optional filter on output kinds."""
    parser.add_argument("file", help="JSON lines of {topic, value}; '-' reads stdin")
    parser.add_argument(
        "--only", choices=["finding", "action", "dead_letter", "detector_error"], action="append"
    )
    parser.add_argument(
        "--no-flush", action="store_true",
        help="leave out what the detectors still hold back at the end of the file (reorder buffers), "
             "i.e. print what a live stream of the same events has emitted so far",
    )


def run(args: argparse.Namespace, settings: Settings) -> int:
    """Replay the file; exit 0 even with dead letters (they are part of the output)."""
    pipeline = make_pipeline(settings)
    if args.file == "-":
        lines = sys.stdin
    else:
        path = Path(args.file)
        if not path.is_file():
            print(f"railbird replay: no such file: {path}", file=sys.stderr)
            return 2
        lines = path.open(encoding="utf-8", errors="replace")
    for out in replay_lines(lines, pipeline, flush=not args.no_flush):
        if args.only is None or out["kind"] in args.only:
            sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
    return 0
