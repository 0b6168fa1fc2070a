"""`railbird retro`: retroactive runs. `run` checks, queues and executes one range at once (the
same checks and record as `POST /v1/retro-runs`); `work` executes the runs admins queue."""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
from datetime import UTC, datetime, timedelta

from sqlalchemy.orm import Session, sessionmaker

from api.db import make_engine, make_sessions, migrate
from api.errors import ServiceError
from api.retro import service
from api.retro.views import known_detectors
from railbird.cli_types import utc_time
from railbird.retro_jobs import Sources, archive_root, kafka_reader, run_claimed, work, worker_name
from railbird.settings import Settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """`run` with its range and choices, or `work`."""
    sub = parser.add_subparsers(dest="action", required=True)
    one = sub.add_parser("run", help="check, record and execute one run now; prints its result as JSON")
    one.add_argument("--start", required=True, type=utc_time, help="ISO 8601 with a UTC offset")
    one.add_argument("--end", required=True, type=utc_time, help="ISO 8601 with a UTC offset")
    one.add_argument("--detectors", default=None, help="comma-separated detector names (default: all)")
    one.add_argument("--revision", type=int, default=None, help="policy revision (default: the one in force)")
    one.add_argument("--source", choices=service.SOURCES, default="auto")
    one.add_argument("--warmup-hours", type=float, default=13.0)
    one.add_argument("--reason", default="run from the command line")
    loop = sub.add_parser("work", help="execute queued runs until SIGINT/SIGTERM")
    loop.add_argument("--once", action="store_true", help="stop when the queue is empty")
    loop.add_argument("--poll-s", type=float, default=2.0)


def run(args: argparse.Namespace, settings: Settings) -> int:
    """0: done (or the worker stopped); 1: the run failed (its error is printed); 2: refused."""
    logging.basicConfig(level=settings.log_level, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    engine = make_engine(settings.resolved_database_url())
    migrate(engine)
    sessions = make_sessions(engine)
    sources = Sources(archive=archive_root(settings), kafka=kafka_reader(settings))
    try:
        if args.action == "work":
            stop = threading.Event()
            for sig in (signal.SIGINT, signal.SIGTERM):
                signal.signal(sig, lambda *_: stop.set())
            done = work(settings=settings, sessions=sessions, sources=sources, stop=stop, once=args.once,
                        poll_s=args.poll_s)
            print(f"railbird retro work: {done} run(s) executed", file=sys.stderr)
            return 0
        return _run_one(args, settings, sessions, sources)
    finally:
        engine.dispose()


def _run_one(args: argparse.Namespace, settings: Settings, factory: sessionmaker[Session], sources: Sources) -> int:
    request = service.RetroRequest(
        start=args.start, end=args.end,
        detectors=None if args.detectors is None else tuple(d.strip() for d in args.detectors.split(",") if d.strip()),
        policy_revision=args.revision, source=args.source, warmup=timedelta(hours=args.warmup_hours),
        reason=args.reason,
    )
    limits = service.RetroLimits(archive_root=sources.archive, retention_days=settings.retention_days,
                                 known_detectors=known_detectors(settings.rules_version))
    worker = worker_name()
    with factory() as session:
        try:
            queued = service.create(session, request=request, limits=limits, actor="cli", now=datetime.now(UTC))
        except ServiceError as exc:
            print(f"railbird retro: {exc.message}", file=sys.stderr)
            return 2
        claimed = service.claim(session, worker=worker, now=datetime.now(UTC), run_id=queued.id)
        if claimed is None:
            print(f"railbird retro: run {queued.id} was taken by another worker", file=sys.stderr)
            return 1
        session.expunge(claimed)
    finished = run_claimed(claimed, settings=settings, sessions=factory, sources=sources, worker=worker)
    if finished.status != "done":
        print(f"railbird retro: run {finished.id} failed: {finished.error}", file=sys.stderr)
        return 1
    print(json.dumps({"id": finished.id, **(finished.result or {})}, ensure_ascii=False, indent=1))
    return 0
