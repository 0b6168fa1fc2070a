"""Place-keyed chat detectors find the same things, with the same ids, whatever the arrival order
of a table's messages within the configured lateness (they come from several input partitions)."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.contracts import ChatMessage
from pipeline.detectors.chat import build_chat_detectors
from pipeline.detectors.chat.harassment import HarassmentDetector
from pipeline.detectors.chat.order import EventTimeOrder
from pipeline.detectors.chat.shouting import ShoutingMatchDetector
from pipeline.registry import build_detectors
from pipeline.rules import RulesConfig
from railbird.settings import Settings
from railbird.wiring import chat_lateness
from tests.chat.chat_events import FakeClassifier, msg

LATENESS = timedelta(seconds=5)
PLAYERS = {"p1": "Alice", "p2": "Bob", "p3": "Carl", "p4": "Dana"}
LINES = ("@Alice you idiot", "Bob shut up loser", "WHY DO YOU ALWAYS CALL", "LEARN TO PLAY!!!", "nice hand",
         "gg", "Carl idiot", "@Dana nobody likes you", "hi all", "toxic Alice", "SHUT UP DONK", "@Quiet leave the table")


def _place_detectors(lateness: timedelta = LATENESS) -> list[HarassmentDetector | ShoutingMatchDetector]:
    return [HarassmentDetector(classifier=FakeClassifier(), lateness=lateness), ShoutingMatchDetector(lateness=lateness)]


def _ids(events: list[ChatMessage], lateness: timedelta = LATENESS) -> list[tuple[str, str]]:
    out = []
    for detector in _place_detectors(lateness):
        found = [f for e in events for f in detector.process(e)] + detector.flush()
        out += [(f.finding_id, f.model_dump_json()) for f in found]
    return sorted(out)


@st.composite
def table_chat(draw: st.DrawFn) -> list[ChatMessage]:
    """A burst of chat at two tables: senders, lines and gaps (ties included) all drawn."""
    n = draw(st.integers(min_value=3, max_value=45))
    at, events = 0.0, []
    for i in range(n):
        at += draw(st.sampled_from([0.0, 0.5, 1.0, 2.5, 4.0, 6.0, 12.0, 40.0]))
        player = draw(st.sampled_from(sorted(PLAYERS)))
        events.append(msg(draw(st.sampled_from(LINES)), at=at, player_id=player, nickname=PLAYERS[player],
                          table_id=draw(st.sampled_from(["t1", "t1", "t1", "t2"])), event_id=f"c{i}"))
    return events


def _arrival(events: list[ChatMessage], rnd: random.Random, lateness: timedelta) -> list[ChatMessage]:
    """Delivery order where each message is delayed by less than `lateness`: any such order has every
    message less than `lateness` behind the newest one delivered before it."""
    bound = lateness.total_seconds()
    keyed = [(e.ts + timedelta(seconds=rnd.uniform(0, bound) * 0.999), rnd.random(), e) for e in events]
    return [e for _, _, e in sorted(keyed, key=lambda k: (k[0], k[1]))]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events=table_chat(), rnd=st.randoms(use_true_random=False))
def test_any_arrival_order_within_lateness_gives_the_same_findings(events, rnd) -> None:
    assert _ids(_arrival(events, rnd, LATENESS)) == _ids(events)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events=table_chat(), rnd=st.randoms(use_true_random=False))
def test_interleaved_player_partitions_within_lateness_give_the_same_findings(events, rnd) -> None:
    # The production shape: each player's lines in order (one input partition per player), the
    # partitions read in turns, never one more than `lateness` ahead of another.
    by_player: dict[str, list[ChatMessage]] = {}
    for e in events:
        by_player.setdefault(e.player_id, []).append(e)
    queues = {p: list(q) for p, q in by_player.items()}
    delivered: list[ChatMessage] = []
    while any(queues.values()):
        ready = [p for p, q in queues.items() if q]
        oldest = min(queues[p][0].ts for p in ready)
        allowed = [p for p in ready if queues[p][0].ts - oldest < LATENESS]
        delivered.append(queues[rnd.choice(sorted(allowed))].pop(0))
    assert _ids(delivered) == _ids(events)


def test_the_streams_above_do_produce_findings() -> None:
    # Guards the properties against testing nothing: the same line pool makes both detectors fire.
    events = [msg("hi all", at=0, player_id="p1", nickname="Alice")]
    events += [msg("toxic Alice", at=2 + 3 * i, player_id="p2", nickname="Bob", event_id=f"h{i}") for i in range(3)]
    events += [msg(t, at=20 + 4 * i, player_id=("p3", "p4")[i % 2], nickname="X", event_id=f"s{i}")
               for i, t in enumerate(["SHUT UP DONK", "LEARN TO PLAY!!!", "WHY DO YOU ALWAYS CALL", "SHUT UP DONK"])]
    detectors = {d.name: d for d in _place_detectors()}
    names = {f.detector for f in (x for e in events for d in detectors.values() for x in d.process(e))}
    names |= {f.detector for d in detectors.values() for f in d.flush()}
    assert names == {"chat.harassment", "chat.shouting_match"}


def test_without_reordering_an_early_line_arriving_late_changes_the_verdict() -> None:
    # Alice's greeting teaches the detector her nickname; arriving after the first insult it is too
    # late for that line. With lateness 0 this drops the finding; with 5 s nothing changes.
    hello = msg("hi all", at=0, player_id="p2", nickname="Alice", event_id="hello")
    insults = [msg("Alice idiot", at=1 + i, player_id="p1", event_id=f"i{i}") for i in range(3)]
    in_order, swapped = [hello, *insults], [insults[0], hello, *insults[1:]]
    assert len(_ids(in_order, timedelta(0))) == 1
    assert _ids(swapped, timedelta(0)) == []
    assert _ids(swapped) == _ids(in_order) != []


def test_order_buffer_releases_late_lines_at_once_and_drops_repeats() -> None:
    order = EventTimeOrder(lateness=LATENESS)
    first, second = msg("a", at=10, event_id="a"), msg("b", at=20, event_id="b")
    assert order.admit(first) == [] and [m.event_id for m in order.admit(second)] == ["a"]
    late = msg("c", at=1, event_id="c")
    assert [m.event_id for m in order.admit(late)] == ["c"] and order.anomalies["late"] == 1
    assert order.admit(second) == () and order.anomalies["duplicate"] == 1
    assert [m.event_id for m in order.drain()] == ["b"] and order.pending == 0


def test_registered_detectors_use_the_configured_lateness() -> None:
    detectors = build_chat_detectors(rules=RulesConfig(), classifier=FakeClassifier(), lateness=timedelta(seconds=9))
    place_keyed = [d for d in detectors if isinstance(d, HarassmentDetector | ShoutingMatchDetector)]
    assert len(place_keyed) == 2 and all(d.lateness == timedelta(seconds=9) for d in place_keyed)


def test_the_lateness_setting_reaches_the_stream_and_replay_detectors(monkeypatch: pytest.MonkeyPatch) -> None:
    # One settings value feeds both paths (`make_detector_factory` for the stream, `make_pipeline`
    # for replays), so a replay reproduces the stream's findings.
    monkeypatch.setenv("RAILBIRD_CHAT_REORDER_LATENESS_S", "45")
    lateness = chat_lateness(Settings())
    assert lateness == timedelta(seconds=45)
    detectors = build_detectors(rules=RulesConfig(), chat_lateness=lateness)
    assert detectors["chat.harassment"].lateness == lateness  # type: ignore[attr-defined]
    assert detectors["chat.shouting_match"].lateness == lateness  # type: ignore[attr-defined]
    assert chat_lateness(Settings(chat_reorder_lateness_s=0)) == timedelta(0)
