"""`railbird simulate`: a simulated poker room's traffic to Kafka or a JSONL file, with ground truth."""

from __future__ import annotations

import argparse
import json
import math
import sys
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from pathlib import Path

from railbird.cli_types import utc_time
from railbird.commands.bounty_options import add_bounty_arguments, bounty_config, bounty_error
from railbird.settings import Settings
from simulator.config import RoomConfig
from simulator.room import Room
from simulator.sinks import JsonlSink, Sink, kafka_sink, paced, write_truth


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Room size and length, pacing, and where events, truth and summary go."""
    parser.add_argument("--seed", type=int, default=1, help="same seed, same events (default 1)")
    parser.add_argument("--players", type=int, default=300, help="accounts in the room (default 300)")
    parser.add_argument("--minutes", type=float, default=60.0, help="room time to simulate (default 60)")
    parser.add_argument("--profile", choices=["normal", "demo"], default="normal",
                        help="demo plants every kind of offence early and often")
    parser.add_argument("--rate", type=float, default=0.0, help="events per second (0 = as fast as possible)")
    parser.add_argument("--duration", type=float, default=None, help="stop after this many wall-clock seconds")
    parser.add_argument("--out", default=None, help="JSONL file of {topic, value} ('-' = stdout); default Kafka")
    parser.add_argument("--truth", default=None, help="ground-truth JSONL (one line per planted offence)")
    parser.add_argument("--summary", default=None, help="write the summary JSON here (default: stderr)")
    parser.add_argument("--no-hands", action="store_true", help="quick chip-only hands, no hand.records")
    add_bounty_arguments(parser)
    parser.add_argument("--bootstrap", default=None, help="Kafka bootstrap (default RAILBIRD_KAFKA_BOOTSTRAP)")
    parser.add_argument("--start", type=_start_time, default=None,
                        help="room start time: ISO 8601 with offset, 'now', or 'now-90m' / 'now-2h' (a room "
                             "already running); default a fixed date, so a seed gives byte-identical events")
    parser.add_argument("--live", action="store_true",
                        help="never send an event before the wall clock reaches its time (the demo's): a room "
                             "started in the past streams its history at --rate, then runs on the clock")


def _start_time(value: str) -> datetime:
    """`now` (the wall clock, whole seconds), `now-<N>m` / `now-<N>h`, or ISO 8601 with a UTC offset."""
    if value == "now" or value.startswith("now-"):
        return datetime.now(UTC).replace(microsecond=0) - _lead(value.removeprefix("now").removeprefix("-"))
    return utc_time(value)


def _lead(text: str) -> timedelta:
    """'' -> 0; '90m' -> 90 minutes; '2h' -> 2 hours; anything else is refused with the forms allowed."""
    if not text:
        return timedelta()
    unit = {"m": 60, "h": 3600}.get(text[-1:])
    try:
        amount = float(text[:-1]) if unit else math.nan
    except ValueError:
        amount = math.nan
    if unit is None or not math.isfinite(amount) or amount < 0:
        raise argparse.ArgumentTypeError(f"not a lead time: {text!r}; write e.g. now-90m or now-2h")
    return timedelta(seconds=amount * unit)


def _wall() -> datetime:
    return datetime.now(UTC)


def run(args: argparse.Namespace, settings: Settings) -> int:
    """Generate the room, send every event to the sink, then write truth and summary."""
    if args.players < 1 or args.minutes <= 0 or args.rate < 0:
        print("railbird simulate: --players and --minutes must be positive, --rate >= 0", file=sys.stderr)
        return 2
    if (error := bounty_error(args)) is not None:
        print(f"railbird simulate: {error}", file=sys.stderr)
        return 2
    config = RoomConfig.for_profile(args.profile, seed=args.seed, players=args.players,
                                    minutes=args.minutes, hands=not args.no_hands,
                                    **bounty_config(args), **({"start": args.start} if args.start else {}))
    room = Room(config)
    with ExitStack() as stack:
        sink: Sink
        if args.out == "-":
            sink = JsonlSink(sys.stdout)
        elif args.out:
            sink = JsonlSink(stack.enter_context(Path(args.out).open("w", encoding="utf-8")))
        else:
            try:
                sink = kafka_sink(args.bootstrap or settings.kafka_bootstrap)
            except Exception as exc:  # noqa: BLE001 - any client failure is reported, not a traceback
                print(f"railbird simulate: cannot reach Kafka: {type(exc).__name__}: {exc}", file=sys.stderr)
                return 1
        sent = 0
        last = None
        try:
            for topic, event in paced(room.events(), rate=args.rate, max_seconds=args.duration,
                                      wall=_wall if args.live else None):
                sink.write(topic, event)
                sent += 1
                last = event.ts
        finally:
            sink.close()
    complete = room.finished
    if not complete and last is not None:
        room.stop(last)  # stopped by --duration: truth only for what was sent
    if args.truth:
        with Path(args.truth).open("w", encoding="utf-8") as out:
            write_truth(room.truth, out)
    summary = room.summary() | {"sent": sent, "complete": complete}
    text = json.dumps(summary, indent=2, ensure_ascii=False)
    if args.summary:
        Path(args.summary).write_text(text + "\n", encoding="utf-8")
    else:
        print(text, file=sys.stderr)
    return 0
