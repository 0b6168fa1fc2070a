"""Offensive nicknames: checked on first sight per player, disguises caught, normal names left alone."""

from __future__ import annotations

import pytest

from pipeline.contracts import CHAT
from pipeline.detectors.chat.nickname import NicknameDetector
from pipeline.registry import build_pipeline
from pipeline.rules import RulesConfig
from tests.chat.chat_events import FakeClassifier, msg

OFFENSIVE = ["FuckYou69", "F.u.c.k_Y0u", "xX_motherfucker_Xx", "KontolBesar", "Bangsat88", "SukaБлядь",
             "ОбычныйМудак", "kurvaanyad", "Official_Support", "idiot_king"]
FINE = ["Bob", "Scunthorpe_Fan", "Closer77", "Baromfi", "AceHigh", "NguyenVan", "Anh_Tuan", "Kovács_Béla",
        "Олександр", "ДимаПокер", "PutriCantik", "ShipIt", "lagmonster"]


@pytest.mark.parametrize("nickname", OFFENSIVE)
def test_offensive_nicknames_are_flagged(nickname: str) -> None:
    (finding,) = NicknameDetector().process(msg("gl all", nickname=nickname))
    assert finding.category == "offensive_nickname" and finding.rule == "nicknames"
    assert finding.evidence["nickname"] == nickname


@pytest.mark.parametrize("nickname", FINE)
def test_ordinary_nicknames_are_left_alone(nickname: str) -> None:
    assert NicknameDetector(classifier=FakeClassifier()).process(msg("gl all", nickname=nickname)) == ()


def test_checked_once_per_player_and_again_after_a_change() -> None:
    model = FakeClassifier()
    detector = NicknameDetector(classifier=model)
    assert len(detector.process(msg("hi", at=0, nickname="ToxicTom"))) == 1
    assert detector.process(msg("hi again", at=5, nickname="ToxicTom")) == ()
    assert model.texts == 1
    assert detector.process(msg("reset done", at=9, nickname="Tom")) == ()
    assert len(detector.process(msg("back", at=20, nickname="ToxicTom"))) == 1


def test_state_is_bounded() -> None:
    detector = NicknameDetector(max_players=10)
    for i in range(100):
        detector.process(msg("hi", at=i, player_id=f"p{i}", nickname=f"Player{i}"))
    assert len(detector._seen) == 10


def test_policy_proposes_a_nickname_reset() -> None:
    pipeline = build_pipeline(rules=RulesConfig())
    (finding,) = [f for f in pipeline.process(CHAT, msg("gl", nickname="Bangsat88")).findings]
    (action,) = finding.actions
    assert action.kind == "nickname_reset" and action.disposition == "proposed"


class _NameHater:
    """A model that, like a sentence-trained one can, calls short names and spam words offensive."""

    def classify(self, texts):
        from pipeline.text_model import TextVerdict

        out = []
        for text in texts:
            category = "spam" if "Chip" in text else "insult"
            out.append(TextVerdict(scores={category: 0.99}, flagged=(category,)))
        return out


def test_classifier_alone_needs_a_multiword_name_and_an_offensive_category() -> None:
    detector = NicknameDetector(classifier=_NameHater())
    assert detector.judge("Bob") is None
    assert detector.judge("ChipKing") is None
    verdict = detector.judge("CoolQueen")
    assert verdict is not None and verdict[1].startswith("classifier")
