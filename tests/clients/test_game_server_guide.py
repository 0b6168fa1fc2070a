"""The configurations docs/game-servers.md tells game servers to use are valid for librdkafka,
and the guide's linger is the one the end-to-end bench measures librdkafka producers with."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, KafkaException, Producer

from bench._rdkafka_producer import LIBRDKAFKA_LINGER_MS, game_server_linger_ms

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "game-servers.md"


def _configs(call: str) -> list[dict[str, Any]]:
    """The literal dicts passed to `call(...)` in the guide's Python code blocks."""
    found: list[dict[str, Any]] = []
    for block in GUIDE.read_text(encoding="utf-8").split("```python")[1:]:
        tree = ast.parse(block.split("```", 1)[0])
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == call:
                found.append(ast.literal_eval(node.args[0]))
    return found


def test_the_guide_producer_settings_are_accepted_by_librdkafka() -> None:
    (config,) = _configs("Producer")
    Producer(config)  # an unknown or ill-typed property raises here, before any connection
    with pytest.raises(KafkaException):
        Producer({**config, "linger.msec": 40})  # the check above is a real one


def test_the_guide_consumer_settings_are_accepted_by_librdkafka() -> None:
    (config,) = _configs("Consumer")
    Consumer(config).close()


def test_the_bench_measures_librdkafka_with_the_guide_linger() -> None:
    (config,) = _configs("Producer")
    assert config["linger.ms"] == LIBRDKAFKA_LINGER_MS == game_server_linger_ms("librdkafka")
    assert game_server_linger_ms("kafka-python") < LIBRDKAFKA_LINGER_MS
