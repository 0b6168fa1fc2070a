"""Topic creation: retention on the topics Railbird owns, against the embedded broker."""

from __future__ import annotations

from kafka.admin import KafkaAdminClient

from consumers.broker import EmbeddedBroker
from consumers.topics import (
    DLQ_RETENTION_MS,
    REKEY_RETENTION_MS,
    ensure_topics,
    rekey_topic,
    topic_configs,
)
from pipeline.contracts import CHAT, ENFORCEMENT, dlq_topic


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
