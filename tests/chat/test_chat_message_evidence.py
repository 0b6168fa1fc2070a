"""A chat message's evidence carries the running hand and who was in it, and nothing when none ran."""

from __future__ import annotations

from chat_events import msg

from pipeline.detectors.chat.evidence import message_evidence


def test_running_hand_and_its_players_are_kept():
    entry = message_evidence(msg("fold he has it", hand_id="hand-9", players_in_hand=("p-b", "p-c")))
    assert entry["hand_id"] == "hand-9" and entry["players_in_hand"] == ["p-b", "p-c"]


def test_no_hand_no_hand_fields():
    entry = message_evidence(msg("gg all"))
    assert "hand_id" not in entry and "players_in_hand" not in entry and entry["text"] == "gg all"
