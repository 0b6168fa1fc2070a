"""Assembles and runs the lanes of one `railbird consume` process.

One lane (one kafka-python consumer, one consumer group `{prefix}.{topic}`, one thread) per topic:
the chosen input topics, plus the re-key topic of every detector reading them. Lanes share the
producer (thread-safe), the review API client (thread-safe) and the metrics.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from kafka import KafkaConsumer

from consumers.api_client import ReviewApiClient
from consumers.changelog import Changelog
from consumers.history import KafkaHistoryReader
from consumers.input_stage import InputProcessor
from consumers.lane import Lane, LaneConfig
from consumers.local_stage import LOCAL_STATE_TOPICS, local_names
from consumers.metrics import ConsumerMetrics
from consumers.poison import KafkaBatchProbe, SkipBook
from consumers.ports import ISOLATION_LEVEL, ProducerPort
from consumers.processing import KeyedProcessor, Processor
from consumers.retry import Backoff
from consumers.topics import REKEY_MARK, changelog_topic, rekey_source, rekey_topic
from pipeline.contracts import dlq_topic
from pipeline.detector import Detector, StatefulDetector
from pipeline.rules import RulesConfig

log = logging.getLogger("railbird.consumer")

DetectorFactory = Callable[[], Mapping[str, Detector]]
"""Builds every detector with fresh state (the registry, with models loaded once, closed over)."""


@dataclass(frozen=True, slots=True)
class RuntimeConfig:
    """The Kafka and retry tunables the runtime needs. No defaults of its own: it is built from
    `Settings` (`railbird.commands.consume.runtime_config`), the one place they are chosen (two
    copies had drifted: `fetch_max_wait_ms` 100 here, 20 in Settings); lanes get theirs from it."""

    bootstrap: str
    group_prefix: str
    session_timeout_ms: int
    heartbeat_ms: int
    max_poll_records: int
    poll_timeout_ms: int
    max_poll_interval_ms: int
    keepalive_s: float
    fetch_max_wait_ms: int
    state_lookback_s: float
    retry_base_s: float
    retry_cap_s: float
    local_state: bool
    """Run detectors keyed by the record's own key in stage 1 (`consumers.local_stage`)."""
    overlap_writes: bool
    """See `consumers.lane.LaneConfig.overlap_writes`."""


def group_of(prefix: str, topic: str) -> str:
    """Consumer group of a topic: one group per topic, so topics scale independently."""
    return f"{prefix}.{topic}"


def lane_topics(inputs: Iterable[str], prefix: str) -> list[str]:
    """The chosen input topics plus their re-key topics, in a stable order."""
    chosen = list(dict.fromkeys(inputs))
    return chosen + list(dict.fromkeys(rekey_topic(t, prefix) for t in chosen))


def internal_topics(topics: Iterable[str]) -> list[str]:
    """Every topic a set of lanes (`lane_topics`) reads or writes besides the inputs: re-key,
    dead-letter and changelog topics (of the re-key topic and of the inputs that keep local state;
    the deployment's prefix is the re-key topic's)."""
    chosen = list(topics)
    rekeyed = [t for t in chosen if REKEY_MARK in t]
    prefixes = [t.split(REKEY_MARK, 1)[0] for t in rekeyed]
    changelogs = [changelog_topic(t, p) for p in prefixes for t in chosen if t in LOCAL_STATE_TOPICS or REKEY_MARK in t]
    return rekeyed + [dlq_topic(t) for t in chosen] + list(dict.fromkeys(changelogs))


def lookback_for(detectors: Iterable[Detector], default_s: float) -> float:
    """Seconds of history that rebuild some detectors: the longest declared window (+10%), at least
    the default."""
    windows = [d.state_window.total_seconds() * 1.1 for d in detectors if isinstance(d, StatefulDetector)]
    return max([default_s, *windows])


def lane_lookback(topic: str, detectors: Mapping[str, Detector], *, prefix: str, default_s: float) -> float:
    """Seconds of history a lane's rebuild replays, at least the default: on an input lane the
    longest declared window among the detectors that may keep local state on `topic` (so SnapCam's
    7-day reporter histories do not make chat's input lane replay a week of chat); on the re-key
    lane every detector's, since all inputs share that one topic (`consumers.topics.rekey_topic`)."""
    if rekey_source(topic, prefix) is None:
        local = local_names(detectors, topic)
        return lookback_for([d for n, d in detectors.items() if n in local], default_s)
    return lookback_for(detectors.values(), default_s)


def build_processor(
    topic: str, *, factory: DetectorFactory, rules: RulesConfig, config: RuntimeConfig
) -> Processor:
    """The processor of a lane: input stage for input topics, keyed stage for re-key topics."""
    source = rekey_source(topic, config.group_prefix)

    def make_detectors() -> dict[str, Detector]:
        # A stage's per-partition instances: each record names the ones it is for.
        return dict(factory())

    if source is None:
        detectors = factory()
        if not config.local_state:
            return InputProcessor(detectors=detectors, rules=rules, prefix=config.group_prefix)
        reader = KafkaHistoryReader(bootstrap=config.bootstrap)
        return InputProcessor(
            detectors=detectors,
            rules=rules,
            prefix=config.group_prefix,
            make_detectors=make_detectors,
            history=reader,
            changelog=reader,
            lookback_s=lane_lookback(topic, detectors, prefix=config.group_prefix, default_s=config.state_lookback_s),
        )

    reader = KafkaHistoryReader(bootstrap=config.bootstrap)
    return KeyedProcessor(
        make_detectors=make_detectors,
        rules=rules,
        history=reader,
        lookback_s=lane_lookback(topic, make_detectors(), prefix=config.group_prefix, default_s=config.state_lookback_s),
        changelog=Changelog(changelog_topic(topic, config.group_prefix), reader),
    )


def make_consumer(topic: str, config: RuntimeConfig) -> KafkaConsumer:
    """A manual-commit consumer in the topic's group (not subscribed yet)."""
    return KafkaConsumer(
        bootstrap_servers=config.bootstrap,
        group_id=group_of(config.group_prefix, topic),
        client_id=f"railbird-{topic}",
        enable_auto_commit=False,
        auto_offset_reset="earliest",
        max_poll_records=config.max_poll_records,
        max_poll_interval_ms=config.max_poll_interval_ms,
        session_timeout_ms=config.session_timeout_ms,
        heartbeat_interval_ms=config.heartbeat_ms,
        fetch_max_wait_ms=config.fetch_max_wait_ms,
        isolation_level=ISOLATION_LEVEL,
    )


def build_lanes(
    topics: Iterable[str],
    *,
    config: RuntimeConfig,
    factory: DetectorFactory,
    rules: RulesConfig,
    producer: ProducerPort,
    api: ReviewApiClient,
    metrics: ConsumerMetrics,
    stop: threading.Event,
    skips: SkipBook | None = None,
) -> dict[str, Lane]:
    """One subscribed lane per topic; `skips` holds the operators' skip requests (`SkipFeed`)."""
    book = skips if skips is not None else SkipBook()
    lanes: dict[str, Lane] = {}
    for topic in topics:
        consumer = make_consumer(topic, config)
        lane = Lane(
            consumer=consumer,
            producer=producer,
            api=api,
            processor=build_processor(topic, factory=factory, rules=rules, config=config),
            metrics=metrics,
            config=LaneConfig(
                group=group_of(config.group_prefix, topic),
                max_records=config.max_poll_records,
                poll_timeout_ms=config.poll_timeout_ms,
                keepalive_s=config.keepalive_s,
                overlap_writes=config.overlap_writes,
            ),
            stop=stop,
            backoff=Backoff(base_s=config.retry_base_s, cap_s=config.retry_cap_s),
            probe=KafkaBatchProbe(bootstrap=config.bootstrap, fetch_max_wait_ms=config.fetch_max_wait_ms),
            skips=book,
        )
        consumer.subscribe([topic], listener=lane)
        lanes[topic] = lane
    return lanes


def run_lanes(lanes: Mapping[str, Lane], *, stop: threading.Event) -> int:
    """Run every lane in its own thread until `stop`; a crashed lane stops them all (exit code 1)."""
    failed: list[str] = []

    def guarded(topic: str, lane: Lane) -> None:
        try:
            lane.run()
        except Exception:
            log.exception("lane crashed; stopping the process", extra={"topic": topic})
            failed.append(topic)
            stop.set()

    threads = [
        threading.Thread(target=guarded, args=(t, lane), name=f"lane-{t}") for t, lane in lanes.items()
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return 1 if failed else 0
