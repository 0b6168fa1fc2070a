"""Creates Railbird's topics (inputs, dead letters, internal, enforcement) if they are missing."""

from __future__ import annotations

import contextlib
import time

from kafka.admin import KafkaAdminClient, NewTopic
from kafka.errors import KafkaError, TopicAlreadyExistsError

from consumers.poison import CONTROL_SUFFIX
from pipeline.contracts import ENFORCEMENT, INPUT_TOPICS, dlq_topic

DAY_MS = 86_400_000
DLQ_RETENTION_MS = 30 * DAY_MS
"""Dead letters wait for a person to read, fix and re-drive them: a month."""
REKEY_RETENTION_MS = 7 * DAY_MS
"""Re-key topics are where a moved partition's state is rebuilt from (the lookback, 13 h by
default): a week covers the lookback with room for a long outage of the consumers."""
CHANGELOG_RETENTION_MS = 60 * DAY_MS
"""Changelog topics are compacted (the last value per key) and also deleted by age: a value not
rewritten for 60 days holds only offences older than the ledger's window (30 days by default,
`rules.chat_offence_window`; raise this with a longer window), so its player is forgotten there
as in memory. This bounds the topic to the players who offended within the retention."""
CHANGELOG_SEGMENT_MS = 3_600_000
"""Compaction only cleans closed segments: rolling them hourly keeps the uncompacted tail (read
in full by a rebuild) at about an hour of changes, not the default week."""


def topic_configs(topic: str, *, lookback_s: float = 0.0) -> dict[str, str]:
    """Topic settings Railbird gives the topics it creates: retention, where a broker-wide default
    could silently be too short. Dead-letter topics keep a month; re-key topics a week and never
    less than twice the state lookback (a rebuild reads `now - lookback` to the committed offset).
    Input topics belong to the game servers and enforcement.events to its consumers: the broker's
    defaults (docs/operations.md, "Apache Kafka settings"). Changelog topics are compacted and
    deleted by age (`CHANGELOG_RETENTION_MS`). Only applied on creation."""
    if CHANGELOG_MARK in topic:
        return {
            "cleanup.policy": "compact,delete",
            "retention.ms": str(CHANGELOG_RETENTION_MS),
            "segment.ms": str(CHANGELOG_SEGMENT_MS),
        }
    if topic.endswith(CONTROL_SUFFIX):
        return {"retention.ms": str(DLQ_RETENTION_MS)}  # skip requests: as long as the dead letters
    if topic.endswith(dlq_topic("")):
        return {"retention.ms": str(DLQ_RETENTION_MS)}
    if REKEY_MARK in topic:
        return {"retention.ms": str(max(REKEY_RETENTION_MS, round(2 * lookback_s * 1000)))}
    return {}


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
    lookback_s: float = 0.0,
) -> list[str]:
    """Create the missing topics with `partitions` partitions and `topic_configs`; returns the ones
    created. A changelog topic gets its stage topic's partition count when that topic exists (the
    changelog of partition n is partition n). An existing topic keeps its settings (change them
    with the broker's tools)."""
    wanted = topics if topics is not None else railbird_topics()
    admin = _admin(bootstrap, timeout_s)
    try:
        existing = set(admin.list_topics())
        missing = [t for t in wanted if t not in existing]
        sources = {changelog_source(t) for t in missing}
        counts = _partition_counts(admin, {s for s in sources if s is not None and s in existing})
        if missing:
            # Another process may create them between our list and create: that is fine.
            with contextlib.suppress(TopicAlreadyExistsError):
                admin.create_topics(
                    [
                        NewTopic(
                            t,
                            num_partitions=counts.get(changelog_source(t) or "", partitions),
                            replication_factor=replication,
                            topic_configs=topic_configs(t, lookback_s=lookback_s) or None,
                        )
                        for t in missing
                    ]
                )
        return missing
    finally:
        admin.close()


def _partition_counts(admin: KafkaAdminClient, topics: set[str]) -> dict[str, int]:
    """Partitions of existing topics, by name."""
    if not topics:
        return {}
    return {str(d["name"]): len(d["partitions"]) for d in admin.describe_topics(sorted(topics))}


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


KEYED_STREAM = "keyed"
"""Suffix of the one re-key topic every input topic routes through."""


def rekey_topic(topic: str, prefix: str = "railbird") -> str:
    """The deployment's internal re-key topic, the same for every input topic.

    One topic, not one per input: a detector that reads several topics (the bounty agreement reads
    chat and hands, bumhunting seats and hands) must see every event of one state key in one
    partition, so its chat and its hands meet in the same instance. Named after the deployment's
    group prefix (like Kafka Streams' application id) so two deployments never read each other's.
    `topic` is kept in the signature so callers say which input they route.
    """
    del topic
    return f"{prefix}{REKEY_MARK}{KEYED_STREAM}"


def rekey_source(topic: str, prefix: str) -> str | None:
    """`KEYED_STREAM` for this deployment's re-key topic (the keyed stage), None for any other."""
    return KEYED_STREAM if topic == rekey_topic("", prefix) else None


CHANGELOG_MARK = ".changelog."


def changelog_topic(topic: str, prefix: str = "railbird") -> str:
    """The changelog topic of a stage topic (an input topic with local state, or the re-key
    topic): `<prefix>.changelog.<input topic>` or `<prefix>.changelog.keyed`. Named after the
    deployment's group prefix, as the re-key topic, so two deployments never restore each other's."""
    suffix = KEYED_STREAM if rekey_source(topic, prefix) is not None else topic
    return f"{prefix}{CHANGELOG_MARK}{suffix}"


def changelog_source(topic: str) -> str | None:
    """The stage topic a changelog topic belongs to, None for any other topic."""
    prefix, mark, suffix = topic.partition(CHANGELOG_MARK)
    if not mark:
        return None
    return rekey_topic("", prefix) if suffix == KEYED_STREAM else suffix
