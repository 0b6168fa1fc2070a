"""The demo's live summary: events in and out from Kafka offsets, findings and cases from the API."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import httpx
from kafka import KafkaConsumer, TopicPartition
from kafka.errors import KafkaError

from pipeline.contracts import ENFORCEMENT, INPUT_TOPICS, dlq_topic


@dataclass(frozen=True, slots=True)
class DemoStatus:
    """Counters shown on the summary line; -1 means not known yet."""

    events_in: int = 0
    dead_letters: int = 0
    findings: int = -1
    cases: int = -1
    enforcement_out: int = 0

    def line(self, elapsed_s: float) -> str:
        """One summary line."""

        def show(n: int) -> str:
            return "?" if n < 0 else str(n)

        return (
            f"[{elapsed_s:5.0f}s] events in {self.events_in}  dead letters {self.dead_letters}  "
            f"findings {show(self.findings)}  cases {show(self.cases)}  "
            f"enforcement events out {self.enforcement_out}   "
        )


class OffsetReader:
    """End offsets of Railbird's topics through one long-lived client (not one per refresh)."""

    def __init__(self, bootstrap: str) -> None:
        self._bootstrap = bootstrap
        self._consumer: KafkaConsumer | None = None

    def totals(self) -> dict[str, int]:
        """Records ever written per topic (sum of partition end offsets)."""
        if self._consumer is None:
            self._consumer = KafkaConsumer(bootstrap_servers=self._bootstrap, request_timeout_ms=3000)
        return _end_offsets(self._consumer)

    def close(self) -> None:
        """Close the client, if it was opened."""
        if self._consumer is not None:
            self._consumer.close()
            self._consumer = None


def read_status(offsets: OffsetReader, api_url: str, token: str, *, previous: DemoStatus) -> DemoStatus:
    """Fresh counters; keeps the previous value of any source that does not answer."""
    events_in, dead, out = previous.events_in, previous.dead_letters, previous.enforcement_out
    with contextlib.suppress(KafkaError, OSError, ValueError):
        totals = offsets.totals()
        events_in = sum(totals.get(t, 0) for t in INPUT_TOPICS)
        dead = sum(totals.get(dlq_topic(t), 0) for t in INPUT_TOPICS)
        out = totals.get(ENFORCEMENT, 0)
    findings, cases = previous.findings, previous.cases
    with contextlib.suppress(httpx.HTTPError, ValueError, KeyError):
        resp = httpx.get(
            f"{api_url}/v1/stats/summary", headers={"Authorization": f"Bearer {token}"}, timeout=2.0
        )
        if resp.status_code == 200:
            body = resp.json()
            findings, cases = int(body["findings"]), int(body["cases"])
    return DemoStatus(events_in, dead, findings, cases, out)


def _end_offsets(consumer: KafkaConsumer) -> dict[str, int]:
    topics = [*INPUT_TOPICS, *(dlq_topic(t) for t in INPUT_TOPICS), ENFORCEMENT]
    parts = [TopicPartition(t, p) for t in topics for p in (consumer.partitions_for_topic(t) or ())]
    ends = consumer.end_offsets(parts) if parts else {}
    totals: dict[str, int] = {}
    for tp, offset in ends.items():
        totals[tp.topic] = totals.get(tp.topic, 0) + int(offset)
    return totals
