"""The rig the hostile-input suites run on: a real broker with every input and dead-letter topic,
`railbird api`, and consumers started by each test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from consumers.broker import EmbeddedBroker, free_port
from consumers.topics import ensure_topics
from pipeline.contracts import INPUT_TOPICS, dlq_topic
from tests.faults.rig import PARTITIONS, Rig, make_rig


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    """Broker, API and one consumer of every input topic."""
    with EmbeddedBroker(port=free_port(), log_path=tmp_path / "logs" / "broker.log") as broker:
        ensure_topics(broker.bootstrap, partitions=PARTITIONS,
                      topics=[*INPUT_TOPICS, *(dlq_topic(t) for t in INPUT_TOPICS)])
        r = make_rig(tmp_path, broker)
        r.start_api()
        try:
            yield r
        finally:
            r.stop_all()
