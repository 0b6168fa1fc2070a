"""The kafka-python internals `consumers.kafka_compat` relies on still exist (an upgrade that
renames them fails here, not silently in production)."""

from __future__ import annotations

import inspect

from kafka.consumer.fetcher import Fetcher


def test_the_fetcher_still_parks_paused_batches_where_we_drop_them() -> None:
    source = inspect.getsource(Fetcher)
    assert "self._paused_partition_records = {}" in source
    assert hasattr(Fetcher.PartitionRecords, "drain")
    assert "if self._next_partition_records is None:" in source, (
        "kafka-python changed how it restores parked batches: check whether the workaround is still needed")
