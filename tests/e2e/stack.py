"""A real Railbird stack for end-to-end tests: embedded broker, `railbird api` and `railbird consume`
as separate processes, talking Kafka and HTTP exactly as in production."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from kafka import KafkaConsumer, KafkaProducer, TopicPartition

from consumers.broker import EmbeddedBroker, free_port
from consumers.topics import ensure_topics
from railbird.supervisor import Supervisor

SERVICE_TOKEN = "e2e-service-token"


@dataclass
class Stack:
    """Handles to a running stack and helpers to drive it."""

    broker: EmbeddedBroker
    api_url: str
    env: dict[str, str]
    supervisor: Supervisor
    tokens: dict[str, str] = field(default_factory=dict)

    def produce(self, topic: str, values: list[dict[str, Any]], *, key_field: str = "player_id") -> None:
        """Produce JSON values and wait for every ack."""
        producer = KafkaProducer(bootstrap_servers=self.broker.bootstrap, acks="all")
        try:
            for value in values:
                key = str(value.get(key_field, value["event_id"])).encode()
                producer.send(topic, key=key, value=json.dumps(value).encode()).get(timeout=10)
        finally:
            producer.close()

    def produce_mixed(self, items: list[tuple[str, dict[str, Any], str]], *, pace_s: float = 0.0) -> None:
        """Produce (topic, value, key field) in order, each acknowledged before the next, `pace_s`
        apart: a room's game servers send events as they happen, not all in one burst."""
        producer = KafkaProducer(bootstrap_servers=self.broker.bootstrap, acks="all")
        try:
            for topic, value, key_field in items:
                key = str(value[key_field]).encode()
                producer.send(topic, key=key, value=json.dumps(value).encode()).get(timeout=30)
                time.sleep(pace_s)
        finally:
            producer.close()

    def produce_raw(self, topic: str, raw: bytes) -> None:
        """Produce arbitrary bytes (for dead-letter tests)."""
        producer = KafkaProducer(bootstrap_servers=self.broker.bootstrap, acks="all")
        try:
            producer.send(topic, value=raw).get(timeout=10)
        finally:
            producer.close()

    def login(self, username: str, role: str) -> dict[str, str]:
        """Create a user with a role and return bearer headers for it."""
        password = f"pw-{username}-e2e-0123456789"
        subprocess.run(
            [sys.executable, "-m", "railbird.cli", "admin", "create-user", "--username", username,
             "--role", role, "--password-stdin"],
            input=password, text=True, env=self.env, check=True, capture_output=True, timeout=60,
        )
        resp = httpx.post(f"{self.api_url}/v1/auth/login", json={"username": username, "password": password})
        resp.raise_for_status()
        return {"Authorization": f"Bearer {resp.json()['token']}"}

    def service_headers(self) -> dict[str, str]:
        """Bearer headers of the service account (consumers, game servers)."""
        return {"Authorization": f"Bearer {SERVICE_TOKEN}"}

    def wait_for(self, fetch: Any, *, timeout_s: float = 60.0, what: str = "condition") -> Any:
        """Poll `fetch()` until it returns something truthy."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if failed := self.supervisor.failed():
                raise AssertionError(f"{failed[0].name} died: {failed[0].log_path.read_text()[-3000:]}")
            result = fetch()
            if result:
                return result
            time.sleep(0.25)
        raise AssertionError(f"timed out waiting for {what}")

    def read_topic(self, topic: str, *, timeout_s: float = 5.0) -> list[Any]:
        """Every record currently in a topic (all partitions, from the beginning)."""
        consumer = KafkaConsumer(bootstrap_servers=self.broker.bootstrap, enable_auto_commit=False)
        try:
            parts = [TopicPartition(topic, p) for p in (consumer.partitions_for_topic(topic) or ())]
            if not parts:
                return []
            consumer.assign(parts)
            consumer.seek_to_beginning(*parts)
            ends = consumer.end_offsets(parts)
            records: list[Any] = []
            deadline = time.monotonic() + timeout_s
            while time.monotonic() < deadline and any(consumer.position(p) < ends[p] for p in parts):
                for batch in consumer.poll(timeout_ms=200).values():
                    records.extend(batch)
            return records
        finally:
            consumer.close()


def finding_ids(stack: Stack, headers: dict[str, str], *, detector_prefix: str = "") -> set[str]:
    """Every finding id the API holds (paged), optionally only of detectors named with a prefix."""
    ids: set[str] = set()
    offset = 0
    while True:
        page = httpx.get(f"{stack.api_url}/v1/findings", params={"limit": 200, "offset": offset},
                         headers=headers, timeout=10).json()
        ids.update(f["finding_id"] for f in page if f["detector"].startswith(detector_prefix))
        if len(page) < 200:
            return ids
        offset += 200


def settled(fetch: Any, *, want: int, quiet_s: float = 15.0, timeout_s: float = 150.0) -> set[str]:
    """Poll until `want` ids arrived or the count stopped moving for `quiet_s` seconds."""
    ids: set[str] = set()
    changed = started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        now_ids = fetch()
        if len(now_ids) != len(ids):
            ids, changed = now_ids, time.monotonic()
        if len(ids) >= want or time.monotonic() - changed > quiet_s:
            break
        time.sleep(0.5)
    return ids


def start_stack(
    tmp: Path, *, consume_args: list[str], partitions: int = 4, extra_env: dict[str, str] | None = None
) -> Iterator[Stack]:
    """Broker + API + consumers on free loopback ports with a SQLite database in `tmp`."""
    api_port = free_port()
    with EmbeddedBroker(port=free_port(), log_path=tmp / "broker.log") as broker:
        ensure_topics(broker.bootstrap, partitions=partitions)
        env = dict(os.environ)
        env.update({
            "RAILBIRD_ENV": "test",
            "RAILBIRD_DATA_DIR": str(tmp),
            "RAILBIRD_KAFKA_BOOTSTRAP": broker.bootstrap,
            "RAILBIRD_DATABASE_URL": f"sqlite:///{tmp / 'railbird.db'}",
            "RAILBIRD_API_PORT": str(api_port),
            "RAILBIRD_API_URL": f"http://127.0.0.1:{api_port}",
            "RAILBIRD_SERVICE_TOKEN": SERVICE_TOKEN,
            "RAILBIRD_CONSUMER_SESSION_TIMEOUT_MS": "6000",
            "RAILBIRD_METRICS_PORT": "0",
            "RAILBIRD_RELAY_INTERVAL_MS": "50",
            "RAILBIRD_TOPIC_PARTITIONS": str(partitions),
            "PYTHONUNBUFFERED": "1",
            **(extra_env or {}),
        })
        supervisor = Supervisor(log_dir=tmp / "logs")
        stack = Stack(broker, f"http://127.0.0.1:{api_port}", env, supervisor)
        try:
            supervisor.start("api", ["api"], env=env)
            stack.wait_for(lambda: _healthy(stack.api_url), what="API health")
            supervisor.start("consumers", ["consume", *consume_args], env=env)
            yield stack
        finally:
            supervisor.stop_all()


def _healthy(api_url: str) -> bool:
    try:
        return httpx.get(f"{api_url}/healthz", timeout=1.0).status_code == 200
    except httpx.HTTPError:
        return False
