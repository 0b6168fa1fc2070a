"""Several API workers on PostgreSQL: one relay publishes (advisory-lock leader), woken by NOTIFY."""

from __future__ import annotations

import time

import pytest
from api_factories import T0, batch, chat_finding
from api_support import SERVICE_TOKEN
from sqlalchemy import Engine

from api.db import make_sessions
from api.outbox.leader import PgLeadership
from api.outbox.relay import Relay
from tests.api.test_api_relay import FlakyProducer

SVC = {"Authorization": f"Bearer {SERVICE_TOKEN}"}


def _wait_for(predicate, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


@pytest.fixture
def pg(pg_engine: Engine) -> Engine:
    from tests.api.conftest import _truncate

    _truncate(pg_engine)
    return pg_engine


def _ingest(engine: Engine, settings, app_config, *findings) -> None:
    """POST each finding as its own batch through an API "worker" that runs no relay of its own."""
    from fastapi.testclient import TestClient

    from api.app import create_app

    app = create_app(settings=settings, config=app_config, engine=engine, run_migrations=False)
    with TestClient(app) as client:
        for finding in findings:
            client.post("/v1/findings/batch", json=batch(finding), headers=SVC)


def _relay(engine: Engine, producer: FlakyProducer) -> Relay:
    # A 60 s fallback poll: within the test only NOTIFY (or taking over) can make a relay publish.
    url = engine.url.render_as_string(hide_password=False)
    return Relay(
        sessions=make_sessions(engine),
        producer_factory=lambda: producer,
        topic="t",
        interval_s=60,
        leadership=lambda wake: PgLeadership(url, wake=wake, retry_s=0.1),
    )


def test_one_of_two_relays_publishes_each_event_once_and_is_woken_by_another_workers_commit(
    pg, settings, app_config, clock
):
    clock.now = T0
    first, second = FlakyProducer(failures=0), FlakyProducer(failures=0)
    relays = [_relay(pg, first), _relay(pg, second)]
    for relay in relays:
        relay.start()
    try:
        assert _wait_for(lambda: sum(r._leadership.leading() for r in relays) == 1, 10)  # type: ignore[union-attr]
        # The API "worker" that ingests has no relay of its own: only NOTIFY reaches the leader.
        _ingest(pg, settings, app_config, chat_finding(1, automatic=True, kind="chat_mute"),
                chat_finding(2, player="p-b", automatic=True, kind="chat_mute"))
        assert _wait_for(lambda: len(first.acked) + len(second.acked) == 2, 10)
        time.sleep(0.3)
        acked = first.acked + second.acked
        assert [k for _, k, _ in acked] == [b"p-alice", b"p-b"]
        assert not (first.acked and second.acked)  # one publisher
    finally:
        for relay in relays:
            relay.stop()


def test_the_other_relay_takes_over_when_the_leader_stops(pg, settings, app_config, clock):
    clock.now = T0
    first, second = FlakyProducer(failures=0), FlakyProducer(failures=0)
    leader, follower = _relay(pg, first), _relay(pg, second)
    leader.start()
    assert _wait_for(lambda: leader._leadership.leading(), 10)  # type: ignore[union-attr]
    follower.start()
    try:
        time.sleep(0.3)
        assert not follower._leadership.leading()  # type: ignore[union-attr]
        leader.stop()
        assert _wait_for(lambda: follower._leadership.leading(), 10)  # type: ignore[union-attr]
        _ingest(pg, settings, app_config, chat_finding(1, automatic=True, kind="chat_mute"))
        assert _wait_for(lambda: len(second.acked) == 1, 10) and first.acked == []
    finally:
        follower.stop()
