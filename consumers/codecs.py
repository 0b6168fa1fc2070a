"""Kafka compression codecs: which ones this process can decode, and what our own producers use.

Kafka defines gzip, snappy, lz4 and zstd. kafka-python decodes gzip with the standard library and
the other three only when their libraries are importable (`python-snappy`, `lz4`, `zstandard`,
dependencies in pyproject.toml); without one, the first batch so compressed raised
`UnsupportedCodecError` out of `poll()` and stopped the process (issue 21). A game server may pick
any of them, so every one is a dependency, and `missing_codecs()` lets the commands say at start
which ones an install lacks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from kafka import codec

Compression = Literal["none", "gzip", "snappy", "lz4", "zstd"]
"""A producer's `compression.type`, as Kafka spells it."""

CODECS: dict[str, Callable[[], bool]] = {
    "gzip": codec.has_gzip,
    "snappy": codec.has_snappy,
    "lz4": codec.has_lz4,
    "zstd": codec.has_zstd,
}
"""Every codec Kafka defines, with kafka-python's check that it can (de)compress it."""


def missing_codecs() -> list[str]:
    """Codecs kafka-python cannot decode in this process (empty on a complete install)."""
    return [name for name, available in CODECS.items() if not available()]


def compression_type(compression: Compression) -> str | None:
    """kafka-python's `compression_type` argument for a setting ("none" is None there)."""
    return None if compression == "none" else compression
