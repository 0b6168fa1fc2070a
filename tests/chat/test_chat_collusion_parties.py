"""`chat.collusion_parties`: the partner named by @mention, the private recipient and the player
who answers "ok, agreed" are parties of the collusion finding; everyone else is left alone."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence

import pytest

from models.chat import load_classifier
from pipeline.contracts import CHAT, ChatMessage
from pipeline.detectors.chat.agreement_reply import is_agreement_reply
from pipeline.detectors.chat.classifier import ClassifierDetector
from pipeline.detectors.chat.collusion_parties import CollusionPartiesDetector
from pipeline.findings import Finding
from pipeline.registry import build_pipeline
from pipeline.rules import RulesConfig
from pipeline.text_model import TextVerdict
from tests.chat import chat_events

PROPOSER = "Al"

PROPOSAL = "we don't bet into each other, ok?"  # an explicit agreement phrase (agreement_talk)


def msg(text: str, **fields: object) -> ChatMessage:
    """A table message; p1 (the proposer in these tests) is called Al, not the builder's Bob."""
    if fields.get("player_id", "p1") == "p1":
        fields.setdefault("nickname", PROPOSER)
    return chat_events.msg(text, **fields)  # type: ignore[arg-type]


def _run(events: Sequence[ChatMessage]) -> list[Finding]:
    detector = CollusionPartiesDetector()
    found = [f for e in events for f in detector.process(e)]
    return found + detector.flush()


def _parties(findings: Sequence[Finding]) -> list[tuple[str, ...]]:
    return [f.players for f in findings]


def test_a_proposal_to_an_at_mentioned_player_names_both() -> None:
    events = [
        msg("gl all", at=0, player_id="p2", nickname="Bob"),
        msg(f"@Bob {PROPOSAL}", at=5, player_id="p1", nickname="Al"),
    ]
    (finding,) = _run(events)
    assert (
        finding.players == ("p1", "p2") and finding.category == "collusion_talk" and finding.rule == "chat.7"
    )
    assert finding.evidence["parties"] == {"speaker": "p1", "addressed_to": ["p2"]}


def test_the_named_partner_answering_ok_agreed_is_a_party_too() -> None:
    events = [
        msg("gl all", at=0, player_id="p2", nickname="Bob"),
        msg(f"@Bob {PROPOSAL}", at=5, player_id="p1", nickname="Al", event_id="prop"),
        msg("ok, agreed", at=12, player_id="p2", nickname="Bob", event_id="yes"),
    ]
    proposal, reply = _run(events)
    assert proposal.players == ("p1", "p2")
    assert reply.players == ("p2", "p1") and reply.source_event_ids == ("prop", "yes")
    assert [m["text"] for m in reply.evidence["messages"]] == [f"@Bob {PROPOSAL}", "ok, agreed"]


def test_a_partner_mentioned_before_speaking_is_linked_when_they_answer() -> None:
    events = [
        msg(f"@Bob {PROPOSAL}", at=0, player_id="p1"),
        msg("deal", at=4, player_id="p2", nickname="Bob"),
    ]
    found = _run(events)
    assert sorted(_parties(found)) == [("p1", "p2"), ("p2", "p1")]
    assert all(f.evidence["unresolved_mentions"] == ["bob"] for f in found)


def test_a_proposal_to_the_table_takes_whoever_agrees() -> None:
    events = [
        msg(PROPOSAL, at=0, player_id="p1"),
        msg("siap bang", at=3, player_id="p3", nickname="Cici"),
    ]
    assert _parties(_run(events)) == [("p3", "p1")]


def test_a_private_recipients_answer_is_reported() -> None:
    events = [
        msg(PROPOSAL, at=0, channel="private", table_id=None, player_id="p1", recipient_id="p2"),
        msg("згоден", at=6, channel="private", table_id=None, player_id="p2", recipient_id="p1", nickname="Ivan"),
    ]
    assert _parties(_run(events)) == [("p2", "p1")]


class _CollusionModel:
    """Flags collusion talk on lines about each other (the shipped model's rule patterns do so)."""

    def classify(self, texts: Sequence[str]) -> list[TextVerdict]:
        return [
            TextVerdict(scores={"collusion_talk": 0.9}, flagged=("collusion_talk",), language="en")
            if "each other" in t
            else TextVerdict(scores={"collusion_talk": 0.0}, language="en")
            for t in texts
        ]


def test_the_classifier_names_a_private_lines_recipient() -> None:
    detector = ClassifierDetector(_CollusionModel())
    private = msg(PROPOSAL, channel="private", table_id=None, player_id="p1", recipient_id="p2")
    (finding,) = detector.process(private)
    assert finding.players == ("p1", "p2") and finding.category == "collusion_talk"
    (at_table,) = detector.process(msg(PROPOSAL, player_id="p1"))
    assert at_table.players == ("p1",)


@pytest.mark.parametrize(
    "events",
    [
        # a yes with no proposal before it
        [msg("ok, agreed", at=0, player_id="p2")],
        # the proposer agreeing with himself
        [msg(PROPOSAL, at=0, player_id="p1"), msg("ok", at=2, player_id="p1")],
        # too late to be an answer
        [msg(PROPOSAL, at=0, player_id="p1"), msg("ok", at=200, player_id="p2", nickname="Bob")],
        # another table
        [msg(PROPOSAL, at=0, player_id="p1"), msg("ok", at=2, player_id="p2", table_id="t2")],
        # final-table deal talk is allowed, and so is agreeing to it
        [msg("let's all chop, deal?", at=0, player_id="p1"), msg("ok, agreed", at=3, player_id="p2")],
        # ordinary talk, @mentions and answers
        [
            msg("hi", at=0, player_id="p2", nickname="Bob"),
            msg("@Bob nice hand", at=1, player_id="p1"),
            msg("ok thanks", at=3, player_id="p2", nickname="Bob"),
        ],
    ],
)
def test_left_alone(events: list[ChatMessage]) -> None:
    assert _run(events) == []


def test_only_the_named_partner_can_agree() -> None:
    events = [
        msg("hi", at=0, player_id="p2", nickname="Bob"),
        msg(f"@Bob {PROPOSAL}", at=1, player_id="p1"),
        msg("ok", at=3, player_id="p3", nickname="Cici"),
    ]
    assert _parties(_run(events)) == [("p1", "p2")]


def test_one_answer_is_reported_once() -> None:
    events = [
        msg(PROPOSAL, at=0, player_id="p1"),
        msg("ok", at=2, player_id="p2"),
        msg("ok!", at=4, player_id="p2"),
    ]
    assert _parties(_run(events)) == [("p2", "p1")]


@pytest.mark.parametrize(
    "text", ["ok, agreed", "Deal!", "siap bang", "đồng ý", "rendben", "по рукам", "ok bro count me in"]
)
def test_agreement_replies(text: str) -> None:
    assert is_agreement_reply(text)


@pytest.mark.parametrize(
    "text", ["all in", "ok fold", "ok I fold", "nice hand", "i call", "gg", "ok but why"]
)
def test_not_agreement_replies(text: str) -> None:
    assert not is_agreement_reply(text)


def test_the_issue_example_through_the_pipeline_with_the_shipped_model() -> None:
    """Today's gap (issue #19): an agreement addressed "@name" and answered "ok, agreed" flagged
    only the speaker. Through every chat detector and policy, the partner is now a party."""
    pipeline = build_pipeline(rules=RulesConfig(), classifier=load_classifier(None))
    events = [
        msg("gl all", at=0, player_id="p2", nickname="Bob", hand_id="h1"),
        msg(f"@Bob {PROPOSAL}", at=5, player_id="p1", hand_id="h1"),
        msg("ok, agreed", at=9, player_id="p2", nickname="Bob", hand_id="h1"),
    ]
    found = [f for e in events for f in pipeline.process(CHAT, e).findings] + list(pipeline.flush().findings)
    collusion = [f for f in found if f.category == "collusion_talk"]
    assert {f.players for f in collusion if f.detector == "chat.collusion_parties"} == {
        ("p1", "p2"),
        ("p2", "p1"),
    }
    assert all(a.disposition == "proposed" for f in collusion for a in f.actions)  # never automatic


@pytest.mark.parametrize(
    "module",
    [
        "pipeline.detectors.chat.collusion_parties",
        "pipeline.detectors.hand.bounty_finding",
        "pipeline.detectors.hand",
        "railbird.wiring",
    ],
)
def test_the_chat_and_hand_packages_import_in_any_order(module: str) -> None:
    """Each family reads the other's text helpers; a fresh interpreter must import either first."""
    subprocess.run([sys.executable, "-c", f"import {module}"], check=True, capture_output=True)
