"""Topic creation: retention on the topics Railbird owns, against the embedded broker."""

from __future__ import annotations

from kafka.admin import KafkaAdminClient

from consumers.broker import EmbeddedBroker
from consumers.runtime import internal_topics, lane_topics
from consumers.topics import (
    CHANGELOG_RETENTION_MS,
    CHANGELOG_SEGMENT_MS,
    DLQ_RETENTION_MS,
    REKEY_RETENTION_MS,
    changelog_source,
    changelog_topic,
    ensure_topics,
    rekey_topic,
    topic_configs,
)
from pipeline.contracts import CHAT, ENFORCEMENT, HAND, dlq_topic
from pipeline.rules import RulesConfig


def test_dead_letter_and_rekey_topics_get_retention_inputs_keep_the_broker_default() -> None:
    assert topic_configs(dlq_topic(CHAT)) == {"retention.ms": str(DLQ_RETENTION_MS)}
    assert topic_configs(rekey_topic(CHAT, "rb")) == {"retention.ms": str(REKEY_RETENTION_MS)}
    assert topic_configs(CHAT) == {}
    assert topic_configs(ENFORCEMENT) == {}


def test_rekey_retention_grows_with_a_lookback_longer_than_half_a_week() -> None:
    ten_days_s = 10 * 86_400
    assert topic_configs(rekey_topic(CHAT, "rb"), lookback_s=ten_days_s) == {
        "retention.ms": str(2 * ten_days_s * 1000)
    }
    assert topic_configs(rekey_topic(CHAT, "rb"), lookback_s=13 * 3600) == {"retention.ms": str(REKEY_RETENTION_MS)}


def test_topics_with_settings_are_created_once_on_a_real_broker(kafka_broker: EmbeddedBroker) -> None:
    wanted = [CHAT + ".t1", dlq_topic(CHAT + ".t1"), rekey_topic(CHAT, "topics-test")]
    created = ensure_topics(kafka_broker.bootstrap, partitions=2, topics=wanted, lookback_s=3600)
    assert sorted(created) == sorted(wanted)
    admin = KafkaAdminClient(bootstrap_servers=kafka_broker.bootstrap)
    try:
        assert set(wanted) <= set(admin.list_topics())
    finally:
        admin.close()
    assert ensure_topics(kafka_broker.bootstrap, partitions=2, topics=wanted) == []


def test_changelog_topics_are_compacted_and_deleted_after_twice_the_ledger_window() -> None:
    log = changelog_topic(rekey_topic(CHAT, "rb"), "rb")
    assert log == "rb.changelog.keyed" and changelog_topic(CHAT, "rb") == "rb.changelog.chat.messages"
    assert changelog_source(log) == rekey_topic(CHAT, "rb") and changelog_source(changelog_topic(CHAT, "rb")) == CHAT
    assert changelog_source(CHAT) is None
    assert topic_configs(log) == {
        "cleanup.policy": "compact,delete",
        "retention.ms": str(CHANGELOG_RETENTION_MS),
        "segment.ms": str(CHANGELOG_SEGMENT_MS),
    }
    assert 2 * RulesConfig().chat_offence_window.total_seconds() * 1000 <= CHANGELOG_RETENTION_MS


def test_a_deployment_creates_the_changelogs_of_its_stage_topics() -> None:
    topics = lane_topics([CHAT, HAND], "rb")
    assert [t for t in internal_topics(topics) if changelog_source(t)] == ["rb.changelog.chat.messages", "rb.changelog.keyed"]


def test_a_changelog_topic_gets_its_stage_topics_partition_count(kafka_broker: EmbeddedBroker) -> None:
    source = CHAT + ".t2"
    ensure_topics(kafka_broker.bootstrap, partitions=3, topics=[source])
    log = changelog_topic(source, "topics-test")
    assert ensure_topics(kafka_broker.bootstrap, partitions=2, topics=[log]) == [log]
    admin = KafkaAdminClient(bootstrap_servers=kafka_broker.bootstrap)
    try:
        (described,) = admin.describe_topics([log])
        assert len(described["partitions"]) == 3, "partition n's state is in changelog partition n"
    finally:
        admin.close()
