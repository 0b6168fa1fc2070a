"""`railbird archive`: copy the input topics into the event archive until SIGINT/SIGTERM."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading

from consumers.archiver import Archiver, ArchiverConfig
from railbird.retro_jobs import archive_root
from railbird.settings import Settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No options: everything comes from the settings (RAILBIRD_DATA_DIR, RAILBIRD_RETENTION_DAYS)."""


def run(args: argparse.Namespace, settings: Settings) -> int:
    """Archive until stopped; the hours older than the evidence retention are deleted hourly."""
    logging.basicConfig(level=settings.log_level, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    config = ArchiverConfig(bootstrap=settings.kafka_bootstrap, root=archive_root(settings),
                            group_prefix=settings.consumer_group_prefix, retention_days=settings.retention_days,
                            session_timeout_ms=settings.consumer_session_timeout_ms,
                            heartbeat_ms=settings.consumer_heartbeat_ms)
    try:
        archiver = Archiver(config)
    except Exception as exc:  # noqa: BLE001 - an unreachable broker is a message, not a traceback
        print(f"railbird archive: cannot reach Kafka at {settings.kafka_bootstrap}: {type(exc).__name__}: {exc}",
              file=sys.stderr)
        return 1
    written = archiver.run(stop)
    print(f"railbird archive: stopped after {written} records into {config.root}", file=sys.stderr)
    return 0
