"""The outbox relay is woken by the commit that enqueued an event, not by its fallback poll."""

from __future__ import annotations

import time

from api_factories import T0, batch, chat_finding
from api_support import SERVICE_TOKEN

from api.outbox.relay import Relay
from tests.api.test_api_relay import FlakyProducer

SVC = {"Authorization": f"Bearer {SERVICE_TOKEN}"}


def _wait_for(predicate, timeout_s: float) -> float:
    started = time.monotonic()
    while not predicate() and time.monotonic() - started < timeout_s:
        time.sleep(0.01)
    return time.monotonic() - started


def test_a_commit_that_enqueued_events_wakes_the_relay_at_once(client, clock):
    clock.now = T0
    producer = FlakyProducer(failures=0)
    # A 60 s fallback poll: only the commit hook can publish within the test's few seconds.
    relay = Relay(sessions=client.app.state.sessions, producer_factory=lambda: producer, topic="t", interval_s=60)
    relay.start()
    try:
        time.sleep(0.3)  # the relay found the outbox empty and sleeps on its 60 s poll
        assert producer.acked == []
        client.post("/v1/findings/batch", json=batch(chat_finding(1, automatic=True, kind="chat_mute")), headers=SVC)
        waited = _wait_for(lambda: len(producer.acked) == 1, timeout_s=10)
        assert len(producer.acked) == 1 and waited < 10
        # A write without an automatic action enqueues nothing; the next sanction is published in order.
        client.post("/v1/findings/batch", json=batch(chat_finding(2, player="p-quiet")), headers=SVC)
        client.post("/v1/findings/batch", json=batch(chat_finding(3, player="p-b", automatic=True,
                                                                  kind="chat_mute")), headers=SVC)
        _wait_for(lambda: len(producer.acked) == 2, timeout_s=10)
        assert [k for _, k, _ in producer.acked] == [b"p-alice", b"p-b"]
    finally:
        relay.stop()


def test_stop_removes_the_commit_hook(client, clock):
    clock.now = T0
    producer = FlakyProducer(failures=0)
    relay = Relay(sessions=client.app.state.sessions, producer_factory=lambda: producer, topic="t", interval_s=60)
    relay.start()
    relay.stop()
    client.post("/v1/findings/batch", json=batch(chat_finding(1, automatic=True, kind="chat_mute")), headers=SVC)
    time.sleep(0.3)
    assert producer.acked == []


def test_the_relay_thread_marks_published_events_off_its_own_path(client, engine, clock):
    """Acknowledged events are marked by the marker thread and never published twice meanwhile."""
    from sqlalchemy import select

    from api.db import make_sessions
    from api.outbox.models import OutboxEvent

    clock.now = T0
    producer = FlakyProducer(failures=0)
    relay = Relay(sessions=client.app.state.sessions, producer_factory=lambda: producer, topic="t", interval_s=0.01)
    relay.start()
    try:
        for i in range(5):
            client.post("/v1/findings/batch", json=batch(chat_finding(i, player=f"p-{i}", automatic=True,
                                                                      kind="chat_mute")), headers=SVC)

        def all_marked() -> bool:
            with make_sessions(engine)() as s:
                rows = list(s.scalars(select(OutboxEvent)))
            return len(rows) == 5 and all(r.published_at is not None for r in rows)

        _wait_for(all_marked, timeout_s=10)
        assert all_marked()
        time.sleep(0.2)  # many more relay polls: none republishes a marked or in-flight event
        assert sorted(k for _, k, _ in producer.acked) == sorted(f"p-{i}".encode() for i in range(5))
    finally:
        relay.stop()
