"""Asynchronous commits: what a failed or unanswered commit leads to."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kafka import TopicPartition
from kafka.errors import RequestTimedOutError

from pipeline.contracts import CHAT
from tests.consumers.kafka_fakes import FakeConsumer, step
from tests.consumers.review_api_double import IngestStore
from tests.consumers.test_consumer_lane import chat_bytes, make_lane

TP0 = TopicPartition(CHAT, 0)


@dataclass
class SilentBroker(FakeConsumer):
    """Asynchronous commits are sent but never answered; `fail_next` answers the next one with an error."""

    fail_next: bool = False
    async_sent: list[dict[TopicPartition, int]] = field(default_factory=list)

    def commit_async(self, offsets: Any = None, callback: Any = None) -> None:
        self.async_sent.append({tp: om.offset for tp, om in offsets.items()})
        if self.fail_next and callback is not None:
            self.fail_next = False
            callback(offsets, RequestTimedOutError("no answer"))


def test_a_failed_asynchronous_commit_is_committed_again_before_the_next_poll() -> None:
    consumer, store = SilentBroker(), IngestStore()
    consumer.append(CHAT, 0, chat_bytes("e1", "kys"))
    consumer.append(CHAT, 0, chat_bytes("e2", "gg"))
    lane, _, _ = make_lane(consumer, store)
    consumer.fail_next = True
    assert step(lane) == 2
    assert consumer.async_sent == [{TP0: 2}] and consumer.commits == []  # written, commit failed
    polls = consumer.polls
    step(lane)
    assert consumer.commits == [{TP0: 2}] and consumer.polls == polls + 1


def test_unanswered_commits_are_settled_synchronously_when_the_lane_stops() -> None:
    consumer, store = SilentBroker(), IngestStore()
    consumer.append(CHAT, 0, chat_bytes("e1", "kys"))
    lane, _, _ = make_lane(consumer, store)
    step(lane)
    consumer.append(CHAT, 0, chat_bytes("e2", "gg"))
    step(lane)
    assert consumer.commits == [] and consumer.async_sent == [{TP0: 1}, {TP0: 2}]
    lane.stop.set()
    lane.run()
    assert consumer.commits == [{TP0: 2}] and consumer.closed


def test_a_commit_answered_successfully_is_not_sent_again() -> None:
    consumer, store = FakeConsumer(), IngestStore()  # the plain fake answers every commit at once
    consumer.append(CHAT, 0, chat_bytes("e1", "kys"))
    lane, _, _ = make_lane(consumer, store)
    step(lane)
    lane.stop.set()
    lane.run()
    assert consumer.commits == [{TP0: 1}] and list(store.findings)
