"""Flooding, emoji spam, shouting and shouting matches: bursts are flagged once, banter is not."""

from __future__ import annotations

from pipeline.detectors.chat.flooding import FloodingDetector
from pipeline.detectors.chat.shouting import ShoutingDetector, ShoutingMatchDetector
from tests.chat.chat_events import msg


def _run(detector, events):
    # Place-keyed detectors hold the last `lateness` seconds back for reordering: flush at the end.
    found = [f for e in events for f in detector.process(e)]
    return found + list(getattr(detector, "flush", list)())


def test_message_rate_over_the_limit_is_one_flooding_finding() -> None:
    events = [msg(f"spam line {i}", at=i * 0.5) for i in range(20)]
    (finding,) = _run(FloodingDetector(), events)
    assert finding.category == "flooding" and finding.rule == "chat.12"
    assert len(finding.source_event_ids) == 7 and len(finding.evidence["messages"]) == 7


def test_a_normal_pace_is_not_flooding_nor_are_other_players_or_tables() -> None:
    slow = [msg(f"line {i}", at=i * 3.0) for i in range(20)]
    spread = [msg(f"x{i}", at=i * 0.5, player_id=f"p{i}") for i in range(20)]
    tables = [msg(f"y{i}", at=i * 0.5, table_id=f"t{i % 4}") for i in range(20)]
    assert _run(FloodingDetector(), slow) == []
    assert _run(FloodingDetector(), spread) == []
    assert _run(FloodingDetector(), tables) == []


def test_emoji_spam_and_emoji_walls() -> None:
    emoji_lines = [msg("😂😂😂", at=i * 4.0) for i in range(6)]
    (finding,) = _run(FloodingDetector(), emoji_lines)
    assert finding.category == "emoji_spam" and finding.rule == "chat.etiquette"
    (wall,) = _run(FloodingDetector(), [msg("🔥" * 40)])
    assert wall.category == "emoji_spam"
    assert _run(FloodingDetector(), [msg("gg 👍", at=i * 20.0) for i in range(6)]) == []


def test_repeated_lines_and_character_runs() -> None:
    (finding,) = _run(FloodingDetector(), [msg("JOIN MY CLUB", at=i * 8.0) for i in range(5)])
    assert finding.category == "flooding" and "same line" in finding.summary
    (run,) = _run(FloodingDetector(), [msg("a" * 60)])
    assert run.category == "flooding"
    assert _run(FloodingDetector(), [msg("noooooo")]) == []


def test_a_single_shouted_line_is_table_talk() -> None:
    lines = [msg("NICE HAND!!!"), msg("SHIP IT", at=30, player_id="p2")]
    assert _run(ShoutingDetector(), lines) == [] and _run(ShoutingMatchDetector(), lines) == []


def test_persistent_shouting_is_per_player_and_place() -> None:
    spread = [msg(f"WHY DO YOU ALWAYS CALL {i}", at=i * 10.0, table_id=f"t{i}") for i in range(4)]
    assert _run(ShoutingDetector(), spread) == []


def test_persistent_shouting_by_one_player() -> None:
    lines = [msg(f"WHY DO YOU ALWAYS CALL {i}", at=i * 10.0) for i in range(4)]
    (finding,) = _run(ShoutingDetector(), lines)
    assert finding.category == "shouting" and finding.players == ("p1",)


def test_shouting_match_between_two_players() -> None:
    lines = [
        msg("YOU ARE THE WORST PLAYER", at=0, player_id="p1"),
        msg("SHUT UP DONK", at=5, player_id="p2"),
        msg("LEARN TO PLAY!!!", at=10, player_id="p1"),
        msg("idiot", at=15, player_id="p2"),
        msg("nh", at=20, player_id="p3"),
    ]
    assert _run(ShoutingDetector(), lines) == []  # two lines each: neither shouts on and on
    (finding,) = _run(ShoutingMatchDetector(), lines)
    assert finding.category == "shouting" and set(finding.players) == {"p1", "p2"}
    assert "match" in finding.summary
    assert len(finding.evidence["messages"]) == 4


def test_calm_back_and_forth_is_not_a_match() -> None:
    lines = [msg(t, at=i * 5.0, player_id=("p1", "p2")[i % 2]) for i, t in enumerate(
        ["nice river", "ty", "you always hit", "lucky me", "gg", "gg"])]
    assert _run(ShoutingDetector(), lines) == []
    assert _run(ShoutingMatchDetector(), lines) == []


def test_shouting_in_the_lobby_counts_too() -> None:
    lines = [msg(f"THIS SITE IS RIGGED EVERY HAND {i}!!!", at=i * 10.0, channel="lobby", table_id=None) for i in range(4)]
    (finding,) = _run(ShoutingDetector(), lines)
    assert finding.table_id is None


def test_flood_and_shouting_evidence_marks_the_lines() -> None:
    (flood,) = _run(FloodingDetector(), [msg(" zzz ", at=i * 0.5) for i in range(8)])
    assert all(m["spans"] == [{"start": 1, "end": 4, "label": "flooding"}] for m in flood.evidence["messages"])
    lines = [msg(f"WHY DO YOU ALWAYS CALL IDIOT {i}", at=i * 10.0) for i in range(4)]
    (shout,) = _run(ShoutingDetector(), lines)
    first = shout.evidence["messages"][0]
    assert {"start": 0, "end": len(lines[0].text), "label": "shouting"} in first["spans"]
    assert any(s["label"] == "insult" for s in first["spans"])  # the insulting word, by the lexicon
    assert shout.rule == "chat.etiquette" and flood.rule == "chat.12"
