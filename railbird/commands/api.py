"""`railbird api`: the review API and console under uvicorn, migrations on start, outbox relay thread."""

from __future__ import annotations

import argparse
import logging
from collections.abc import Callable

import uvicorn
from sqlalchemy.orm import Session, sessionmaker

from api.app import create_app
from api.outbox.relay import Producer, Relay, kafka_producer
from consumers.topics import ensure_topics
from pipeline.contracts import ENFORCEMENT
from railbird.settings import Settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--host/--port override the settings; --no-relay disables the outbox relay."""
    parser.add_argument("--host", default=None, help="bind address (default RAILBIRD_API_HOST)")
    parser.add_argument("--port", type=int, default=None, help="port (default RAILBIRD_API_PORT)")
    parser.add_argument("--no-relay", action="store_true", help="do not publish the outbox to Kafka")


def relay_factory(settings: Settings) -> Callable[[sessionmaker[Session]], Relay]:
    """A function building the relay for the app's session factory."""

    def producer() -> Producer:
        # Topic creation is idempotent; doing it here means the relay also recovers a wiped broker.
        ensure_topics(settings.kafka_bootstrap, partitions=settings.topic_partitions,
                      replication=settings.topic_replication, topics=[ENFORCEMENT])
        return kafka_producer(settings.kafka_bootstrap)

    def build(sessions: sessionmaker[Session]) -> Relay:
        return Relay(sessions=sessions, producer_factory=producer, topic=ENFORCEMENT,
                     interval_s=settings.relay_interval_ms / 1000)

    return build


def run(args: argparse.Namespace, settings: Settings) -> int:
    """Serve until SIGINT/SIGTERM; uvicorn runs the lifespan (migrations, relay start/stop)."""
    logging.basicConfig(level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    relay = relay_factory(settings) if settings.relay_enabled and not args.no_relay else None
    app = create_app(settings=settings, relay_factory=relay)
    uvicorn.run(app, host=args.host or settings.api_host, port=args.port or settings.api_port,
                log_level=settings.log_level.lower(), access_log=False)
    return 0
