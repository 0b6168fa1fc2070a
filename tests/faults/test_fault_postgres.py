"""PostgreSQL drops the API's connections again and again while traffic flows (what a failover or
an operator's `pg_terminate_backend` does): the API answers 503, the consumer retries, and every
event still has exactly one effect."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from consumers.broker import EmbeddedBroker, free_port
from tests.faults.checks import (
    assert_exactly_once,
    end_traffic,
    order_sensitive_difference,
    wait_for_all_effects,
)
from tests.faults.rig import Rig, account, make_rig, wait_until
from tests.faults.traffic import chat_traffic, oracle, reorder_lateness_s, watermark_tail
from tests.postgres import ADMIN_URL, scratch_database, unavailable

pytestmark = [pytest.mark.faults, pytest.mark.kafka, pytest.mark.postgres, pytest.mark.slow]

EVENTS = 2_000
RATE = 150


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh PostgreSQL database (skipped with the reason when no server answers)."""
    reason = unavailable()
    if reason is not None:
        pytest.skip(reason)
    with scratch_database("railbird_faults") as url:
        yield url


def _terminator(url: str, stop: threading.Event, killed: list[int]) -> None:
    database = url.rsplit("/", 1)[1]
    admin = create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
    try:
        while not stop.wait(0.3):
            with admin.connect() as conn:
                n = conn.execute(text("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                                      "WHERE datname = :d AND pid <> pg_backend_pid()"), {"d": database}).scalar()
            killed.append(int(n or 0))
    finally:
        admin.dispose()


def test_terminated_postgres_connections_lose_and_duplicate_nothing(tmp_path: Path, pg_url: str,
                                                                    oracle_pipeline_factory) -> None:
    lateness = reorder_lateness_s(RATE)
    records = chat_traffic(EVENTS, seed=53)
    tail = watermark_tail(EVENTS, lateness_s=lateness)
    expected = oracle(records + tail, oracle_pipeline_factory(lateness))
    with EmbeddedBroker(port=free_port(), log_path=tmp_path / "logs" / "broker.log") as broker:
        base = make_rig(tmp_path, broker)
        rig = Rig(tmp=base.tmp, broker=base.broker, db_path=base.db_path, database_url=pg_url,
                  chat_lateness_s=lateness)
        stop, killed = threading.Event(), []
        try:
            rig.start_api()
            rig.start_consumer()
            wait_until(lambda: "partitions assigned" in (tmp_path / "logs" / "consume-0.log").read_text(),
                       timeout_s=60, what="the consumer to join")
            terminator = threading.Thread(target=_terminator, args=(pg_url, stop, killed), daemon=True)
            terminator.start()
            rig.produce(records, rate_per_s=RATE)
            stop.set()
            terminator.join(10)
            assert sum(killed) > 0, "connections were really terminated"
            api_log = (tmp_path / "logs" / "api.log").read_text(errors="replace")
            consumer_log = (tmp_path / "logs" / "consume-0.log").read_text(errors="replace")
            felt = consumer_log.count("unavailable (503)") + api_log.count("OperationalError")
            assert felt > 0, "the API felt the terminations (503 to the consumer or relay retries)"
            end_traffic(rig, tail, produced=EVENTS, timeout_s=180)
            wait_for_all_effects(rig, expected, n=EVENTS + len(tail), timeout_s=180)
            acc = account(rig, input_records=EVENTS + len(tail))
            print("postgres terminations:", {"terminated": sum(killed), "felt": felt}, order_sensitive_difference(acc, expected),
                  acc.figures())
            assert not rig.crashed()
            # A connection killed between the broker's ack and the relay's "published" update makes
            # the relay publish that event again, with the same id (at-least-once, de-duplicated
            # by id downstream); every other effect is exactly once.
            assert_exactly_once(acc, expected, allow_republish=True)
        finally:
            stop.set()
            rig.stop_all()
