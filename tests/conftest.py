"""Fixtures shared by every test area."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from consumers.broker import EmbeddedBroker, free_port


@pytest.fixture(scope="session")
def kafka_broker() -> Iterator[EmbeddedBroker]:
    """One real embedded broker (tansu) for the test session, on a free loopback port."""
    with EmbeddedBroker(port=free_port()) as broker:
        yield broker
