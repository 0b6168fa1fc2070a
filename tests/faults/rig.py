"""A real Railbird deployment for fault injection: embedded broker, `railbird api` and N
`railbird consume` processes, each started, SIGKILLed and restarted on demand; plus the readers
that account for every effect afterwards (findings, cases, sanctions in the database; dead letters
and enforcement events on the broker)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import KafkaAdminClient
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from consumers.broker import EmbeddedBroker, free_port
from consumers.topics import ensure_topics, rekey_topic
from pipeline.contracts import CHAT, ENFORCEMENT, dlq_topic
from tests.faults.traffic import Record

ROOT = Path(__file__).resolve().parents[2]
SERVICE_TOKEN = "faults-service-token-0123456789"
PARTITIONS = 4
GROUP_PREFIX = "railbird"


def wait_until(predicate: Callable[[], bool], *, timeout_s: float, what: str, every_s: float = 0.25) -> None:
    """Poll until true, or fail naming what never happened."""
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s:.0f}s waiting for {what}")
        time.sleep(every_s)


@dataclass
class Rig:
    """Handles to the processes of one deployment; every process is ours to kill."""

    tmp: Path
    broker: EmbeddedBroker
    db_path: Path
    database_url: str = ""
    """Empty: SQLite at `db_path`; else e.g. a PostgreSQL URL."""
    api_port: int = field(default_factory=free_port)
    api: subprocess.Popen[bytes] | None = None
    consumers: list[subprocess.Popen[bytes] | None] = field(default_factory=list)
    started: int = 0
    kills: int = 0
    client: str = "kafka-python"
    """Who produces the traffic: "kafka-python", or "librdkafka" (confluent-kafka, idempotent, a
    random codec per chunk of records; `tests.clients.game_server.produce_mixed_codecs`)."""
    chat_lateness_s: float | None = None
    """The consumers' chat reorder lateness (event time); None = the production default. Set it
    before starting consumers, with `traffic.reorder_lateness_s` for the rate the test produces at."""

    @property
    def api_url(self) -> str:
        """Base URL of the API process."""
        return f"http://127.0.0.1:{self.api_port}"

    def env(self) -> dict[str, str]:
        """Environment of every Railbird process of this rig."""
        return {
            **os.environ,
            "RAILBIRD_ENV": "test",
            "RAILBIRD_DATA_DIR": str(self.tmp),
            "RAILBIRD_KAFKA_BOOTSTRAP": self.broker.bootstrap,
            "RAILBIRD_DATABASE_URL": self.database_url or f"sqlite:///{self.db_path}",
            "RAILBIRD_API_PORT": str(self.api_port),
            "RAILBIRD_API_URL": self.api_url,
            "RAILBIRD_SERVICE_TOKEN": SERVICE_TOKEN,
            "RAILBIRD_TOPIC_PARTITIONS": str(PARTITIONS),
            "RAILBIRD_CONSUMER_SESSION_TIMEOUT_MS": "6000",
            "RAILBIRD_CONSUMER_HEARTBEAT_MS": "1000",
            "RAILBIRD_CONSUMER_RETRY_BASE_MS": "100",
            "RAILBIRD_CONSUMER_RETRY_CAP_MS": "1000",
            "RAILBIRD_CONSUMER_STATE_LOOKBACK_S": "86400",
            "RAILBIRD_API_TIMEOUT_S": "15",
            "RAILBIRD_METRICS_PORT": "0",
            "RAILBIRD_RELAY_INTERVAL_MS": "50",
            "PYTHONUNBUFFERED": "1",
            **({} if self.chat_lateness_s is None else {"RAILBIRD_CHAT_REORDER_LATENESS_S": str(self.chat_lateness_s)}),
        }

    def _spawn(self, name: str, args: list[str]) -> subprocess.Popen[bytes]:
        self.started += 1
        log = self.tmp / "logs" / f"{name}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "ab") as out:
            return subprocess.Popen([sys.executable, "-m", "railbird.cli", *args], cwd=ROOT, env=self.env(),
                                    stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    start_new_session=True)

    def start_api(self) -> None:
        """Start `railbird api` and wait until it answers /healthz."""
        self.api = self._spawn("api", ["api"])
        wait_until(self.api_healthy, timeout_s=60, what="the API to answer /healthz")

    def api_healthy(self) -> bool:
        """True when the API process answers."""
        try:
            return httpx.get(f"{self.api_url}/healthz", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    def kill_api(self) -> None:
        """SIGKILL the API process (no shutdown hooks run: the relay dies mid-flight)."""
        _kill(self.api)
        self.api = None

    def start_consumer(self, slot: int | None = None, *, topics: tuple[str, ...] = ("--topic", CHAT)) -> int:
        """Start `railbird consume --topic chat.messages` (or other `topics` args) in a slot (a new one
        by default)."""
        proc = self._spawn(f"consume-{len(self.consumers) if slot is None else slot}", ["consume", *topics])
        if slot is None:
            self.consumers.append(proc)
            return len(self.consumers) - 1
        self.consumers[slot] = proc
        return slot

    def kill_consumer(self, slot: int) -> None:
        """SIGKILL one consumer process: no batch finished, nothing committed on the way out."""
        _kill(self.consumers[slot])
        self.consumers[slot] = None
        self.kills += 1

    def crashed(self) -> list[str]:
        """Processes that exited on their own (a crash the test did not cause)."""
        procs = [("api", self.api), *((f"consume-{i}", p) for i, p in enumerate(self.consumers))]
        return [name for name, p in procs if p is not None and p.poll() is not None]

    def stop_all(self) -> None:
        """SIGTERM everything we started, then SIGKILL stragglers."""
        for proc in [*self.consumers, self.api]:
            if proc is not None and proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
        for proc in [*self.consumers, self.api]:
            if proc is not None:
                try:
                    proc.wait(20)
                except subprocess.TimeoutExpired:
                    _kill(proc)

    # --- traffic -------------------------------------------------------------------------
    def produce(self, records: Iterable[Record], *, rate_per_s: float = 0.0) -> None:
        """Produce every record and wait for the acks; `rate_per_s` paces it (0 = flat out)."""
        if self.client == "librdkafka":
            from tests.clients.game_server import produce_mixed_codecs

            produce_mixed_codecs(self.broker.bootstrap, CHAT, [(r.key, r.value) for r in records], rate_per_s=rate_per_s)
            return
        producer = KafkaProducer(bootstrap_servers=self.broker.bootstrap, acks="all", linger_ms=5,
                                 retries=10)
        started = time.monotonic()
        try:
            for i, r in enumerate(records):
                producer.send(CHAT, key=r.key, value=r.value)
                if rate_per_s and i % 100 == 0:
                    ahead = i / rate_per_s - (time.monotonic() - started)
                    if ahead > 0:
                        time.sleep(ahead)
            producer.flush(60)
        finally:
            producer.close(10)

    def produce_in_background(self, records: list[Record], *, rate_per_s: float) -> threading.Thread:
        """Traffic keeps flowing while the test injects faults."""
        thread = threading.Thread(target=self.produce, args=(records,), kwargs={"rate_per_s": rate_per_s},
                                  daemon=True)
        thread.start()
        return thread

    # --- accounting ----------------------------------------------------------------------
    def read_topic(self, topic: str, *, settle_s: float = 2.0) -> list[Any]:
        """Every record of a topic from the beginning: read until nothing new arrives for `settle_s`
        (tansu's end offsets are unreliable for multi-record batches, so they are not trusted)."""
        consumer = KafkaConsumer(bootstrap_servers=self.broker.bootstrap, enable_auto_commit=False,
                                 group_id=None, fetch_max_bytes=50 * 1024 * 1024)
        try:
            parts = [TopicPartition(topic, p) for p in consumer.partitions_for_topic(topic) or ()]
            if not parts:
                return []
            consumer.assign(parts)
            consumer.seek_to_beginning(*parts)
            out: list[Any] = []
            quiet_since = time.monotonic()
            while time.monotonic() - quiet_since < settle_s:
                got = [r for batch in consumer.poll(200, max_records=5000).values() for r in batch]
                if got:
                    out.extend(got)
                    quiet_since = time.monotonic()
            return out
        finally:
            consumer.close()

    def committed_total(self, topic: str) -> int:
        """Sum of the committed offsets of the topic's consumer group."""
        group = f"{GROUP_PREFIX}.{topic}"
        admin = KafkaAdminClient(bootstrap_servers=self.broker.bootstrap)
        try:
            offsets = admin.list_group_offsets(group).get(group, {})
            return sum(om.offset for tp, om in offsets.items() if tp.topic == topic and om.offset > 0)
        except Exception:  # noqa: BLE001 - the coordinator may be rebalancing: "not yet"
            return -1
        finally:
            admin.close()

    def db_rows(self, sql: str) -> list[tuple[Any, ...]]:
        """Rows of a read-only query on the API's database."""
        if self.database_url:
            engine = create_engine(self.database_url, poolclass=NullPool)
            try:
                with engine.connect() as conn:
                    return [tuple(r) for r in conn.execute(text(sql))]
            finally:
                engine.dispose()
        lite = sqlite3.connect(f"file:{self.db_path}?mode=ro", uri=True, timeout=30)
        try:
            return list(lite.execute(sql))
        finally:
            lite.close()


def _kill(proc: subprocess.Popen[bytes] | None) -> None:
    if proc is not None and proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)


def make_rig(tmp: Path, broker: EmbeddedBroker, *, db_dir: Path | None = None) -> Rig:
    """A rig on `broker` with its database in `db_dir` (default `tmp`), topics created."""
    ensure_topics(broker.bootstrap, partitions=PARTITIONS,
                  topics=[CHAT, dlq_topic(CHAT), rekey_topic(CHAT), dlq_topic(rekey_topic(CHAT)), ENFORCEMENT])
    return Rig(tmp=tmp, broker=broker, db_path=(db_dir or tmp) / "railbird.db")


@dataclass(frozen=True)
class Accounting:
    """Effects after a run, counted from the database and the broker."""

    input_records: int
    committed: int
    findings: set[str]
    detector_of: dict[str, str]
    action_finding: dict[str, str]
    cases: int
    case_keys_duplicated: int
    case_count_mismatches: int
    sanctions: set[str]
    dead_letters: int
    dead_letter_records: int
    enforcement_ids: Counter[str]

    def figures(self) -> dict[str, int]:
        """The numbers a report prints."""
        return {
            "input_records": self.input_records, "committed": self.committed, "findings": len(self.findings),
            "cases": self.cases, "sanctions": len(self.sanctions), "dead_letters": self.dead_letters,
            "dead_letter_records": self.dead_letter_records,
            "enforcement_events": sum(self.enforcement_ids.values()),
            "enforcement_ids_distinct": len(self.enforcement_ids),
        }


def account(rig: Rig, *, input_records: int) -> Accounting:
    """Count every effect of the run."""
    dlq = rig.read_topic(dlq_topic(CHAT))
    letters = {(json.loads(r.value)["partition"], json.loads(r.value)["offset"]) for r in dlq}
    enforcement = Counter(json.loads(r.value)["id"] for r in rig.read_topic(ENFORCEMENT))
    per_case = rig.db_rows("SELECT c.id, c.finding_count, COUNT(f.finding_id) FROM cases c "
                           "LEFT JOIN findings f ON f.case_id = c.id GROUP BY c.id")
    keys = rig.db_rows("SELECT family, subject_id, incident, COUNT(*) FROM cases WHERE status='open' "
                       "GROUP BY family, subject_id, incident HAVING COUNT(*) > 1")
    rows = [(r[0], r[1]) for r in rig.db_rows("SELECT finding_id, detector FROM findings")]
    return Accounting(
        input_records=input_records,
        committed=rig.committed_total(CHAT),
        findings={r[0] for r in rows},
        detector_of=dict(rows),
        action_finding={r[0]: r[1] for r in rig.db_rows("SELECT action_id, finding_id FROM case_actions")},
        cases=len(per_case),
        case_keys_duplicated=len(keys),
        case_count_mismatches=sum(1 for _, stored, actual in per_case if stored != actual),
        sanctions={r[0] for r in rig.db_rows("SELECT id FROM sanctions")},
        dead_letters=len(letters),
        dead_letter_records=len(dlq),
        enforcement_ids=enforcement,
    )
