"""The one place Railbird reaches into kafka-python's internals, to work around a bug (3.0.12).

A partition paused while its fetcher holds a parsed batch for it has that batch "parked"
(`Fetcher._paused_partition_records`). On resume, the fetcher puts a parked batch back only when
its current batch slot is `None`, but after any other partition's batch was read that slot holds
a drained batch object, not `None`: the parked batch stays, and a partition with a parked batch is
never fetched again (`_fetchable_partitions` leaves it out). Measured on the embedded broker: after
a corrupt batch, pause, seek past it and resume, the partition returned nothing for good while
the others went on. A blocked partition is exactly that case, so after seeking past its broken
batch the lane drops the parked one here (a parked batch of a partition we just moved is stale
anyway: kafka-python itself would discard it for its old offset).

`tests/consumers/test_consumer_poison_broker.py` fails without this; `test_kafka_compat.py`
fails loudly if a kafka-python release renames what it touches.
"""

from __future__ import annotations

from kafka import KafkaConsumer, TopicPartition

from consumers.ports import ConsumerPort


def drop_parked_batch(consumer: ConsumerPort, tp: TopicPartition) -> bool:
    """Forget the batch kafka-python parked for `tp` (True if there was one); fakes have none."""
    if not isinstance(consumer, KafkaConsumer):
        return False
    parked = consumer._fetcher._paused_partition_records.pop(tp, None)
    if parked is None:
        return False
    parked.drain()
    return True
