"""Bundles: routed entries packed per partition, unpacked exactly, placed as keyed records would be."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from kafka.partitioner.default import murmur2

from consumers.bundle import BUNDLE_HEADER, BundleError, expand, pack, partition_of, unpack
from consumers.processing import KeyedProcessor
from consumers.topics import rekey_topic
from pipeline.contracts import CHAT
from pipeline.rules import RULES_PRESETS
from tests.consumers.detector_doubles import BurstDetector
from tests.consumers.kafka_fakes import FakeRecord

entry = st.tuples(
    st.binary(max_size=40), st.binary(max_size=20), st.binary(max_size=30), st.binary(max_size=200)
)


@given(st.lists(entry, max_size=20))
def test_pack_then_unpack_gives_back_every_entry_in_order(
    entries: list[tuple[bytes, bytes, bytes, bytes]],
) -> None:
    assert list(unpack(pack(entries))) == entries


@given(st.binary(min_size=1, max_size=40), st.integers(min_value=1, max_value=64))
def test_an_entry_goes_to_the_partition_the_default_partitioner_picks(key: bytes, n: int) -> None:
    assert partition_of(key, n) == (murmur2(key) & 0x7FFFFFFF) % n


def test_truncated_or_foreign_bytes_are_refused() -> None:
    good = pack([(b"k", b"d", b"s", b"value")])
    with pytest.raises(BundleError):
        list(unpack(good[:-2]))
    with pytest.raises(BundleError):
        list(unpack(b'{"not": "a bundle"}'))


def test_a_malformed_bundle_is_dead_lettered_by_the_keyed_stage_not_lost() -> None:
    bad = FakeRecord(rekey_topic(CHAT), 0, 7, None, b"RBB1\x00\x00", ((BUNDLE_HEADER, b"1"),))
    (record,) = expand([bad])
    assert record is bad
    processor = KeyedProcessor(
        make_detectors=lambda: {"test.burst": BurstDetector()},
        rules=next(iter(RULES_PRESETS.values())),
        history=None,
        lookback_s=60,
    )
    handled = processor.handle(record)
    assert handled.dead is not None and handled.dead[0] == "invalid"
