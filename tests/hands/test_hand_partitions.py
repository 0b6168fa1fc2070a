"""The hand detectors find the same things however the streaming runtime partitions their state.

The events go through the runtime's own two stages in-process (`InputProcessor` routes by each
detector's `key()`, `KeyedProcessor` keeps fresh detector instances per re-key partition), with
1, 3 and 7 partitions, and the findings are compared with one detector set seeing every event in
order, as `railbird replay` does. The sample mixes what used to split: private agreement talk sent
before the tournament (no tournament id), bounty pairs across several tournaments, and soft play and
chip dumping on cash tables.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from consumers.bundle import DETECTORS_HEADER, SOURCE_TOPIC_HEADER, partition_of
from consumers.input_stage import InputProcessor
from consumers.processing import KeyedProcessor
from pipeline.contracts import CHAT, HAND, ChatMessage
from pipeline.detectors.hand import build_hand_detectors
from pipeline.findings import Finding
from pipeline.rules import RULES_PRESETS
from pipeline.runner import Pipeline
from tests.consumers.kafka_fakes import FakeRecord
from tests.hands.scenarios import bounty_scenario, cash_scenario

RULES = next(iter(RULES_PRESETS.values()))


def _events() -> list[tuple[str, Any]]:
    bounty = bounty_scenario(pairs=4, tournaments_per_pair=5, clean=6, seed=11)
    events = list(bounty.events)
    # Pair 1 agrees in private before any tournament: the line carries no tournament id.
    first_hand = next(e for t, e in events if t == HAND)
    early = ChatMessage(
        event_id="pre-agree", ts=first_hand.ts - timedelta(hours=1), channel="private", player_id="ring1a",
        nickname="ring1a", text="let's go after the bounty, we check it down when someone is all in",
        client="desktop", recipient_id="ring1b",
    )
    chatter = ChatMessage(
        event_id="pre-hello", ts=first_hand.ts - timedelta(minutes=59), channel="private", player_id="ring1b",
        nickname="ring1b", text="ok see you at the tables", client="desktop", recipient_id="ring1a",
    )
    cash = cash_scenario(tables=6, hands=160, seed=5)
    return [(CHAT, early), (CHAT, chatter), *events, *cash.events]


def _single(events: list[tuple[str, Any]]) -> set[str]:
    pipeline = Pipeline({d.name: d for d in build_hand_detectors(rules=RULES)}, rules=RULES)
    return {f.finding_id for topic, event in events for f in pipeline.process(topic, event).findings}


def _partitioned(events: list[tuple[str, Any]], partitions: int) -> tuple[set[str], set[int]]:
    """Findings through the runtime's stages, and the re-key partitions that received events."""
    stage1 = InputProcessor(detectors={d.name: d for d in build_hand_detectors(rules=RULES)}, rules=RULES)
    stage2 = KeyedProcessor(
        make_detectors=lambda: {d.name: d for d in build_hand_detectors(rules=RULES)},
        rules=RULES, history=None, lookback_s=0,
    )
    found: list[Finding] = []
    used: set[int] = set()
    offsets = [0] * partitions
    for n, (topic, event) in enumerate(events):
        value = event.model_dump_json().encode()
        handled = stage1.handle(FakeRecord(topic, 0, n, None, value))
        assert handled.dead is None, handled.dead
        found.extend(handled.findings)
        for route in handled.routes:
            p = partition_of(route.key, partitions)
            used.add(p)
            headers = ((SOURCE_TOPIC_HEADER, route.input_topic.encode()), (DETECTORS_HEADER, route.detectors))
            out = stage2.handle(FakeRecord(route.topic, p, offsets[p], route.key, route.value, headers))
            offsets[p] += 1
            assert out.dead is None and not out.errors, (out.dead, out.errors)
            found.extend(out.findings)
    return {f.finding_id for f in found}, used


@pytest.fixture(scope="module")
def sample() -> tuple[list[tuple[str, Any]], set[str]]:
    events = _events()
    return events, _single(events)


def test_the_sample_exercises_every_hand_detector(sample: tuple[list[tuple[str, Any]], set[str]]) -> None:
    events, ids = sample
    pipeline = Pipeline({d.name: d for d in build_hand_detectors(rules=RULES)}, rules=RULES)
    findings = [f for topic, event in events for f in pipeline.process(topic, event).findings]
    assert {f.category for f in findings} >= {"soft_play", "chip_dumping", "bounty_agreement"}
    pre = [f for f in findings if "pre-agree" in f.source_event_ids]
    assert pre and all(set(f.players[:2]) == {"ring1a", "ring1b"} for f in pre), "the early private line is used"
    assert ids == {f.finding_id for f in findings}


@pytest.mark.parametrize("partitions", [1, 3, 7])
def test_partitioned_streaming_finds_what_one_process_finds(
    sample: tuple[list[tuple[str, Any]], set[str]], partitions: int
) -> None:
    events, expected = sample
    found, used = _partitioned(events, partitions)
    assert found == expected, {"only_streamed": sorted(found - expected), "only_single": sorted(expected - found)}
    assert len(used) == 1, "every hand detector's state lives under one key, hence one partition"


def test_chat_that_cannot_matter_is_not_routed() -> None:
    stage1 = InputProcessor(detectors={d.name: d for d in build_hand_detectors(rules=RULES)}, rules=RULES)
    first = bounty_scenario(pairs=1, tournaments_per_pair=1, clean=0, seed=3).events[0][1]
    cases = {
        "cash table talk": ChatMessage(event_id="c1", ts=first.ts, channel="table", player_id="a", nickname="a",
                                       text="let's target @b", client="desktop", table_id="t1"),
        "private small talk": ChatMessage(event_id="c2", ts=first.ts, channel="private", player_id="a",
                                          nickname="a", text="gg", client="desktop", recipient_id="b"),
    }
    for what, msg in cases.items():
        handled = stage1.handle(FakeRecord(CHAT, 0, 0, None, msg.model_dump_json().encode()))
        assert handled.routes == (), what
    private = cases["private small talk"].model_copy(update={"event_id": "c3", "text": "we don't bet into each other"})
    tournament = cases["cash table talk"].model_copy(update={"event_id": "c4", "text": "gl", "tournament_id": "t"})
    for msg in (private, tournament):
        handled = stage1.handle(FakeRecord(CHAT, 0, 0, None, msg.model_dump_json().encode()))
        assert [r.key for r in handled.routes] == [b"hands"], msg.text
