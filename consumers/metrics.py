"""Prometheus metrics of one consumer process, on a registry passed in (never the global one)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

if TYPE_CHECKING:
    from consumers.processing import Handled

log = logging.getLogger("railbird.consumer")

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


@dataclass(frozen=True)
class ConsumerMetrics:
    """Every metric the runtime updates; build with `ConsumerMetrics.create(registry)`."""

    registry: CollectorRegistry
    events_in: Counter
    events_out: Counter
    lag: Gauge
    batch_seconds: Histogram
    record_latency: Histogram
    dead_letters: Counter
    findings: Counter
    detector_errors: Counter
    api_errors: Counter
    api_requests: Counter
    skipped: Counter
    anomalies: Gauge
    blocked: Gauge
    undecodable: Counter
    last_anomalies: dict[tuple[str, str], int] = field(default_factory=dict)
    """The anomaly counts last set, so an increase is logged once (see `count_batch`)."""

    @classmethod
    def create(cls, registry: CollectorRegistry) -> ConsumerMetrics:
        """Register the metrics on `registry`."""
        return cls(
            registry=registry,
            events_in=Counter("railbird_events_in", "Records consumed", ["topic"], registry=registry),
            events_out=Counter(
                "railbird_events_out",
                "Records produced or written, by kind",
                ["topic", "kind"],
                registry=registry,
            ),
            lag=Gauge(
                "railbird_consumer_lag",
                "Records behind the high watermark",
                ["topic", "partition"],
                registry=registry,
            ),
            batch_seconds=Histogram(
                "railbird_batch_seconds",
                "Poll-to-commit time of a batch",
                ["topic"],
                buckets=LATENCY_BUCKETS,
                registry=registry,
            ),
            record_latency=Histogram(
                "railbird_record_latency_seconds",
                "Broker timestamp to commit, per record",
                ["topic"],
                buckets=LATENCY_BUCKETS,
                registry=registry,
            ),
            dead_letters=Counter(
                "railbird_dead_letters",
                "Records sent to a dead-letter topic",
                ["topic", "reason"],
                registry=registry,
            ),
            findings=Counter("railbird_findings", "Findings produced", ["detector"], registry=registry),
            detector_errors=Counter(
                "railbird_detector_errors", "Detector exceptions on an event", ["detector"], registry=registry
            ),
            api_errors=Counter(
                "railbird_api_write_errors", "Failed review API writes", ["kind"], registry=registry
            ),
            api_requests=Counter("railbird_api_requests", "Review API batch requests", registry=registry),
            anomalies=Gauge(
                "railbird_detector_anomalies",
                "Inputs the keyed detectors this process holds counted as anomalous (e.g. late beyond"
                " the reorder lateness), since their state was last built",
                ["detector", "kind"],
                registry=registry,
            ),
            blocked=Gauge(
                "railbird_partition_blocked",
                "1 while a partition is paused on a batch it cannot decode (until `railbird skip`)",
                ["topic", "partition"],
                registry=registry,
            ),
            undecodable=Counter(
                "railbird_undecodable_batches",
                "Batches found undecodable (codec, checksum, size); each pauses its partition",
                ["topic"],
                registry=registry,
            ),
            skipped=Counter(
                "railbird_detector_skipped",
                "Routed events for a detector this process does not run",
                ["detector"],
                registry=registry,
            ),
        )


def count_batch(metrics: ConsumerMetrics, handled: Sequence[Handled], anomalies: Mapping[tuple[str, str], int]) -> None:
    """Count a committed batch's findings, detector errors (also logged: they are bugs) and
    skipped detectors; set the keyed detectors' anomaly gauges."""
    for h in handled:
        for f in h.findings:
            metrics.findings.labels(f.detector).inc()
        for e in h.errors:
            metrics.detector_errors.labels(e.detector).inc()
            log.error("detector failed: %s", e.error, extra={"detector": e.detector, "event_id": e.event_id})
        for name in h.skipped:
            metrics.skipped.labels(name).inc()
        if h.findings:
            metrics.events_out.labels(h.record.topic, "finding").inc(len(h.findings))
    for (detector, kind), n in anomalies.items():
        metrics.anomalies.labels(detector, kind).set(n)
        before = metrics.last_anomalies.get((detector, kind), 0)
        if n > before:
            # A gauge dies with its process (a SIGKILL, a crash loop); the log line stays. A `late`
            # message (beyond the reorder lateness, e.g. after a failover slower than it) is judged
            # out of order, so that detector's findings may differ from in-order delivery.
            log.warning("detector anomalies: %s %s +%d", detector, kind, n - before,
                        extra={"detector": detector, "kind": kind, "count": n})
        metrics.last_anomalies[(detector, kind)] = n
