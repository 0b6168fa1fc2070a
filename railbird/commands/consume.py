"""`railbird consume`: run the streaming runtime for one input topic or all of them."""

from __future__ import annotations

import argparse
import logging
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass

from kafka import KafkaProducer
from prometheus_client import CollectorRegistry

from api.policy.rules import PolicySettings
from consumers.api_client import ReviewApiClient
from consumers.codecs import compression_type, missing_codecs
from consumers.health import Readiness, serve_ops
from consumers.logs import configure_json_logging
from consumers.metrics import ConsumerMetrics
from consumers.poison import SkipBook, SkipFeed, control_topic
from consumers.producer import RebuildingProducer
from consumers.runtime import (
    DetectorFactory,
    RuntimeConfig,
    build_lanes,
    internal_topics,
    lane_topics,
    lookback_for,
    run_lanes,
)
from consumers.topics import ensure_topics
from pipeline.contracts import INPUT_TOPICS
from pipeline.rules import RulesConfig
from railbird.gc_tuning import tune_gc
from railbird.model_watch import ModelWatch
from railbird.settings import Settings

log = logging.getLogger("railbird.consume")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--topic T (repeatable) or --all; --metrics-port overrides the settings."""
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument(
        "--topic", action="append", choices=sorted(INPUT_TOPICS), help="input topic to consume"
    )
    group.add_argument("--all", action="store_true", help="consume every input topic in this process")
    parser.add_argument("--metrics-port", type=int, default=None, help="ops HTTP port (0 = off)")


def runtime_config(settings: Settings) -> RuntimeConfig:
    """The runtime's tunables from the settings."""
    return RuntimeConfig(
        bootstrap=settings.kafka_bootstrap,
        group_prefix=settings.consumer_group_prefix,
        session_timeout_ms=settings.consumer_session_timeout_ms,
        heartbeat_ms=settings.consumer_heartbeat_ms,
        max_poll_records=settings.consumer_max_poll_records,
        poll_timeout_ms=settings.consumer_poll_timeout_ms,
        max_poll_interval_ms=settings.consumer_max_poll_interval_ms,
        keepalive_s=settings.consumer_keepalive_s,
        fetch_max_wait_ms=settings.consumer_fetch_max_wait_ms,
        state_lookback_s=settings.consumer_state_lookback_s,
        retry_base_s=settings.consumer_retry_base_ms / 1000,
        retry_cap_s=settings.consumer_retry_cap_ms / 1000,
        local_state=settings.consumer_local_state,
        overlap_writes=settings.consumer_overlap_writes,
    )


def run(args: argparse.Namespace, settings: Settings) -> int:
    """Consume the chosen topics with every registered detector until SIGTERM/SIGINT."""
    # Imported here: the registry (and its models) is needed by this entry point only; `serve`
    # takes any detector factory, which is how the integration tests run it with test doubles.
    from railbird.wiring import (
        fetch_policy,
        initial_model,
        make_detector_factory,
        make_model_watch,
        rules_from,
        shadow_model_file,
        with_model,
    )

    configure_json_logging(level=settings.log_level)
    port = settings.metrics_port if args.metrics_port is None else args.metrics_port
    inputs = sorted(INPUT_TOPICS) if args.all else list(args.topic)
    fetched = fetch_policy(settings)
    model = initial_model(settings)
    while True:
        revision, policy = fetched if fetched else (0, None)
        policy, shadow_model = shadow_model_file(settings, policy)
        factory = only(make_detector_factory(with_model(settings, model), policy, shadow_model),
                       settings.consumer_detectors)
        watch = PolicyWatch(lambda: fetch_policy(settings), revision=revision, every_s=settings.policy_refresh_s)
        models = make_model_watch(settings, model)
        log.info("enforcement policy revision %d, chat model version %d", revision, model.version,
                 extra={"rules_version": rules_from(settings, policy).version})
        code = serve(settings, inputs=inputs, factory=factory, rules=rules_from(settings, policy),
                     metrics_port=port, watch=watch, model_watch=models)
        if watch.latest is None and models.latest is None:
            return code
        # A new policy or a new promoted model: rebuild every lane with it (state replays from the re-key topic).
        fetched, model = watch.latest or fetched, models.latest or model


@dataclass
class PolicyWatch:
    """Polls the API's policy while lanes run; a new revision stops them so `run` restarts with it."""

    fetch: Callable[[], tuple[int, PolicySettings] | None]
    revision: int
    every_s: float
    latest: tuple[int, PolicySettings] | None = None

    def start(self, stop: threading.Event) -> None:
        """Poll in a daemon thread until `stop` (never when every_s is 0)."""
        if self.every_s > 0:
            threading.Thread(target=self._poll, args=(stop,), name="railbird-policy", daemon=True).start()

    def _poll(self, stop: threading.Event) -> None:
        while not stop.wait(self.every_s):
            fetched = self.fetch()
            if fetched is not None and fetched[0] != self.revision and not stop.is_set():
                log.info("enforcement policy revision %d replaces %d: restarting the lanes", fetched[0], self.revision)
                self.latest = fetched
                stop.set()


def only(factory: DetectorFactory, names: str) -> DetectorFactory:
    """The factory restricted to a comma-separated allowlist (empty: every detector)."""
    wanted = {n.strip() for n in names.split(",") if n.strip()}
    if not wanted:
        return factory
    if unknown := wanted - set(factory()):
        raise SystemExit(f"unknown RAILBIRD_CONSUMER_DETECTORS {sorted(unknown)}; known: {sorted(factory())}")
    from pipeline.shadow import live_name  # late, like the registry in `run`

    # A detector's shadow copy (pipeline/shadow.py) runs where the detector does.
    return lambda: {n: d for n, d in factory().items() if live_name(n) in wanted}


def serve(
    settings: Settings,
    *,
    inputs: list[str],
    factory: DetectorFactory,
    rules: RulesConfig,
    metrics_port: int,
    watch: PolicyWatch | None = None,
    model_watch: ModelWatch | None = None,
) -> int:
    """Build the lanes, serve /metrics, /healthz, /readyz, run until SIGTERM/SIGINT; the exit code."""
    config = runtime_config(settings)
    topics = lane_topics(inputs, config.group_prefix)
    ensure_topics(
        config.bootstrap,
        partitions=settings.topic_partitions,
        replication=settings.topic_replication,
        topics=[*topics, *internal_topics(topics)],
        lookback_s=lookback_for(factory().values(), config.state_lookback_s),
    )
    ensure_topics(config.bootstrap, partitions=1, replication=settings.topic_replication,
                  topics=[control_topic(config.group_prefix)])
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    registry = CollectorRegistry()
    metrics = ConsumerMetrics.create(registry)
    api = ReviewApiClient(
        base_url=settings.api_url,
        token=settings.service_token,
        timeout_s=settings.api_timeout_s,
        batch_size=settings.api_batch_size,
    )
    # Rebuilt after a failure: an idempotent producer whose id the broker lost never recovers.
    producer = RebuildingProducer(
        lambda: KafkaProducer(
            bootstrap_servers=config.bootstrap,
            acks="all",
            linger_ms=2,
            client_id="railbird-consume",
            compression_type=compression_type(settings.kafka_compression),
        )
    )
    if missing := missing_codecs():
        # Not fatal: a batch in such a codec pauses its partition (consumers/poison.py), the rest goes on.
        log.error("kafka-python cannot decode %s here: install the project's dependencies", ", ".join(missing))
    skips = SkipBook()
    lanes = build_lanes(
        topics,
        config=config,
        factory=factory,
        rules=rules,
        producer=producer,
        api=api,
        metrics=metrics,
        stop=stop,
        skips=skips,
    )
    SkipFeed(bootstrap=config.bootstrap, topic=control_topic(config.group_prefix), book=skips).start(stop)
    tune_gc()  # after the models and detectors exist: see railbird.gc_tuning
    server = None
    if metrics_port:
        readiness = Readiness({t: lane.status for t, lane in lanes.items()}, api.reachable)
        server = serve_ops(
            host=settings.metrics_host, port=metrics_port, registry=registry, readiness=readiness
        )
    log.info("consuming %s", ", ".join(topics), extra={"count": len(topics)})
    if watch is not None:
        watch.start(stop)
    if model_watch is not None:
        model_watch.start(stop)
    try:
        return run_lanes(lanes, stop=stop)
    finally:
        producer.close(timeout=10)
        api.close()
        if server is not None:
            server.shutdown()
            server.server_close()  # frees the port for a restart with a new policy
        log.info("stopped")
