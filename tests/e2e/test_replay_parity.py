"""`railbird replay` on a file prints the same findings the streaming path writes for the same
events: both run the same pipeline code, and state is keyed so partitioning does not change it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from pipeline.contracts import CHAT, HAND, SEAT, SNAPCAM
from pipeline.replay import envelope_line, replay_lines
from railbird.settings import Settings
from railbird.wiring import make_pipeline
from simulator import demo_traffic
from tests.e2e.stack import Stack, finding_ids, settled, start_stack

pytestmark = [pytest.mark.kafka, pytest.mark.slow]

KEY_FIELD = {CHAT: "player_id", SNAPCAM: "reported_id", SEAT: "table_id", HAND: "table_id"}


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """A stack consuming every input topic, one partition each.

    One partition because the claim here is "same code, same findings"; how findings hold up when
    state is spread over partitions is tests/e2e/test_parity_partitions.py (3 partitions) and the
    streaming runtime's tests (tests/consumers).
    """
    yield from start_stack(
        tmp_path_factory.mktemp("parity"),
        consume_args=["--all"],
        partitions=1,
        # Lanes fetch as soon as data is there, so the per-topic lanes never lag each other by more
        # than the pace at which the room's events happen.
        extra_env={"RAILBIRD_CONSUMER_FETCH_MAX_WAIT_MS": "10"},
    )


def test_replay_and_streaming_agree_on_a_simulated_room(stack: Stack, tmp_path: Path) -> None:
    events = list(demo_traffic(5, minutes=2.0, players=40))
    lines = [envelope_line(topic, event.model_dump(mode="json")) for topic, event in events]
    path = tmp_path / "room.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    offline: list[dict[str, Any]] = list(replay_lines(path.read_text().splitlines(), make_pipeline(Settings()),
                                                      flush=False))
    replayed = {o["finding"]["finding_id"] for o in offline if o["kind"] == "finding"}
    assert len(replayed) >= 10, "the sample must exercise the detectors"

    # Like game servers: events in event-time order as they happen (a room's events are seconds
    # apart; 100 ms here), each topic keyed by its producer key. A burst of all of them at once
    # would let the per-topic lanes race each other: docs/operations.md explains why stateful
    # detectors see event order only within a partition.
    stack.produce_mixed(
        [(topic, event.model_dump(mode="json"), KEY_FIELD[topic]) for topic, event in events], pace_s=0.1
    )
    analyst = stack.login("parity", "analyst")
    streamed = settled(lambda: finding_ids(stack, analyst), want=len(replayed))
    only_offline = [(o["finding"]["detector"], o["finding"]["summary"][:80]) for o in offline
                    if o["kind"] == "finding" and o["finding"]["finding_id"] in replayed - streamed]
    only_streamed = [(f["detector"], f["summary"][:80]) for f in (
        httpx.get(f"{stack.api_url}/v1/findings/{i}", headers=analyst).json() for i in streamed - replayed)]
    assert streamed == replayed, {"only_streamed": only_streamed[:10], "only_replayed": only_offline[:10]}
