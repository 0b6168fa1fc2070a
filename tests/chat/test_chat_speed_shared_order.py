"""The place-keyed chat detectors of one detector set share one event-time order (`SharedOrder`):
they find exactly what each finds with a buffer of its own, for any arrival order, progress marks
and redeliveries; a detector that skips a message is still handed what that message released."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.contracts import ChatMessage
from pipeline.detectors.chat.collusion_parties import CollusionPartiesDetector
from pipeline.detectors.chat.harassment import HarassmentDetector
from pipeline.detectors.chat.order import EventTimeOrder, PlaceOrdered, SharedOrder
from pipeline.detectors.chat.shouting import ShoutingMatchDetector
from pipeline.findings import Finding
from tests.chat.chat_events import T0, FakeClassifier, msg
from tests.chat.test_chat_arrival_order import LATENESS, table_chat

Detectors = list[HarassmentDetector | ShoutingMatchDetector | CollusionPartiesDetector]


def _set(shared: SharedOrder | None) -> Detectors:
    return [
        ShoutingMatchDetector(lateness=LATENESS, shared=shared),
        HarassmentDetector(classifier=FakeClassifier(), lateness=LATENESS, shared=shared),
        CollusionPartiesDetector(lateness=LATENESS, shared=shared),
    ]


def _feed(detectors: Detectors, arrivals: list[ChatMessage | tuple[str, datetime]]) -> list[str]:
    """Each arrival (a message or a progress mark) to every detector in turn, as `Pipeline` does;
    the findings serialised."""
    out: list[Finding] = []
    for arrival in arrivals:
        for d in detectors:
            out += d.process(arrival) if isinstance(arrival, ChatMessage) else d.advance(*arrival)
    for d in detectors:
        out += d.flush()
    return [f.model_dump_json() for f in out]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events=table_chat(), rnd=st.randoms(use_true_random=False))
def test_a_shared_order_finds_what_one_order_each_finds(
    events: list[ChatMessage], rnd: random.Random
) -> None:
    # Every partition reported before the first message, as the runtime does after a rebuild.
    arrivals: list[ChatMessage | tuple[str, datetime]] = [("s0", T0 - LATENESS), ("s1", T0 - LATENESS)]
    for e in sorted(events, key=lambda e: (e.ts + timedelta(seconds=rnd.uniform(0, 4.9)), rnd.random())):
        arrivals.append(e)
        if rnd.random() < 0.2:
            arrivals.append(e)  # redelivered
        if rnd.random() < 0.2:
            arrivals.append((rnd.choice(["s0", "s1"]), T0 + timedelta(seconds=rnd.uniform(0, 200))))
    shared = SharedOrder(EventTimeOrder(lateness=LATENESS))
    together, apart = _set(shared), _set(None)
    assert _feed(together, arrivals) == _feed(apart, arrivals)
    assert [dict(d.anomalies) for d in together] == [dict(d.anomalies) for d in apart]


def test_a_detector_that_skips_a_message_gets_what_it_released_with_its_next_one() -> None:
    shared = SharedOrder(EventTimeOrder(lateness=timedelta(0)))
    a, b = shared.seat(), shared.seat()
    events = [_line(i) for i in range(3)]
    assert [m.event_id for m in shared.admit(a, events[0])] == ["x0"]
    assert [m.event_id for m in shared.admit(b, events[0])] == ["x0"]
    assert [m.event_id for m in shared.admit(a, events[1])] == ["x1"]  # b never sees x1
    assert [m.event_id for m in shared.admit(a, events[2])] == ["x2"]
    assert [m.event_id for m in shared.admit(b, events[2])] == ["x1", "x2"]


def test_a_detector_that_admitted_nothing_releases_nothing() -> None:
    shared = SharedOrder(EventTimeOrder(lateness=LATENESS))
    a, b = shared.seat(), shared.seat()
    shared.admit(a, _line(0))
    assert not shared.drain(b) and [m.event_id for m in shared.drain(a)] == ["x0"]


@pytest.mark.parametrize("detector", [HarassmentDetector, ShoutingMatchDetector, CollusionPartiesDetector])
def test_a_shared_order_must_have_the_detectors_lateness(detector: type[PlaceOrdered]) -> None:
    with pytest.raises(ValueError, match="lateness"):
        detector(lateness=LATENESS * 2, shared=SharedOrder(EventTimeOrder(lateness=LATENESS)))  # type: ignore[call-arg]


def _line(i: int) -> ChatMessage:
    return msg("hello", at=float(i), event_id=f"x{i}")


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events=table_chat())
def test_detectors_run_one_after_another_over_the_stream_find_what_they_find_apart(
    events: list[ChatMessage],
) -> None:
    """As the bench times each detector alone: the later ones come after the first admitted
    everything, and each then goes with a buffer of its own."""
    arrivals: list[ChatMessage | tuple[str, datetime]] = [*events, ("s0", T0 + timedelta(hours=1))]
    together = _set(SharedOrder(EventTimeOrder(lateness=LATENESS)))
    one_by_one = [f for d in together for f in _feed([d], arrivals)]
    assert one_by_one == [f for d in _set(None) for f in _feed([d], arrivals)]
