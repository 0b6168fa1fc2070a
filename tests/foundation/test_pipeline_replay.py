"""The pipeline runner, policy and offline replay on small tables of events."""

from __future__ import annotations

import json
from collections.abc import Sequence

from pipeline.contracts import CHAT, SEAT, ChatMessage, Event
from pipeline.detectors.banned_words import BannedWordsDetector
from pipeline.findings import Finding
from pipeline.replay import envelope_line, replay_lines
from pipeline.rules import RulesConfig
from pipeline.runner import Pipeline
from tests.samples import chat_value, seat_value

RULES = RulesConfig()


def _chat(text: str, event_id: str = "c1") -> ChatMessage:
    return ChatMessage.model_validate_json(json.dumps(chat_value(text=text, event_id=event_id)))


def test_banned_words_flags_whole_words_only_with_spans() -> None:
    detector = BannedWordsDetector()
    (finding,) = detector.process(_chat("gg, fuck you donk"))
    assert finding.category == "insult"
    assert finding.players == ("p1",)
    span = finding.spans[0]
    assert "gg, fuck you donk"[span.start : span.end].lower() == "fuck you"
    assert detector.process(_chat("nice hand, ship it")) == ()
    assert detector.process(_chat("Scunthorpe kysely")) == ()  # substrings of words are not words


def test_finding_ids_are_stable_across_runs() -> None:
    first = BannedWordsDetector().process(_chat("сука"))
    again = BannedWordsDetector().process(_chat("сука"))
    assert first[0].finding_id == again[0].finding_id
    assert BannedWordsDetector().process(_chat("сука", event_id="c2"))[0].finding_id != first[0].finding_id


class _Exploding:
    name = "test.exploding"
    topics = frozenset({CHAT})

    def key(self, event: Event) -> str:
        return event.event_id

    def process(self, event: Event) -> Sequence[Finding]:
        raise RuntimeError("boom")


def test_a_failing_detector_does_not_hide_the_others_findings() -> None:
    pipeline = Pipeline(
        {"test.exploding": _Exploding(), "chat.banned_words": BannedWordsDetector()}, rules=RULES
    )
    outcome = pipeline.process(CHAT, _chat("kys"))
    assert [f.detector for f in outcome.findings] == ["chat.banned_words"]
    assert outcome.errors[0].detector == "test.exploding"
    assert "boom" in outcome.errors[0].error


def test_policy_mutes_high_confidence_abuse_automatically_for_a_short_time() -> None:
    pipeline = Pipeline({"chat.banned_words": BannedWordsDetector()}, rules=RULES)
    (finding,) = pipeline.process(CHAT, _chat("kys")).findings
    (action,) = finding.actions
    assert action.disposition == "automatic"
    assert action.kind == "chat_mute"
    assert action.expires_at is not None
    assert (action.expires_at - action.starts_at).total_seconds() == RULES.auto_mute_minutes * 60


def test_replay_reports_findings_actions_and_dead_letters_in_order() -> None:
    lines = [
        envelope_line(CHAT, chat_value(event_id="a", text="nice hand")),
        envelope_line(CHAT, chat_value(event_id="b", text="anjing lu")),
        "not json at all",
        envelope_line(SEAT, seat_value(action="teleport")),
        json.dumps({"value": {}}),
        "",
    ]
    pipeline = Pipeline({"chat.banned_words": BannedWordsDetector()}, rules=RULES)
    out = list(replay_lines(lines, pipeline))
    assert [(o["kind"], o["line"]) for o in out] == [
        ("finding", 2),
        ("action", 2),
        ("dead_letter", 3),
        ("dead_letter", 4),
        ("dead_letter", 5),
    ]
    assert out[0]["finding"]["source_event_ids"] == ["b"]
    assert "action" in out[3]["error"]
    assert out[2]["error_kind"] == "not_json"


class _Holding:
    """Holds every chat line back (as a reorder buffer does) and reports them all at `flush`."""

    name = "test.holding"
    topics = frozenset({CHAT})

    def __init__(self, *, broken: bool = False) -> None:
        self.held: list[ChatMessage] = []
        self.broken = broken

    def key(self, event: Event) -> str:
        return event.event_id

    def process(self, event: Event) -> Sequence[Finding]:
        assert isinstance(event, ChatMessage)
        self.held.append(event)
        return ()

    def flush(self) -> list[Finding]:
        if self.broken:
            raise RuntimeError("flush bug")
        out = [f.model_copy(update={"detector": self.name, "finding_id": f"held-{f.finding_id}"})
               for e in self.held for f in BannedWordsDetector().process(e)]
        self.held = []
        return out


def test_a_finished_replay_reports_what_the_detectors_still_hold_back() -> None:
    lines = [envelope_line(CHAT, chat_value(text="fuck you", event_id=f"c{i}")) for i in range(2)]
    streamed = [o for o in replay_lines(lines, Pipeline({"test.holding": _Holding()}, rules=RULES), flush=False)]
    assert streamed == [], "a live stream has emitted nothing yet: the lines are held"
    ended = list(replay_lines(lines, Pipeline({"test.holding": _Holding()}, rules=RULES)))
    findings = [o for o in ended if o["kind"] == "finding"]
    assert [o["line"] for o in findings] == [None, None]
    assert {o["finding"]["detector"] for o in findings} == {"test.holding"}
    assert any(o["kind"] == "action" for o in ended), "flushed findings go through policy like the others"


def test_a_detector_failing_at_the_end_of_input_is_reported_not_raised() -> None:
    lines = [envelope_line(CHAT, chat_value(text="fuck you"))]
    out = list(replay_lines(lines, Pipeline({"test.holding": _Holding(broken=True)}, rules=RULES)))
    assert out == [{"kind": "detector_error", "line": None, "detector": "test.holding",
                    "error": "RuntimeError: flush bug"}]
