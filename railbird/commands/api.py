"""`railbird api`: the review API and console under uvicorn, migrations on start, outbox relay thread."""

from __future__ import annotations

import argparse
import logging
import os
from collections.abc import Callable

import uvicorn
from fastapi import FastAPI
from sqlalchemy.orm import Session, sessionmaker

from api.app import create_app
from api.db import make_engine, migrate
from api.outbox.leader import PgLeadership
from api.outbox.relay import Producer, Relay, kafka_producer
from consumers.codecs import compression_type
from consumers.topics import ensure_topics
from pipeline.contracts import ENFORCEMENT
from railbird.gc_tuning import tune_gc
from railbird.settings import Settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--host/--port override the settings; --no-relay disables the outbox relay."""
    parser.add_argument("--host", default=None, help="bind address (default RAILBIRD_API_HOST)")
    parser.add_argument("--port", type=int, default=None, help="port (default RAILBIRD_API_PORT)")
    parser.add_argument("--no-relay", action="store_true", help="do not publish the outbox to Kafka")
    parser.add_argument("--workers", type=int, default=1,
                        help="API worker processes (PostgreSQL only: SQLite has one writer); one relay publishes")


def relay_factory(settings: Settings) -> Callable[[sessionmaker[Session]], Relay]:
    """A function building the relay for the app's session factory."""

    def producer() -> Producer:
        # Topic creation is idempotent; doing it here means the relay also recovers a wiped broker.
        ensure_topics(settings.kafka_bootstrap, partitions=settings.topic_partitions,
                      replication=settings.topic_replication, topics=[ENFORCEMENT])
        return kafka_producer(settings.kafka_bootstrap, compression_type(settings.events_compression))

    url = settings.resolved_database_url()
    # On PostgreSQL every worker's relay competes for leadership (one publishes) and listens for
    # NOTIFY; with a single worker that costs one idle connection and keeps the same code path.
    leadership = (lambda wake: PgLeadership(url, wake=wake)) if url.startswith("postgresql") else None

    def build(sessions: sessionmaker[Session]) -> Relay:
        return Relay(sessions=sessions, producer_factory=producer, topic=ENFORCEMENT,
                     interval_s=settings.relay_interval_ms / 1000, leadership=leadership)

    return build


def run(args: argparse.Namespace, settings: Settings) -> int:
    """Serve until SIGINT/SIGTERM; uvicorn runs the lifespan (migrations, relay start/stop)."""
    logging.basicConfig(level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    host, port = args.host or settings.api_host, args.port or settings.api_port
    if args.no_relay:
        os.environ[NO_RELAY] = "1"  # read by worker_app in this process and in uvicorn's workers
    if args.workers > 1:
        if not settings.resolved_database_url().startswith("postgresql"):
            raise SystemExit("--workers > 1 needs PostgreSQL (RAILBIRD_DATABASE_URL): SQLite has one writer")
        migrate_once(settings)  # before the workers start, so they do not race on a fresh database
        uvicorn.run(f"{__name__}:worker_app", factory=True, workers=args.workers, host=host, port=port,
                    log_level=settings.log_level.lower(), access_log=False)
        return 0
    uvicorn.run(worker_app(settings), host=host, port=port, log_level=settings.log_level.lower(), access_log=False)
    return 0


NO_RELAY = "RAILBIRD_API_NO_RELAY"


def worker_app(settings: Settings | None = None) -> FastAPI:
    """The app of one API process (uvicorn calls it without arguments in each worker)."""
    settings = settings or Settings()
    enabled = settings.relay_enabled and os.environ.get(NO_RELAY) != "1"
    app = create_app(settings=settings, relay_factory=relay_factory(settings) if enabled else None)
    tune_gc()  # the app, its models and schemas are built: see railbird.gc_tuning
    return app


def migrate_once(settings: Settings) -> None:
    """Bring the schema up to date from the parent process."""
    engine = make_engine(settings.resolved_database_url())
    try:
        migrate(engine)
    finally:
        engine.dispose()
