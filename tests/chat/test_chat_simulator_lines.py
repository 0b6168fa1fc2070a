"""The simulator's benign and planted lines (written by the simulator's author, not for these rules)."""

from __future__ import annotations

import itertools

from pipeline.contracts import CHAT
from pipeline.registry import build_pipeline
from pipeline.rules import RulesConfig
from simulator import abuse, phrases
from tests.chat.chat_events import msg


def test_no_benign_simulator_line_is_flagged_by_any_rule() -> None:
    banks = (phrases.DURING_HAND, phrases.AFTER_HAND, phrases.DEAL_TALK, phrases.LOBBY, phrases.PRIVATE)
    lines = [line for bank in banks for group in bank.values() for line in group]
    flagged = []
    for i, line in enumerate(lines):
        pipeline = build_pipeline(rules=RulesConfig())
        event = msg(line, at=i, player_id=f"p{i}", hand_id="h1", players_in_hand=("p2", "p3"))
        flagged += [(line, f.detector) for f in pipeline.process(CHAT, event).findings]
    assert len(lines) > 100 and flagged == []


def test_planted_hand_in_play_and_insults_are_flagged() -> None:
    pipeline = build_pipeline(rules=RulesConfig())
    missed = []
    for category in ("hand_in_play", "insult"):
        lines = [line for group in abuse.VIOLATIONS[category].values() for line in group]
        for i, (line, cards) in enumerate(itertools.product(lines, ("AhKd", "pocket kings"))):
            text = line.format(v="Alice", t="Bob", c=cards)
            event = msg(text, at=i * 999, player_id=f"x{category}{i}", hand_id="h1", players_in_hand=("p2",))
            if category not in {f.category for f in pipeline.process(CHAT, event).findings}:
                missed.append(text)
    assert missed == []


def test_planted_offensive_nicknames_are_flagged_and_generated_ones_are_not() -> None:
    pipeline = build_pipeline(rules=RulesConfig())
    bad = [n for n in phrases.OFFENSIVE_NICKNAMES]
    good = ["".join(p) for p in itertools.product(*phrases.NICKNAME_PARTS)]
    hits = {}
    for i, nickname in enumerate(bad + good):
        found = pipeline.process(CHAT, msg("gl", at=i, player_id=f"n{i}", nickname=nickname)).findings
        hits[nickname] = any(f.category == "offensive_nickname" for f in found)
    assert all(hits[n] for n in bad)
    assert not any(hits[n] for n in good)
