"""Two operating points per chat category: the verdict's `automatic` categories drive policy's
automatic mutes, and a classifier with operating points has the last word over the word list and
the hand-talk phrases (tests with a stand-in classifier; the shipped model's are in tests/models)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.detectors.chat.banned_words import BannedWordsDetector
from pipeline.detectors.chat.classifier import ClassifierDetector
from pipeline.detectors.chat.hand_in_play import HandInPlayDetector
from pipeline.policy import propose_actions
from pipeline.rules import RulesConfig
from pipeline.text_model import AUTOMATIC_POINT, TextVerdict
from tests.chat.chat_events import msg


@dataclass
class PointsClassifier:
    """Stand-in with operating points: `flagged` and `automatic` as given, for every text."""

    scores: dict[str, float]
    flagged: tuple[str, ...] = ()
    automatic: tuple[str, ...] | None = ()

    def classify(self, texts: Sequence[str]) -> list[TextVerdict]:
        return [
            TextVerdict(scores=dict(self.scores), language="en", flagged=self.flagged, automatic=self.automatic)
            for _ in texts
        ]


def _mutes(finding_actions: tuple[object, ...]) -> int:
    return sum(1 for a in finding_actions if getattr(a, "disposition", "") == "automatic")


def test_model_finding_is_muted_only_past_the_automatic_point() -> None:
    rules = RulesConfig()
    sure = PointsClassifier({"insult": 0.95}, flagged=("insult",), automatic=("insult",))
    review = PointsClassifier({"insult": 0.95}, flagged=("insult",), automatic=())
    (auto_finding,) = ClassifierDetector(sure).process(msg("you absolute clown, uninstall"))
    (review_finding,) = ClassifierDetector(review).process(msg("you absolute clown, uninstall"))
    assert auto_finding.evidence[AUTOMATIC_POINT] is True and review_finding.evidence[AUTOMATIC_POINT] is False
    # The score (0.95) is below the policy floor (0.97): the model's own point decides.
    assert _mutes(propose_actions(auto_finding, rules=rules)) == 1
    assert _mutes(propose_actions(review_finding, rules=rules)) == 0
    off = RulesConfig(auto_mute_min_score=float("inf"))  # auto-mute switched off by the admin
    assert _mutes(propose_actions(auto_finding, rules=off)) == 0


def test_without_operating_points_the_score_floor_still_applies() -> None:
    legacy = PointsClassifier({"insult": 0.99}, flagged=("insult",), automatic=None)
    (finding,) = ClassifierDetector(legacy).process(msg("you fucking idiot"))
    assert AUTOMATIC_POINT not in finding.evidence
    assert _mutes(propose_actions(finding, rules=RulesConfig())) == 1


def test_listed_word_the_model_does_not_flag_is_no_finding() -> None:
    line = msg("anjing river 😭")
    quiet = PointsClassifier({"insult": 0.3}, flagged=(), automatic=())
    assert BannedWordsDetector(classifier=quiet).process(line) == ()
    assert BannedWordsDetector().process(line)  # without a model the word list stands alone
    agrees = PointsClassifier({"insult": 0.9}, flagged=("insult",), automatic=())
    (finding,) = BannedWordsDetector(classifier=agrees).process(line)
    assert finding.score == 1.0 and finding.evidence[AUTOMATIC_POINT] is False
    assert _mutes(propose_actions(finding, rules=RulesConfig())) == 0  # 1.0, but not past the point


def test_hand_talk_needs_the_models_hand_in_play_flag() -> None:
    line = msg("he has aces, fold", hand_id="h1", players_in_hand=("p2", "p3"))
    assert HandInPlayDetector().process(line)
    no = PointsClassifier({"hand_in_play": 0.2}, flagged=(), automatic=())
    yes = PointsClassifier({"hand_in_play": 0.9}, flagged=("hand_in_play",), automatic=())
    legacy = PointsClassifier({"hand_in_play": 0.2}, flagged=(), automatic=None)
    assert HandInPlayDetector(classifier=no).process(line) == ()
    assert HandInPlayDetector(classifier=yes).process(line)
    assert HandInPlayDetector(classifier=legacy).process(line)  # no operating points: phrases alone


def test_the_automatic_point_of_any_category_under_the_same_rule_counts() -> None:
    """"kys" is fused as a threat while the model is sure of an insult: both are rule chat.3, one
    sanction, so the threat finding carries the automatic point; spam (another rule) does not."""
    from pipeline.text_model import automatic_evidence

    sure_insult = TextVerdict(scores={"insult": 0.99, "threat": 0.9}, flagged=("insult", "threat"), automatic=("insult",))
    assert automatic_evidence(sure_insult, "threat") == {AUTOMATIC_POINT: True}
    assert automatic_evidence(sure_insult, "insult") == {AUTOMATIC_POINT: True}
    assert automatic_evidence(sure_insult, "spam") == {AUTOMATIC_POINT: False}
    assert automatic_evidence(TextVerdict(scores={}, automatic=None), "insult") == {}
