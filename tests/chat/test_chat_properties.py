"""Any text, nickname or report never crashes a chat, SnapCam or nickname detector."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.contracts import CHAT, SNAPCAM, ChatMessage, DecodeError, SnapCamReport, decode
from pipeline.contracts.common import MAX_TEXT_CHARS
from pipeline.detectors.chat import build_chat_detectors
from pipeline.rules import RulesConfig
from tests.chat.chat_events import T0, FakeClassifier, msg, report

ODD_TEXTS = [
    "",
    " ",
    "\t\n  \r\n",
    "a" * MAX_TEXT_CHARS,
    "A" * MAX_TEXT_CHARS,
    "😂" * MAX_TEXT_CHARS,
    "!" * MAX_TEXT_CHARS,
    ("fuck you " * 300)[:MAX_TEXT_CHARS],
    ("he has aces fold " * 200)[:MAX_TEXT_CHARS],
    "gg Привет chào bạn szia مرحبا שלום 你好",
    "\u202eevil text reversed\u202c",
    "مرحبا يا صديقي",
    "שלום לכולם",
    "\u200b\u200c\u200d\ufeff",
    "i\u200bd\u200bi\u200bo\u200bt",
    "😂👍🏽🔥❤️‍🔥🇮🇩",
    "Z̷̢̛̤̗͔̺̯̮̓̈́̽a̸̡̧͉͇͚͙̺̾l̵͕̙̑g̸̛̰̈́o̶̻͛",
    "\x00\x01\x02\x7f",
    "AhKdQsJcTh9s8s7s",
]


def _detectors():
    return build_chat_detectors(rules=RulesConfig(), classifier=FakeClassifier())


def _feed(detectors, event, topic):
    out = []
    for detector in detectors:
        if topic in detector.topics:
            detector.key(event)
            out.extend(detector.process(event))
    return out


@pytest.mark.parametrize("text", ODD_TEXTS)
def test_odd_texts_and_nicknames_do_not_crash_and_findings_are_valid(text: str) -> None:
    detectors = _detectors()
    nickname = text[:64] or "x"
    events = [
        msg(text, at=i, player_id=f"p{i % 2}", nickname=nickname, hand_id="h1", players_in_hand=("p1",))
        for i in range(12)
    ]
    events.append(msg(text, at=20, channel="private", recipient_id="p1", table_id=None, nickname=nickname))
    events.append(msg(text, at=21, channel="lobby", table_id=None))
    for event in events:
        for finding in _feed(detectors, event, CHAT):
            assert 0.0 <= finding.score <= 1.0
            assert all(0 <= s.start <= s.end for s in finding.spans)
    rep = report("a", "b", comment=text, transcript=text * 2 if text else None)
    _feed(detectors, rep, SNAPCAM)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=st.text(max_size=MAX_TEXT_CHARS),
    nickname=st.text(min_size=1, max_size=64),
    hand=st.booleans(),
    channel=st.sampled_from(["table", "tournament", "lobby", "private"]),
    seconds=st.integers(min_value=0, max_value=10**7),
)
def test_any_chat_message_never_crashes_any_detector(text, nickname, hand, channel, seconds) -> None:
    message = ChatMessage(
        event_id="e1",
        ts=T0 + timedelta(seconds=seconds),
        channel=channel,
        player_id="p1",
        nickname=nickname,
        text=text,
        client="mobile",
        table_id="t1" if channel == "table" else None,
        tournament_id="m1" if channel == "tournament" else None,
        recipient_id="p2" if channel == "private" else None,
        hand_id="h1" if hand else None,
        players_in_hand=("p2",) if hand else None,
    )
    for finding in _feed(_detectors(), message, CHAT):
        assert finding.players and 0.0 <= finding.score <= 1.0
        for span in finding.spans:
            assert 0 <= span.start <= span.end


@settings(max_examples=100, deadline=None)
@given(comment=st.text(max_size=MAX_TEXT_CHARS), transcript=st.none() | st.text(max_size=5000))
def test_any_snapcam_report_never_crashes(comment, transcript) -> None:
    detectors = _detectors()
    for i in range(4):
        rep = SnapCamReport(
            event_id=f"e{i}", ts=T0 + timedelta(seconds=i), report_id=f"r{i}", reporter_id=f"a{i}",
            reported_id="b", reason="other", comment=comment, clip_ref="clip://x", transcript=transcript,
        )
        for finding in _feed(detectors, rep, SNAPCAM):
            assert 0.0 <= finding.score <= 1.0


def test_a_lone_surrogate_is_rejected_at_the_boundary_with_a_reason() -> None:
    raw = b'{"event_id":"e1","ts":"2026-11-01T12:00:00Z","channel":"lobby","player_id":"p1",' \
        b'"nickname":"x","text":"\\ud800 bad","client":"desktop"}'
    with pytest.raises(DecodeError) as caught:
        decode(CHAT, raw)
    assert caught.value.kind in {"invalid", "not_json"} and str(caught.value)
