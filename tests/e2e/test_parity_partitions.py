"""With several partitions, the streaming path writes the same hand findings `railbird replay` prints.

The hand detectors keep their state under one key (`pipeline.detectors.hand.stream.HANDS_KEY`), so
bounty agreements fuse private chat with the tournament's hands and pair statistics span tables
whatever the partition count. The simulated room plants a bounty agreement (its private chat often
names no tournament). Only hand findings are compared: the other detectors' partitioning is the
runtime's and their own tests' concern (tests/e2e/test_replay_parity.py compares all, one partition).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.contracts import CHAT, HAND, SEAT, SNAPCAM
from pipeline.replay import envelope_line, replay_lines
from railbird.settings import Settings
from railbird.wiring import make_pipeline
from simulator import demo_traffic
from tests.e2e.stack import Stack, finding_ids, settled, start_stack

pytestmark = [pytest.mark.kafka, pytest.mark.slow]

KEY_FIELD = {CHAT: "player_id", SNAPCAM: "reported_id", SEAT: "table_id", HAND: "table_id"}
PARTITIONS = 3


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """A stack consuming every input topic with three partitions per topic (re-key topic included)."""
    yield from start_stack(
        tmp_path_factory.mktemp("parity-partitions"),
        consume_args=["--all"],
        partitions=PARTITIONS,
        extra_env={"RAILBIRD_CONSUMER_FETCH_MAX_WAIT_MS": "10"},
    )


def test_hand_findings_do_not_depend_on_the_partition_count(stack: Stack, tmp_path: Path) -> None:
    events = list(demo_traffic(5, minutes=3.0, players=40))
    lines = [envelope_line(topic, event.model_dump(mode="json")) for topic, event in events]
    path = tmp_path / "room.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    offline = [o for o in replay_lines(path.read_text().splitlines(), make_pipeline(Settings()))
               if o["kind"] == "finding" and o["finding"]["detector"].startswith("hand.")]
    replayed = {o["finding"]["finding_id"] for o in offline}
    assert len(replayed) >= 2, "the sample must exercise the hand detectors"

    stack.produce_mixed(
        [(topic, event.model_dump(mode="json"), KEY_FIELD[topic]) for topic, event in events], pace_s=0.1
    )
    analyst = stack.login("parity-partitions", "analyst")
    streamed = settled(lambda: finding_ids(stack, analyst, detector_prefix="hand."), want=len(replayed))
    only_offline = [(o["finding"]["detector"], o["finding"]["summary"][:80]) for o in offline
                    if o["finding"]["finding_id"] in replayed - streamed]
    assert streamed == replayed, {"only_streamed": sorted(streamed - replayed), "only_replayed": only_offline}
