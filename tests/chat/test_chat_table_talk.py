"""Everyday table talk in every language, finished-hand talk and deal talk: nothing is flagged."""

from __future__ import annotations

import pytest

from pipeline.contracts import CHAT
from pipeline.registry import build_pipeline
from pipeline.rules import RulesConfig
from pipeline.runner import Pipeline
from tests.chat.chat_events import FakeClassifier, msg

TABLE_TALK: dict[str, list[str]] = {
    "en": ["nh", "gg wp", "ty", "nice hand", "ship it", "lag again?", "gl all", "nice call", "good fold",
           "wp", "NICE HAND!!!", "brb", "I had aces lol", "sick river", "gg", "thx", "haha", "ok", "JK",
           "who's from Jakarta?", "what a cooler", "ugh, 2 outer again", "Kings are my lucky cards"],
    "id": ["nh bro", "gg", "makasih", "mantap", "lag lagi?", "semoga beruntung", "kartu bagus",
           "wkwkwk", "main bagus", "tadi aku pegang as raja", "ayo lanjut", "selamat"],
    "vi": ["ván đẹp", "cảm ơn", "gg", "lag nữa à?", "chúc may mắn", "hay quá", "đi ngủ đây",
           "chơi hay lắm", "hồi nãy tôi có đôi A", "ship it"],
    "hu": ["szép leosztás", "köszi", "gg", "megint lagol?", "sok szerencsét", "jó játék", "szép hívás",
           "az előbb ászaim voltak", "hajrá"],
    "uk": ["гарна роздача", "дякую", "гг", "знову лаг?", "удачі всім", "гарний колл", "добра гра"],
    "ru": ["хорошая раздача", "спасибо", "гг", "опять лаг?", "нх", "удачи всем", "хороший колл",
           "красивый фолд", "в прошлой раздаче у меня были тузы"],
}
DEAL_TALK = [
    "deal? everyone click the deal button",
    "I accept the chop, icm deal ok for all?",
    "mau deal semua?",
    "chia tiền không mọi người?",
    "osztozzunk?",
    "ділимо банк?",
    "делим по ICM?",
]


def _pipeline(with_model: bool) -> Pipeline:
    return build_pipeline(rules=RulesConfig(), classifier=FakeClassifier() if with_model else None)


def _talk(language: str, during_hand: bool) -> list:
    players = ["p1", "p2", "p3", "p4"]
    events = []
    for i, text in enumerate(TABLE_TALK[language]):
        player = players[i % len(players)]
        extra = {"hand_id": f"h{i}", "players_in_hand": ("p2", "p3")} if during_hand else {}
        events.append(msg(text, at=i * 20.0, player_id=player, nickname=player.upper(), **extra))
    return events


@pytest.mark.parametrize("with_model", [False, True])
@pytest.mark.parametrize("during_hand", [False, True])
@pytest.mark.parametrize("language", sorted(TABLE_TALK))
def test_everyday_table_talk_is_left_alone(language: str, during_hand: bool, with_model: bool) -> None:
    pipeline = _pipeline(with_model)
    findings = pipeline.process_all((CHAT, e) for e in _talk(language, during_hand))
    assert findings == [], [(f.detector, f.summary) for f in findings]


def test_talk_about_a_finished_hand_is_not_hand_in_play() -> None:
    pipeline = _pipeline(False)
    after = msg("he had aces, you should have folded", at=0, player_id="p5", hand_id=None)
    assert pipeline.process(CHAT, after).findings == ()
    during = msg("he has aces, fold", at=5, player_id="p5", hand_id="h9", players_in_hand=("p1", "p2"))
    assert [f.category for f in pipeline.process(CHAT, during).findings] == ["hand_in_play"]


def test_final_table_deal_talk_is_not_flagged() -> None:
    pipeline = _pipeline(True)
    events = [
        msg(text, at=i * 15.0, player_id=f"p{i % 3}", channel="tournament", table_id=None, tournament_id="mtt1")
        for i, text in enumerate(DEAL_TALK)
    ]
    assert pipeline.process_all((CHAT, e) for e in events) == []
