"""Creates Railbird's topics (inputs, dead letters, internal, enforcement) if they are missing."""

from __future__ import annotations

import contextlib
import time

from kafka.admin import KafkaAdminClient, NewTopic
from kafka.errors import KafkaError, TopicAlreadyExistsError

from pipeline.contracts import ENFORCEMENT, INPUT_TOPICS, dlq_topic


def railbird_topics() -> list[str]:
    """Every topic Railbird reads or writes."""
    inputs = list(INPUT_TOPICS)
    return [*inputs, *(dlq_topic(t) for t in inputs), ENFORCEMENT]


def ensure_topics(
    bootstrap: str,
    *,
    partitions: int,
    replication: int = 1,
    topics: list[str] | None = None,
    timeout_s: float = 20.0,
) -> list[str]:
    """Create the missing topics with `partitions` partitions; returns the ones created."""
    wanted = topics if topics is not None else railbird_topics()
    admin = _admin(bootstrap, timeout_s)
    try:
        existing = set(admin.list_topics())
        missing = [t for t in wanted if t not in existing]
        if missing:
            # Another process may create them between our list and create: that is fine.
            with contextlib.suppress(TopicAlreadyExistsError):
                admin.create_topics(
                    [NewTopic(t, num_partitions=partitions, replication_factor=replication) for t in missing]
                )
        return missing
    finally:
        admin.close()


def _admin(bootstrap: str, timeout_s: float) -> KafkaAdminClient:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return KafkaAdminClient(bootstrap_servers=bootstrap, client_id="railbird-admin")
        except KafkaError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.25)


REKEY_MARK = ".rekey."


def rekey_topic(topic: str, prefix: str = "railbird") -> str:
    """The internal re-key topic of an input topic, named after the deployment's group prefix (like
    Kafka Streams' application id): two deployments on one cluster never read each other's."""
    return f"{prefix}{REKEY_MARK}{topic}"


def rekey_source(topic: str, prefix: str) -> str | None:
    """The input topic a re-key topic of this deployment serves, or None for any other topic."""
    head = f"{prefix}{REKEY_MARK}"
    return topic.removeprefix(head) if topic.startswith(head) else None
