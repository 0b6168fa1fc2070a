"""Hand-record detectors: integrity (duplicates), bounty agreements, soft play, chip dumping."""

from __future__ import annotations

from pipeline.detector import Detector
from pipeline.detectors.hand.bounty_agreement import BountyAgreementDetector
from pipeline.detectors.hand.collusion import CollusionThresholds, build_pair_detectors
from pipeline.detectors.hand.integrity import HandIntegrityDetector
from pipeline.detectors.hand.pairs import PairBook
from pipeline.detectors.hand.stream import HandStream
from pipeline.rules import RulesConfig
from pipeline.text_model import TextClassifier


def build_hand_detectors(*, rules: RulesConfig, classifier: TextClassifier | None = None) -> list[Detector]:
    """The hand detectors over one shared stream (duplicate guard + features + pair statistics)."""
    del rules  # the hand detectors have no rule-version-specific numbers yet
    stream = HandStream(pairs=PairBook())
    return [
        HandIntegrityDetector(stream),
        BountyAgreementDetector(stream=stream, classifier=classifier),
        *build_pair_detectors(stream, CollusionThresholds()),
    ]
