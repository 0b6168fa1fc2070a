"""Shared pieces of the browser tests: a live API + relay + broker topic, Debian chromium, axe-core."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
from api_factories import T0, batch

from api.app import create_app
from api.auth import service as auth
from api.db import make_engine, make_sessions, migrate
from api.deps import ApiConfig
from api.outbox.relay import Relay, kafka_producer
from pipeline.findings import Finding
from railbird.settings import Settings
from tests.live_server import serve_app

CHROMIUM = Path("/usr/bin/chromium")
AXE = Path(__file__).resolve().parents[2] / ".venv" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
"""axe-core from the npm registry, installed by `make browser` (never a download at test time)."""
TOKEN = "browser-service-token"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
SERIOUS = ("serious", "critical")


@dataclass(frozen=True, slots=True)
class LiveConsole:
    """A running API (with its relay) on loopback, its broker topic and the cases ingested."""

    base: str
    bootstrap: str
    topic: str
    case_ids: list[str]


@contextmanager
def live_console(tmp_path: Path, bootstrap: str, *, people: Sequence[tuple[str, str, str]],
                 findings: Sequence[Finding], now: datetime | None = None) -> Iterator[LiveConsole]:
    """Serve the app on SQLite with `people` (username, role, password) and `findings` ingested."""
    from consumers.topics import ensure_topics

    topic = f"enforcement.events.{uuid.uuid4().hex[:8]}"
    settings = Settings(env="test", data_dir=tmp_path, service_token=TOKEN)
    engine = make_engine(f"sqlite:///{tmp_path / 'browser.db'}")
    migrate(engine)
    sessions = make_sessions(engine)
    with sessions() as s:
        for username, role, password in people:
            auth.create_user(s, username=username, role=role, password=password, actor="test", now=now or T0)
    ensure_topics(bootstrap, partitions=1, topics=[topic])

    def relay(sess: Any) -> Relay:
        return Relay(sessions=sess, producer_factory=lambda: kafka_producer(bootstrap), topic=topic, interval_s=0.1)

    app = create_app(settings=settings, config=ApiConfig(service_token=TOKEN, env="test"), engine=engine,
                     sessions=sessions, run_migrations=False, relay_factory=relay)
    try:
        with serve_app(app) as base:
            r = httpx.post(f"{base}/v1/findings/batch", json=batch(*findings),
                           headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)
            assert r.status_code == 200, r.text
            yield LiveConsole(base, bootstrap, topic, r.json()["case_ids"])
    finally:
        engine.dispose()


def serious_violations(page: Any) -> list[str]:
    """axe-core's serious and critical accessibility violations on the page, as readable lines."""
    page.evaluate(AXE.read_text(encoding="utf-8"))
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    return [f"{v['id']} ({v['impact']}): {v['help']} — {', '.join(n['target'][0] for n in v['nodes'][:3])}"
            for v in result["violations"] if v.get("impact") in SERIOUS]


def read_events(bootstrap: str, topic: str, *, count: int, timeout_ms: int = 20_000) -> list[tuple[bytes, dict]]:
    """The first `count` records of `topic` as (key, CloudEvent JSON), read as a game server would."""
    from kafka import KafkaConsumer

    consumer = KafkaConsumer(topic, bootstrap_servers=bootstrap, auto_offset_reset="earliest",
                             group_id=f"g-{uuid.uuid4().hex[:6]}", session_timeout_ms=6000,
                             heartbeat_interval_ms=1000, consumer_timeout_ms=timeout_ms)
    out: list[tuple[bytes, dict]] = []
    for record in consumer:
        out.append((record.key, json.loads(record.value)))
        if len(out) >= count:
            break
    consumer.close()
    return out
