"""`railbird skip`: dead-letter an undecodable batch that paused a partition, so the lane resumes.

A consumer that cannot decode a batch pauses that partition and logs the command to run (see
consumers/poison.py). This command checks that the offset really fails to decode here (the same
libraries and settings as the consumers), finds where the batch ends (the first offset after it
that reads, probed one offset at a time) unless `--to` says it, and publishes a `SkipRequest` to
`<prefix>.control`. Every `railbird consume` process reads that topic; the lane blocked inside the
range dead-letters each offset (`undecodable`), commits past the range and resumes. Exit codes:
0 published, 2 refused (the offset decodes, or the range is empty).
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime

from kafka import KafkaProducer, TopicPartition

from consumers.poison import KafkaBatchProbe, SkipRequest, control_topic, first_decodable
from consumers.topics import ensure_topics
from railbird.settings import Settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--topic, --partition, --offset (as the consumer's log line says); --to, --reason, --force."""
    parser.add_argument("--topic", required=True, help="the blocked topic (an input or the re-key topic)")
    parser.add_argument("--partition", type=int, required=True)
    parser.add_argument("--offset", type=int, required=True, help="the offset the consumer is blocked at")
    parser.add_argument("--to", type=int, default=None,
                        help="first offset NOT to skip (default: the first one after --offset that decodes)")
    parser.add_argument("--reason", default="undecodable batch", help="kept in each dead letter")
    parser.add_argument("--force", action="store_true", help="skip even if --offset decodes here")
    parser.add_argument("--max-probe", type=int, default=100_000, help="offsets probed to find the end")


def run(args: argparse.Namespace, settings: Settings) -> int:
    """Probe, then publish the request; prints what will be skipped."""
    tp = TopicPartition(args.topic, args.partition)
    probe = KafkaBatchProbe(bootstrap=settings.kafka_bootstrap, fetch_max_wait_ms=settings.consumer_fetch_max_wait_ms)
    error = probe.failing({tp: args.offset}).get(tp, "")
    if not error and not args.force:
        print(f"{args.topic}/{args.partition} offset {args.offset} decodes here: nothing to skip (--force to skip anyway)")
        return 2
    end = args.to if args.to is not None else first_decodable(probe, tp, args.offset, limit=args.max_probe)
    if end <= args.offset:
        print(f"--to {end} is not after --offset {args.offset}")
        return 2
    request = SkipRequest(topic=args.topic, partition=args.partition, from_offset=args.offset, to_offset=end,
                          reason=args.reason, requested_at=datetime.now(UTC))
    topic = control_topic(settings.consumer_group_prefix)
    ensure_topics(settings.kafka_bootstrap, partitions=1, replication=settings.topic_replication, topics=[topic])
    producer = KafkaProducer(bootstrap_servers=settings.kafka_bootstrap, acks="all", client_id="railbird-skip")
    try:
        producer.send(topic, key=f"{args.topic}/{args.partition}".encode(),
                      value=request.model_dump_json().encode()).get(timeout=30)
    finally:
        producer.close(10)
    print(f"requested: skip {args.topic}/{args.partition} offsets {args.offset}..{end - 1} "
          f"({end - args.offset} dead letters){'; error here: ' + error if error else ''}")
    return 0
