"""Every registered detector, fed any valid event sequence (hostile text, odd ids, time going
backwards, far-future and epoch timestamps): `key()` and `process()` never raise."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.contracts import CHAT, HAND, SEAT, SNAPCAM, DecodeError, Event, decode
from pipeline.detector import Detector
from pipeline.registry import build_detectors
from pipeline.rules import RULES_PRESETS
from railbird.settings import Settings
from railbird.wiring import load_chat_classifier
from tests.hostile.naughty import NAUGHTY
from tests.samples import chat_value, hand_value, seat_value, snapcam_value

SEQ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                      HealthCheck.function_scoped_fixture])
BASE = datetime(2026, 11, 1, tzinfo=UTC)

ids = st.sampled_from(["p1", "p2", "p3", "x" * 128, "A.b:c@d-e_f", "0"])
texts = st.sampled_from(NAUGHTY) | st.text(max_size=200)
times = st.sampled_from([0, 1, 59, 3600, -5, -86_400, 10**7]).map(lambda s: BASE + timedelta(seconds=s)) | \
    st.sampled_from([datetime(1970, 1, 1, tzinfo=UTC), datetime(9999, 12, 31, 23, tzinfo=UTC)])


@st.composite
def chat_events(draw: st.DrawFn, n: int) -> dict[str, Any]:
    channel = draw(st.sampled_from(["table", "tournament", "lobby", "private"]))
    return chat_value(
        event_id=f"c{n}", ts=draw(times).isoformat(), channel=channel, player_id=draw(ids),
        nickname=draw(st.sampled_from([*NAUGHTY[:60], "Bob"]).filter(lambda s: 1 <= len(s) <= 64)),
        text=draw(texts), table_id=draw(ids), recipient_id=draw(ids), hand_id=draw(st.none() | ids),
        tournament_id="tt" if channel == "tournament" else draw(st.none() | ids),
        players_in_hand=draw(st.none() | st.lists(ids, max_size=5)),
    )


@st.composite
def seat_events(draw: st.DrawFn, n: int) -> dict[str, Any]:
    seated = draw(st.integers(1, 10))
    game = draw(st.sampled_from(["cash", "tournament"]))
    return seat_value(
        event_id=f"s{n}", ts=draw(times).isoformat(), player_id=draw(ids), table_id=draw(ids), game=game,
        tournament_id="tt" if game == "tournament" else draw(st.none() | ids),
        format=draw(st.sampled_from(["regular", "rush_and_cash", "all_in_or_fold", "vip", "turbo", "bounty"])),
        action=draw(st.sampled_from(["join", "leave", "sit_out", "sit_in", "disconnect", "reconnect",
                                     "sit_out_timeout_removal"])),
        seat=draw(st.integers(1, 10)), hands_played_at_table=draw(st.integers(0, 1_000_000)),
        players_seated=seated, others_sitting_out=draw(st.integers(0, seated - 1)), blind_level=draw(ids),
    )


@st.composite
def snapcam_events(draw: st.DrawFn, n: int) -> dict[str, Any]:
    reporter, reported = draw(st.lists(ids, min_size=2, max_size=2, unique=True))
    return snapcam_value(
        event_id=f"r{n}", report_id=f"rep{n}", ts=draw(times).isoformat(), reporter_id=reporter,
        reported_id=reported, reason=draw(st.sampled_from(["offensive", "harassment", "hand_influence", "other"])),
        comment=draw(texts), transcript=draw(st.none() | texts), table_id=draw(st.none() | ids),
    )


@st.composite
def hand_events(draw: st.DrawFn, n: int) -> dict[str, Any]:
    a, b = draw(st.lists(ids, min_size=2, max_size=2, unique=True))
    return hand_value(event_id=f"h{n}", hand_id=f"h{n}", ts=draw(times).isoformat(), players=[a, b],
                      table_id=draw(ids))


STRATEGIES = {CHAT: chat_events, SEAT: seat_events, SNAPCAM: snapcam_events, HAND: hand_events}


@pytest.fixture(scope="module")
def classifier() -> Any:
    """The shipped chat model, loaded once."""
    return load_chat_classifier(Settings())


def _events(topic: str, values: Sequence[dict[str, Any]]) -> list[Event]:
    out = []
    for v in values:
        try:
            out.append(decode(topic, json.dumps(v).encode()))
        except DecodeError:
            continue  # the strategy may draw an invalid combination: that is the decoder's business
    return out


def _feed(detectors: dict[str, Detector], topic: str, events: list[Event]) -> int:
    fed = 0
    for event in events:
        for name, detector in detectors.items():
            if topic not in detector.topics:
                continue
            assert isinstance(detector.key(event), str), name
            for finding in detector.process(event):
                assert finding.detector and finding.players, name
            fed += 1
    return fed


@pytest.mark.parametrize("topic", [CHAT, SEAT, SNAPCAM, HAND])
@SEQ
@given(data=st.data())
def test_every_detector_survives_any_valid_sequence(topic: str, classifier: Any, data: st.DataObject) -> None:
    detectors = build_detectors(rules=next(iter(RULES_PRESETS.values())), classifier=classifier)
    values = [data.draw(STRATEGIES[topic](i)) for i in range(data.draw(st.integers(1, 25)))]
    _feed(detectors, topic, _events(topic, values))


def test_every_naughty_string_as_chat_text_and_nickname(classifier: Any) -> None:
    detectors = build_detectors(rules=next(iter(RULES_PRESETS.values())), classifier=classifier)
    values = []
    for i, s in enumerate(NAUGHTY):
        values.append(chat_value(event_id=f"t{i}", text=s, player_id=f"p{i % 7}"))
        values.append(chat_value(event_id=f"n{i}", nickname=s, player_id=f"q{i % 7}"))
        values.append(snapcam_value(event_id=f"s{i}", report_id=f"r{i}", comment=s, transcript=s))
    chat = _events(CHAT, [v for v in values if "text" in v])
    assert len(chat) > 300, "most naughty strings are valid chat"
    assert _feed(detectors, CHAT, chat) > 1000
    assert _feed(detectors, SNAPCAM, _events(SNAPCAM, [v for v in values if "comment" in v])) > 100
