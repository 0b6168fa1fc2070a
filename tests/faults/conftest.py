"""Fixtures of the fault suite: a fresh broker and rig per test, the offline oracle's pipeline."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from consumers.broker import EmbeddedBroker, free_port
from pipeline.runner import Pipeline
from railbird.settings import Settings
from railbird.wiring import make_pipeline
from tests.faults.rig import Rig, make_rig


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    """Broker + API, no consumers yet; everything stopped afterwards."""
    with EmbeddedBroker(port=free_port(), log_path=tmp_path / "logs" / "broker.log") as broker:
        r = make_rig(tmp_path, broker)
        r.start_api()
        try:
            yield r
        finally:
            r.stop_all()


@pytest.fixture(scope="session")
def oracle_pipeline_factory() -> Callable[[float], Pipeline]:
    """Builds a fresh offline pipeline (fresh detector state) per oracle run, with the chat reorder
    lateness the rig's consumers run with (the stream and its replay must agree on it)."""
    return lambda lateness_s: make_pipeline(Settings(chat_reorder_lateness_s=lateness_s))
