"""Place-keyed chat detectors told how far each input partition has got (`advance`) find the same
things, with the same ids, when one partition lags the others by far more than the lateness (a
consumer failover), as long as the lag stays within `hold`; without those reports the same
delivery makes lines late and changes the findings."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.contracts import ChatMessage
from pipeline.detector import SourceTimedDetector
from pipeline.detectors.chat.harassment import HarassmentDetector
from pipeline.detectors.chat.order import EventTimeOrder
from pipeline.detectors.chat.shouting import ShoutingMatchDetector
from pipeline.findings import Finding
from pipeline.rules import RulesConfig
from pipeline.runner import Pipeline
from pipeline.shadow import ShadowDetector
from tests.chat.chat_events import FakeClassifier, msg
from tests.chat.test_chat_arrival_order import table_chat

LATENESS = timedelta(seconds=5)
HOLD = timedelta(seconds=600)
SOURCE = {"p1": "chat/0", "p2": "chat/1", "p3": "chat/0", "p4": "chat/1"}
"""Players -> input partition, as a game server's player key spreads them."""


def _detectors() -> list[HarassmentDetector | ShoutingMatchDetector]:
    return [HarassmentDetector(classifier=FakeClassifier(), lateness=LATENESS, hold=HOLD),
            ShoutingMatchDetector(lateness=LATENESS, hold=HOLD)]


def _in_order(events: list[ChatMessage]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for detector in _detectors():
        found = [f for e in events for f in detector.process(e)] + detector.flush()
        out += [(f.finding_id, f.model_dump_json()) for f in found]
    return sorted(out)


def _streamed(batches: list[tuple[str, list[ChatMessage]]], *, report: bool) -> tuple[list[tuple[str, str]], int]:
    """Each batch's messages, then (when `report`) its partition's progress, as the runtime does
    after a bundle; every partition reported at the start. The findings and how many came late."""
    out: list[tuple[str, str]] = []
    late = 0
    for detector in _detectors():
        found: list[Finding] = []
        if report:
            start = min(e.ts for _, batch in batches for e in batch) - LATENESS
            for source in sorted(set(SOURCE.values())):
                found += detector.advance(source, start)
        for source, batch in batches:
            found += [f for e in batch for f in detector.process(e)]
            if report:
                found += detector.advance(source, max(e.ts for e in batch))
        found += detector.flush()
        late += detector.anomalies["late"]
        out += [(f.finding_id, f.model_dump_json()) for f in found]
    return sorted(out), late


def _failover(events: list[ChatMessage], rnd: random.Random, lag: timedelta) -> list[tuple[str, list[ChatMessage]]]:
    """Each partition's lines in order, read in batches of 1-4; partition chat/1 held back until
    chat/0 is `lag` ahead of it (its consumer died), then both read in turns."""
    queues: dict[str, list[ChatMessage]] = {"chat/0": [], "chat/1": []}
    for e in events:
        queues[SOURCE[e.player_id]].append(e)
    batches: list[tuple[str, list[ChatMessage]]] = []
    while any(queues.values()):
        ready = [s for s, q in queues.items() if q]
        held = "chat/1" in ready and "chat/0" in ready and queues["chat/0"][0].ts - queues["chat/1"][0].ts < lag
        source = "chat/0" if held else rnd.choice(ready)
        take = rnd.randint(1, 4)
        batches.append((source, queues[source][:take]))
        del queues[source][:take]
    return batches


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events=table_chat(), rnd=st.randoms(use_true_random=False),
       lag_s=st.sampled_from([30.0, 120.0, 400.0]))
def test_a_lagging_partition_within_hold_gives_the_same_findings_as_in_order(
    events: list[ChatMessage], rnd: random.Random, lag_s: float,
) -> None:
    batches = _failover(events, rnd, timedelta(seconds=lag_s))
    found, late = _streamed(batches, report=True)
    assert late == 0
    assert found == _in_order(events)


def test_the_same_failover_without_progress_reports_comes_late_and_changes_the_findings() -> None:
    # Guards the property above against testing nothing: Alice greets from partition 1, whose
    # consumer failed over; Bob's insults from partition 0 are read 60 s of event time ahead.
    hello = msg("hi all", at=0, player_id="p2", nickname="Alice", event_id="hello")
    insults = [msg("Alice idiot", at=1 + i, player_id="p1", nickname="Bob", event_id=f"i{i}") for i in range(3)]
    later = [msg("gg", at=60 + i, player_id="p3", nickname="Carl", event_id=f"g{i}") for i in range(2)]
    batches = [("chat/0", [*insults, *later]), ("chat/1", [hello])]
    in_order = _in_order(sorted([hello, *insults, *later], key=lambda m: m.ts))
    assert in_order != []
    unreported, late = _streamed(batches, report=False)
    assert late == 2 and unreported != in_order  # the greeting and it arrive too late
    reported, late = _streamed(batches, report=True)
    assert late == 0 and reported == in_order


def test_a_source_behind_by_more_than_hold_no_longer_holds_the_others_back() -> None:
    order = EventTimeOrder(lateness=LATENESS, hold=timedelta(seconds=60))
    assert order.advance("chat/0", msg("x", at=0).ts) == []
    assert order.admit(msg("a", at=10, event_id="a")) == []
    assert order.advance("chat/1", msg("x", at=30).ts) == [], "chat/0 (at 0) still holds 'a' back"
    assert [m.event_id for m in order.admit(msg("b", at=70, event_id="b"))] == ["a"], "chat/0 is 70 s behind: idle"
    assert order.advance("chat/1", msg("x", at=20).ts) == [] and order.pending == 1, "an older report moves nothing"
    assert order.admit(msg("c", at=5, event_id="c")) == (msg("c", at=5, event_id="c"),)
    assert order.anomalies["late"] == 1


def test_hold_may_not_be_shorter_than_lateness() -> None:
    with pytest.raises(ValueError, match="hold"):
        EventTimeOrder(lateness=LATENESS, hold=timedelta(seconds=1))
    assert EventTimeOrder(lateness=LATENESS).hold == LATENESS * 10


def test_the_pipeline_tells_every_ordering_detector_and_proposes_actions() -> None:
    detectors = {d.name: d for d in _detectors()}
    assert all(isinstance(d, SourceTimedDetector) for d in detectors.values())
    pipeline = Pipeline(detectors, rules=RulesConfig())
    texts = ["SHUT UP DONK", "LEARN TO PLAY!!!", "WHY DO YOU ALWAYS CALL", "SHUT UP DONK"]
    lines = [msg(t, at=20 + 4 * i, player_id=("p3", "p4")[i % 2], nickname="X", event_id=f"s{i}")
             for i, t in enumerate(texts)]
    assert pipeline.advance("chat/0", lines[0].ts).findings == ()
    assert all(pipeline.process("chat.messages", m).findings == () for m in lines)
    assert pipeline.advance("chat/1", lines[-1].ts + 3 * LATENESS).findings == (), "chat/0 still holds them back"
    released = pipeline.advance("chat/0", lines[-1].ts + 3 * LATENESS).findings
    assert {f.detector for f in released} == {"chat.shouting_match"}
    assert all(f.actions is not None for f in released)


def test_a_shadow_copy_is_told_the_progress_too_and_finds_what_live_finds() -> None:
    live, inner = _detectors()[1], _detectors()[1]
    shadow = ShadowDetector(inner, rules=RulesConfig())
    texts = ["SHUT UP DONK", "LEARN TO PLAY!!!", "WHY DO YOU ALWAYS CALL", "SHUT UP DONK"]
    lines = [msg(t, at=20 + 4 * i, player_id=("p3", "p4")[i % 2], nickname="X", event_id=f"s{i}")
             for i, t in enumerate(texts)]
    out: dict[str, list[Finding]] = {"live": [], "shadow": []}
    for name, detector in (("live", live), ("shadow", shadow)):
        for source in ("chat/0", "chat/1"):
            out[name] += detector.advance(source, lines[0].ts)
        for m in lines:
            out[name] += detector.process(m)
        assert out[name] == [], "held back: both partitions are at the first line"
        for source in ("chat/0", "chat/1"):
            out[name] += detector.advance(source, lines[-1].ts + 3 * LATENESS)
    assert len(out["live"]) == 1 and [f.shadow for f in out["shadow"]] == [True]
    assert out["shadow"][0].model_copy(update={"shadow": False}) == out["live"][0]
