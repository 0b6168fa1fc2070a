"""The event archive: raw input records kept on disk for the evidence retention period, so a
retroactive run can read a past range after Kafka's retention has deleted it.

Layout: `<archive>/<YYYY-MM-DDTHH>/<writer>.seg`, one directory per UTC hour of the record's Kafka
timestamp and one append-only file per writing process in it. A record is framed as
`length (4 bytes) | crc32 (4) | topic length (1) | partition (2) | offset (8) | timestamp ms (8) |
topic | value`, so a torn tail (a crash mid-write) or a damaged record is recognised and the file
is read up to it. Why one file per process, never reopened by another: a restarted archiver
never appends after a torn tail. Why hour directories by record time: a range read opens only
the hours it needs, retention deletes whole directories, and a record delivered twice (a crash
between the fsync and the offset commit) lands in the same hour, where the read drops the copy
by (topic, partition, offset).
"""

from __future__ import annotations

import heapq
import logging
import os
import shutil
import socket
import struct
import time
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO, Final

log = logging.getLogger("railbird.archive")

_FRAME: Final = struct.Struct(">II")
_HEAD: Final = struct.Struct(">BHqq")
BUCKET_FORMAT: Final = "%Y-%m-%dT%H"
SUFFIX: Final = ".seg"
HOUR_MS: Final = 3_600_000


@dataclass(frozen=True, slots=True)
class ArchivedRecord:
    """One input record as Kafka delivered it."""

    topic: str
    partition: int
    offset: int
    timestamp_ms: int
    value: bytes


def bucket_of(timestamp_ms: int) -> str:
    """The hour directory a record of this Kafka timestamp goes to."""
    return datetime.fromtimestamp(max(timestamp_ms, 0) / 1000, UTC).strftime(BUCKET_FORMAT)


def bucket_start(name: str) -> datetime:
    """Start of an hour directory's hour; ValueError for a name that is not one."""
    return datetime.strptime(name, BUCKET_FORMAT).replace(tzinfo=UTC)


def encode(record: ArchivedRecord) -> bytes:
    """One framed record."""
    topic = record.topic.encode("utf-8")
    if len(topic) > 255:
        raise ValueError(f"topic name too long for the archive: {record.topic[:40]!r}")
    body = _HEAD.pack(len(topic), record.partition, record.offset, record.timestamp_ms) + topic + record.value
    return _FRAME.pack(len(body), zlib.crc32(body)) + body


def decode_file(stream: IO[bytes], name: str = "?") -> Iterator[ArchivedRecord]:
    """The records of one segment file up to its end, or up to a torn or damaged record (logged)."""
    while True:
        frame = stream.read(_FRAME.size)
        if not frame:
            return
        if len(frame) < _FRAME.size:
            log.warning("archive segment %s ends in a torn record; read up to it", name)
            return
        length, crc = _FRAME.unpack(frame)
        body = stream.read(length)
        if len(body) < length or zlib.crc32(body) != crc or length < _HEAD.size:
            log.warning("archive segment %s has a torn or damaged record; read up to it", name)
            return
        topic_len, partition, offset, ts = _HEAD.unpack_from(body)
        start = _HEAD.size
        topic = body[start:start + topic_len].decode("utf-8", errors="replace")
        yield ArchivedRecord(topic, partition, offset, ts, body[start + topic_len:])


def writer_name() -> str:
    """A name no other process uses: host, pid and start time."""
    return f"{socket.gethostname()}-{os.getpid()}-{time.time_ns() // 1_000_000}"


class SegmentWriter:
    """Appends records to this process's file of each hour directory; `sync` makes them durable."""

    def __init__(self, root: Path, *, name: str | None = None) -> None:
        self.root = root
        self.name = name or writer_name()
        self._open: dict[str, IO[bytes]] = {}
        self._dirty: set[str] = set()
        root.mkdir(parents=True, exist_ok=True)

    def append(self, records: Iterable[ArchivedRecord]) -> int:
        """Write records (buffered); returns how many. Not durable before `sync`."""
        count = 0
        for record in records:
            bucket = bucket_of(record.timestamp_ms)
            self._file(bucket).write(encode(record))
            self._dirty.add(bucket)
            count += 1
        return count

    def sync(self) -> None:
        """Flush and fsync every file written since the last call (and a new directory's entry):
        only after this may the offsets of what was appended be committed."""
        for bucket in sorted(self._dirty):
            stream = self._open[bucket]
            stream.flush()
            os.fsync(stream.fileno())
        self._dirty.clear()

    def close_before(self, bucket: str) -> None:
        """Close the files of hours before `bucket` (they get no more records from a live stream)."""
        for name in [b for b in self._open if b < bucket and b not in self._dirty]:
            self._open.pop(name).close()

    def close(self) -> None:
        """Sync and close every file."""
        self.sync()
        for stream in self._open.values():
            stream.close()
        self._open.clear()

    def _file(self, bucket: str) -> IO[bytes]:
        stream = self._open.get(bucket)
        if stream is None:
            directory = self.root / bucket
            fresh = not directory.exists()
            directory.mkdir(parents=True, exist_ok=True)
            if fresh:
                _fsync_dir(self.root)
            stream = (directory / f"{self.name}{SUFFIX}").open("ab")
            _fsync_dir(directory)
            self._open[bucket] = stream
        return stream


def _fsync_dir(path: Path) -> None:
    """Make a new directory entry durable (POSIX: the file's fsync does not cover its name)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def buckets(root: Path) -> list[str]:
    """Hour directories of the archive, oldest first (anything else in the directory is ignored)."""
    if not root.is_dir():
        return []
    out = []
    for child in root.iterdir():
        try:
            bucket_start(child.name)
        except ValueError:
            continue
        if child.is_dir():
            out.append(child.name)
    return sorted(out)


def coverage(root: Path) -> tuple[datetime, datetime] | None:
    """(start of the oldest hour, end of the newest hour) the archive holds, or None when empty."""
    held = buckets(root)
    if not held:
        return None
    return bucket_start(held[0]), bucket_start(held[-1]) + timedelta(hours=1)


def holds(root: Path, start: datetime, end: datetime) -> bool:
    """Whether any hour directory overlaps [start, end)."""
    return any(start < bucket_start(b) + timedelta(hours=1) and bucket_start(b) < end for b in buckets(root))


def read_range(root: Path, start_ms: int, end_ms: int) -> Iterator[ArchivedRecord]:
    """Records whose Kafka timestamp is in [start_ms, end_ms), each once, hour by hour: within an
    hour every partition in offset order, the partitions merged by timestamp (the order a stream
    of all input topics sees them in, roughly; each partition's own order exactly)."""
    for bucket in buckets(root):
        begins = int(bucket_start(bucket).timestamp() * 1000)
        if begins + HOUR_MS <= start_ms or begins >= end_ms:
            continue
        yield from _read_bucket(root / bucket, start_ms, end_ms)


def _read_bucket(directory: Path, start_ms: int, end_ms: int) -> Iterator[ArchivedRecord]:
    parts: dict[tuple[str, int], dict[int, ArchivedRecord]] = {}
    for path in sorted(directory.glob(f"*{SUFFIX}")):
        with path.open("rb") as stream:
            for record in decode_file(stream, str(path)):
                if start_ms <= record.timestamp_ms < end_ms:
                    # setdefault keeps the first copy: a redelivered record is the same bytes
                    parts.setdefault((record.topic, record.partition), {}).setdefault(record.offset, record)
    ordered = [[p[o] for o in sorted(p)] for _, p in sorted(parts.items())]
    yield from heapq.merge(*ordered, key=lambda r: r.timestamp_ms)


def purge(root: Path, *, retention_days: int, now: datetime) -> list[str]:
    """Delete the hour directories that ended more than `retention_days` ago (0 keeps all);
    returns their names."""
    if retention_days <= 0:
        return []
    cutoff = now - timedelta(days=retention_days)
    gone = [b for b in buckets(root) if bucket_start(b) + timedelta(hours=1) <= cutoff]
    for bucket in gone:
        shutil.rmtree(root / bucket, ignore_errors=True)
    return gone
