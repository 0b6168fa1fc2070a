"""`railbird broker`: run the embedded broker in the foreground until Ctrl-C."""

from __future__ import annotations

import argparse
import signal
import threading

from consumers.broker import EmbeddedBroker
from consumers.topics import ensure_topics
from railbird.settings import Settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--port overrides the configured embedded broker port."""
    parser.add_argument("--port", type=int, default=None, help="loopback port (default from settings)")


def run(args: argparse.Namespace, settings: Settings) -> int:
    """Start tansu, create the topics, wait for SIGINT/SIGTERM, stop."""
    port = args.port or settings.embedded_broker_port
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    with EmbeddedBroker(port=port, log_path=settings.data_dir / "broker.log") as broker:
        created = ensure_topics(broker.bootstrap, partitions=settings.topic_partitions)
        print(f"broker listening on {broker.bootstrap}; created topics: {', '.join(created) or 'none'}")
        stop.wait()
    return 0
