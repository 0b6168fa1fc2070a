"""Routed events packed per re-key partition: one Kafka record carries many (key, event) entries.

A kafka-python produce costs ~50 us of pure Python per record and a consumed record ~40 us; chat
routes two or three entries per message. Stage 1 therefore computes each entry's partition itself
(the Java client's murmur2, exactly as kafka-python's default partitioner does, so a key lands where
a keyed record would) and sends one bundle per partition and batch; stage 2 unpacks bundles into
entries that behave like records (`Entry`). Order per key is kept (entries keep batch order), and
every entry names its source record (`rb-src`) for dead letters and logs.

Bundle layout: magic `RBB1`, then per entry four big-endian u32 lengths (key, detectors, source,
value) followed by those bytes.

Progress marks: every bundle also carries, in its `rb-wm` header, the newest event time (epoch ms)
each input partition of the batch delivered (`chat.messages/3=1733140000123;...`), and a batch
sends a bundle to every partition of the re-key topic (an empty one where it routes nothing), so
each stage-2 partition knows how far every input partition has got, not only the ones whose keys
it holds. `expand` turns the header into a mark entry after the bundle's events (no key, no value,
the `rb-wm` header): the ordering detectors hold a lagging partition's places back by it
(`pipeline.detectors.chat.order`, "Sources").
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from kafka.partitioner.default import murmur2

from consumers.ports import RecordLike

MAGIC = b"RBB1"
BUNDLE_HEADER = "rb-bundle"
SOURCE_TOPIC_HEADER = "rb-topic"
SOURCE_HEADER = "rb-src"
DETECTORS_HEADER = "rb-detectors"
MARKS_HEADER = "rb-wm"
_LENGTHS = struct.Struct(">IIII")


class BundleError(ValueError):
    """A bundle that cannot be unpacked (truncated or foreign bytes)."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One routed event, unpacked from a bundle; quacks like a consumed record."""

    topic: str
    partition: int
    offset: int
    timestamp: int
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...]


def partition_of(key: bytes, partitions: int) -> int:
    """The partition kafka-python's (and the Java client's) default partitioner picks for a key."""
    return int(murmur2(key) & 0x7FFFFFFF) % partitions


def pack(entries: Iterable[tuple[bytes, bytes, bytes, bytes]]) -> bytes:
    """Bundle bytes for (key, detectors, source, value) entries."""
    parts = [MAGIC]
    for key, detectors, source, value in entries:
        parts.append(_LENGTHS.pack(len(key), len(detectors), len(source), len(value)))
        parts.extend((key, detectors, source, value))
    return b"".join(parts)


def unpack(raw: bytes) -> Iterator[tuple[bytes, bytes, bytes, bytes]]:
    """(key, detectors, source, value) entries of a bundle; `BundleError` when malformed."""
    if not raw.startswith(MAGIC):
        raise BundleError("not a Railbird bundle")
    pos, end = len(MAGIC), len(raw)
    while pos < end:
        if pos + _LENGTHS.size > end:
            raise BundleError("truncated bundle header")
        lengths = _LENGTHS.unpack_from(raw, pos)
        pos += _LENGTHS.size
        fields = []
        for n in lengths:
            if pos + n > end:
                raise BundleError("truncated bundle entry")
            fields.append(raw[pos : pos + n])
            pos += n
        yield fields[0], fields[1], fields[2], fields[3]


def is_bundle(record: RecordLike) -> bool:
    """True for a bundle record (marked by its header)."""
    return any(k == BUNDLE_HEADER for k, _ in record.headers or ())


def expand(records: Iterable[RecordLike]) -> list[RecordLike]:
    """Records with every bundle replaced by its entries. A malformed bundle stays as it is: the
    keyed stage then dead-letters it (it has no detectors header)."""
    out: list[RecordLike] = []
    for record in records:
        if not is_bundle(record):
            out.append(record)
            continue
        try:
            fields = list(unpack(record.value or b""))
        except BundleError:
            out.append(record)
            continue
        source_topic = _header(record, SOURCE_TOPIC_HEADER)
        for key, detectors, source, value in fields:
            headers = ((SOURCE_TOPIC_HEADER, source_topic), (SOURCE_HEADER, source), (DETECTORS_HEADER, detectors))
            out.append(Entry(record.topic, record.partition, record.offset, record.timestamp, key, value, headers))
        marks = _header(record, MARKS_HEADER)
        if marks:
            mark = ((SOURCE_TOPIC_HEADER, source_topic), (MARKS_HEADER, marks))
            out.append(Entry(record.topic, record.partition, record.offset, record.timestamp, None, None, mark))
    return out


def is_mark(record: RecordLike) -> bool:
    """True for the progress-mark entry `expand` puts after a bundle's events."""
    return record.key is None and any(k == MARKS_HEADER for k, _ in record.headers or ())


def encode_marks(newest: dict[str, int]) -> bytes:
    """The `rb-wm` header value: input partition ("topic/partition") -> newest event time (ms)."""
    return ";".join(f"{source}={ms}" for source, ms in sorted(newest.items())).encode()


def decode_marks(raw: str) -> dict[str, int]:
    """`encode_marks` read back; `BundleError` on anything else."""
    out: dict[str, int] = {}
    for item in raw.split(";"):
        source, sep, ms = item.rpartition("=")
        if not sep or not source or not ms.isdigit():
            raise BundleError(f"bad progress mark {item[:80]!r}")
        out[source] = int(ms)
    return out


def _header(record: RecordLike, name: str) -> bytes:
    for k, v in record.headers or ():
        if k == name and v is not None:
            return v
    return b""


def bundles(
    routes: Iterable[tuple[str, bytes, bytes, bytes, bytes]], partitions: dict[str, int]
) -> dict[tuple[str, int], list[tuple[bytes, bytes, bytes, bytes]]]:
    """(topic, key, detectors, source, value) routes grouped by (topic, partition), order kept."""
    out: dict[tuple[str, int], list[tuple[bytes, bytes, bytes, bytes]]] = {}
    for topic, key, detectors, source, value in routes:
        out.setdefault((topic, partition_of(key, partitions[topic])), []).append((key, detectors, source, value))
    return out
